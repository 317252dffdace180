#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineHTTPCore
#if Tracing
import Tracing
#endif

/// What a publisher asks a session to fetch: the request, its body, and the
/// checked target (or the error that checking produced, reported when the
/// task starts). Built once per publisher; every subscription reuses it.
///
/// An immutable class rather than a struct: it went from the memo (or the
/// publisher) into the publisher and into each subscription by copy, about
/// a dozen retains and two memcpys of the whole struct per request
/// (callgrind, issue 32); now one retain each.
///
/// Threading: immutable; any thread.
@usableFromInline
package final class HTTPTaskRequest: Sendable {
    /// The request as it will be written (authority and path from the target).
    @usableFromInline package let request: HTTPRequest
    /// The body, or nil.
    @usableFromInline package let body: [UInt8]?
    /// A streamed body (a publisher of byte chunks), or nil.
    @usableFromInline package let streamedBody: RequestBodySource?
    /// The streamed body's announced length (`Content-Length`), or nil
    /// for chunked transfer coding.
    @usableFromInline package let streamedBodyLength: Int?
    /// Where it goes, or why it cannot go anywhere.
    @usableFromInline package let target: Result<HTTPRequestTarget, UVURLError>
    /// The checked target's pool key, or nil: read by every task of this
    /// request without copying the target out of ``target`` (five
    /// `memcpy`s and a second copy of the key per request; callgrind,
    /// issue 32).
    package let key: ConnectionKey?
    /// Per-request overrides of the session's settings (deadlines).
    @usableFromInline package let options: UVURLSession.RequestOptions
    /// The request head as it goes on the wire, serialised and checked once
    /// here instead of twice per subscription (at issue and at execute):
    /// nil for a request with a body (written with it) and for one the
    /// writer refuses (the engine then reports the writer's error).
    @usableFromInline package let preparedHead: PreparedHead?

    /// A request head ready to write.
    @usableFromInline
    package struct PreparedHead: Sendable {
        /// The head's bytes (written as they are: libuv keeps the array's
        /// storage alive until the write completed).
        let bytes: [UInt8]
        /// Whether the head says `Connection: close`.
        let closesConnection: Bool
    }

    /// The `Accept-Encoding` a session that decompresses responses sends
    /// (``UVURLSession/Configuration/decompressesResponses``).
    package static let acceptEncoding = HTTPField(name: .acceptEncoding, value: "gzip, deflate")
    /// The same as a field list, made once: each publisher's request shares
    /// its storage (a copy-on-write value) instead of allocating its own.
    package static let acceptEncodingFields = HTTPFields(CollectionOfOne(acceptEncoding))

    /// `request` (scheme, authority and path say where) with `body`; with
    /// `acceptEncoding`, a request without an `Accept-Encoding` of its own
    /// says `Accept-Encoding: gzip, deflate` (added here, once per
    /// publisher, so a request costs nothing more).
    package convenience init(request: HTTPRequest, body: [UInt8]?, acceptEncoding: Bool,
                              options: UVURLSession.RequestOptions = UVURLSession.RequestOptions()) {
        guard let scheme = request.scheme else {
            self.init(request: request, body: body,
                      target: .failure(UVURLError(.unsupportedURL, detail: "request has no scheme")), options: options)
            return
        }
        guard let authority = request.authority else {
            self.init(request: request, body: body, target: .failure(UVURLError(.badURL, detail: "URL has no host")),
                      options: options)
            return
        }
        do throws(UVURLError) {
            let target = try HTTPRequestTarget(string: "\(scheme)://\(authority)\(request.path ?? "/")")
            var fields = request.headerFields
            if acceptEncoding && fields[.acceptEncoding] == nil {
                fields.append(Self.acceptEncoding)
            }
            var sent = target.makeRequest(method: request.method, headerFields: fields)
            sent.extendedConnectProtocol = request.extendedConnectProtocol
            self.init(request: sent, body: body, target: .success(target), options: options)
        } catch {
            self.init(request: request, body: body, target: .failure(error), options: options)
        }
    }

    /// `request` with a body streamed from `source`: `Content-Length:
    /// contentLength` when given, or the request's own `Content-Length`
    /// field, and chunked transfer coding otherwise. Otherwise as
    /// ``init(request:body:acceptEncoding:options:)``.
    package convenience init(request: HTTPRequest, streamedBody source: RequestBodySource, contentLength: Int?,
                              acceptEncoding: Bool, options: UVURLSession.RequestOptions) {
        let plain = HTTPTaskRequest(request: request, body: nil, acceptEncoding: acceptEncoding, options: options)
        var length = contentLength
        var target = plain.target
        if let field = request.headerFields[.contentLength] {
            if let declared = Int(field), declared >= 0 {
                if length == nil { length = declared }
                // A disagreeing field is refused by the request writer.
            } else if case .success = target {
                target = .failure(UVURLError(.invalidRequest, detail: "invalid Content-Length field \"\(field)\""))
            }
        }
        if let length, length < 0 {
            target = .failure(UVURLError(.invalidRequest, detail: "negative content length \(length)"))
        }
        if case .success = target, let error = source.setupError {
            target = .failure(error)
        }
        self.init(request: plain.request, body: nil, target: target, options: options,
                  streamedBody: source, streamedBodyLength: length)
    }

    /// The designated initialiser (the others, and the Foundation edge's
    /// `init(url:acceptEncoding:options:)`, end here).
    package init(request: HTTPRequest, body: [UInt8]?, target: Result<HTTPRequestTarget, UVURLError>,
                 options: UVURLSession.RequestOptions, streamedBody: RequestBodySource? = nil,
                 streamedBodyLength: Int? = nil) {
        self.request = request
        self.body = body
        self.target = target
        if case .success(let checked) = target { key = checked.key } else { key = nil }
        self.options = options
        self.streamedBody = streamedBody
        self.streamedBodyLength = streamedBodyLength
        var prepared: PreparedHead? = nil
        if case .success = target, body?.isEmpty ?? true, streamedBody == nil {
            var bytes: [UInt8] = []
            // One allocation for a typical head, not one per doubling.
            bytes.reserveCapacity(512)
            if let result = try? HTTPRequestWriter.appendHead(of: request, bodyLength: 0, to: &bytes) {
                prepared = PreparedHead(bytes: bytes, closesConnection: result.closesConnection)
            }
        }
        preparedHead = prepared
    }
}

extension UVURLSession {
    /// What a publisher for `request` with `body` asks this session to
    /// fetch, with the session's `Accept-Encoding`.
    package func taskRequest(request: HTTPRequest, bytes body: [UInt8]?,
                              options: RequestOptions = RequestOptions()) -> HTTPTaskRequest {
        HTTPTaskRequest(request: request, body: body, acceptEncoding: configuration.decompressesResponses, options: options)
    }

    /// What a publisher for `request` with a streamed body asks this
    /// session to fetch.
    package func taskRequest(request: HTTPRequest, streamedBody: RequestBodySource, contentLength: Int?,
                              options: RequestOptions) -> HTTPTaskRequest {
        HTTPTaskRequest(request: request, streamedBody: streamedBody, contentLength: contentLength,
                        acceptEncoding: configuration.decompressesResponses, options: options)
    }
}

/// How a task ended, for its subscription.
@usableFromInline
package enum TaskOutcome {
    /// A data task's body (owned: whoever receives the outcome takes it
    /// or frees it) and response.
    case value(ResponseBody, HTTPResponse)
    /// A streaming task's last body part went out.
    case finished
    /// The task failed.
    case failure(UVURLError)
}

/// What happened to a streaming part offered to the subscriber.
@usableFromInline
package enum PartOffer {
    /// The subscriber received it.
    case delivered
    /// The subscriber has no demand: the part was not delivered; the
    /// subscription will ask the session to resume when demand arrives.
    case noDemand
    /// The subscription was cancelled.
    case cancelled
}

/// The phase of a task's subscription.
@usableFromInline
package enum SubscriptionPhase: UInt8, Sendable {
    /// Subscribed; waiting for the first demand.
    case awaitingDemand
    /// The request started.
    case started
    /// Delivered, failed or cancelled.
    case done
}

/// A subscription's phase and demand, under the task's `control` lock.
@usableFromInline
package struct SubscriptionControl: Sendable {
    @usableFromInline package var phase = SubscriptionPhase.awaitingDemand
    /// Streaming: parts the subscriber asked for and has not received.
    @usableFromInline package var demand = Subscribers.Demand.none
    /// Streaming: the session stopped reading for want of demand and waits
    /// to be told when demand comes.
    @usableFromInline package var waitingForDemand = false

    @inlinable init() {}
}

/// One data task: the loop-side state the session engine drives, and the
/// subscription's phase, demand and delivery gate, shared by both
/// publishers' subscriptions (which subclass it, so one request costs one
/// object).
///
/// The engine reaches the subscriber through stored, non-capturing
/// functions that the generic subclass forms in its `@inlinable`
/// initialiser, so delivery runs code specialised for the subscriber (see
/// docs/engineering-notes.md). `request` and `cancel`, which arrive through
/// `any Subscription` (unspecialised), run the non-generic code here.
///
/// Locks: `control` guards phase and demand; the `gate` is held across
/// every delivery and across cancel's hand-over, and guards the
/// subclass's downstream reference. The gate may be held while `control`
/// is taken, never the reverse.
///
/// Threading: the fields below "loop thread" belong to the session's loop
/// thread; the subscription methods may be used from any thread.
@usableFromInline
package class SessionTask: DeadlineEntry {
    /// Keeps the session (and its engine) alive while the task exists.
    @usableFromInline package let session: UVURLSession
    @usableFromInline package let spec: HTTPTaskRequest
    /// Whether the subscriber gets the head and body parts as they come.
    package let isStreaming: Bool
    /// Hands the outcome to the subscriber (under the gate).
    @usableFromInline package let deliverOutcome: (SessionTask, TaskOutcome) -> Void
    /// Offers a streaming part (under the gate).
    @usableFromInline package let offerPart: (SessionTask, StreamedPart) -> PartOffer

    @usableFromInline package let control = Mutex(SubscriptionControl())
    /// Core's re-entrant delivery gate, held across each delivery, so that
    /// a cancel from another thread waits for the delivery in flight
    /// (strict cancel), while a call from inside a delivery (a subscriber
    /// cancelling itself) does not take it again.
    @usableFromInline package let gate = DownstreamGate()

    @usableFromInline
    package init(
        session: UVURLSession,
        spec: HTTPTaskRequest,
        isStreaming: Bool,
        deliverOutcome: @escaping (SessionTask, TaskOutcome) -> Void,
        offerPart: @escaping (SessionTask, StreamedPart) -> PartOffer
    ) {
        self.session = session
        self.isStreaming = isStreaming
        self.deliverOutcome = deliverOutcome
        self.offerPart = offerPart
        request = spec.request
        body = spec.body
        exchange = HTTPExchangeStateMachine(streamedBodyLength: spec.streamedBodyLength,
                                            streamsBody: spec.streamedBody != nil)
        // Stored after its last read (when it was a struct, storing it
        // first copied it; callgrind, issue 17).
        self.spec = spec
        super.init()
    }

    /// Runs `body` holding the delivery gate; re-entrant for the thread
    /// that holds it. Any thread.
    @inlinable @inline(__always)
    package final func withGate(_ body: () -> Void) {
        gate.withGate { _ in body() }
    }

    // MARK: Subscription (any thread)

    /// `Subscription.request`: the first demand starts the task; for a
    /// streaming task, demand also resumes reading paused for want of it.
    @usableFromInline
    package final func requestDemand(_ demand: Subscribers.Demand) {
        if demand == .none { violation("Subscription.request(.none): demand must not be zero") }
        enum Next { case nothing, start, resume }
        let next = control.withLock { control -> Next in
            switch control.phase {
            case .awaitingDemand:
                control.phase = .started
                control.demand += demand
                return .start
            case .started:
                control.demand += demand
                if control.waitingForDemand {
                    control.waitingForDemand = false
                    return .resume
                }
                return .nothing
            case .done:
                return .nothing
            }
        }
        switch next {
        case .nothing: break
        case .start: session.engine.submit(.start(self))
        case .resume: session.engine.submit(.resume(self))
        }
    }

    /// `Subscription.request` for both subscriptions: the first demand
    /// starts the request; a data task ignores later demand (one value), a
    /// streaming task adds it and resumes reading paused for want of it.
    @usableFromInline
    package final func request(_ demand: Subscribers.Demand) {
        requestDemand(demand)
    }

    /// `DataTaskPublisher` or `BytesPublisher`, as Combine's subscriptions
    /// name their publisher.
    @usableFromInline package final var description: String {
        isStreaming ? "BytesPublisher" : "DataTaskPublisher"
    }

    /// The request, and a streaming task's outstanding demand.
    @usableFromInline package final var customMirror: Mirror {
        if isStreaming {
            return Mirror(self, children: ["request": spec.request, "demand": control.withLock { $0.demand }])
        }
        return Mirror(self, children: ["request": spec.request])
    }

    /// The description.
    @usableFromInline package final var playgroundDescription: Any { description }

    /// `Subscription.cancel`, up to the hand-over: marks the subscription
    /// done under the gate (after a delivery in flight) and cancels a
    /// started task on the loop. `release` runs under the gate and lets go
    /// of the subclass's downstream. Idempotent.
    @inlinable
    package final func cancelSubscription(release: () -> Void) {
        var wasStarted = false
        withGate {
            wasStarted = control.withLock { control in
                defer { control.phase = .done }
                return control.phase == .started
            }
            release()
        }
        if wasStarted { submitCancel() }
    }

    @usableFromInline
    package final func submitCancel() {
        session.engine.submit(.cancel(self))
    }

    /// Claims the outcome's delivery: true once, while the subscription is
    /// started. Under the gate.
    @inlinable
    package final func claimCompletion() -> Bool {
        control.withLock { control in
            guard control.phase == .started else { return false }
            control.phase = .done
            return true
        }
    }

    /// Takes one unit of demand for a streaming part. Under the gate.
    @inlinable
    package final func claimPart() -> PartOffer {
        control.withLock { control in
            guard control.phase == .started else { return .cancelled }
            guard control.demand > .none else {
                control.waitingForDemand = true
                return .noDemand
            }
            control.demand -= 1
            return .delivered
        }
    }

    /// Adds the demand a subscriber returned from `receive(_:)`.
    @inlinable
    package final func addDemand(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        control.withLock { control in
            if control.phase == .started { control.demand += demand }
        }
    }

    /// For a streaming task after a read: true when the subscriber has no
    /// demand, in which case the subscription now waits to resume the
    /// session when demand comes. Loop thread.
    package final func pauseIfNoDemand() -> Bool {
        control.withLock { control in
            guard control.phase == .started, control.demand == .none else { return false }
            control.waitingForDemand = true
            return true
        }
    }

    // MARK: Loop thread only

    /// Where the request's exchange is: started or not, in the pool or on
    /// a connection, the response delivered or discarded (a redirect),
    /// reading paused for want of demand (and what is held meanwhile), a
    /// streamed body's chunks, end and progress. The engine feeds it events
    /// and runs the actions it returns (docs/http-protocol-core.md, "The
    /// exchange"); nothing else here says how far the task got.
    @exclusivity(unchecked) package final var exchange: HTTPExchangeStateMachine
    /// The pool's name for the current exchange.
    @exclusivity(unchecked) package final var requestID = ConnectionPoolStateMachine.RequestID(0)
    /// The current request (redirects rewrite it).
    @exclusivity(unchecked) package final var request: HTTPRequest
    /// Whether `request` is still the spec's, so that its prepared head
    /// (if any) is what to write; a redirect clears it. Stored, not
    /// derived from ``target`` being nil: testing that optional copied the
    /// whole target (a struct of a dozen references), about 750
    /// instructions per request (callgrind, issue 33).
    @exclusivity(unchecked) package final var usesPreparedHead = true
    /// The current body (a 303 drops it).
    @exclusivity(unchecked) package final var body: [UInt8]?
    /// The current exchange's streamed body while it is being sent.
    @exclusivity(unchecked) package final var bodyStream: BodyStream?
    /// The current target once a redirect changed it; nil while it is the
    /// spec's (``currentTarget``). Why: the spec's target was copied here
    /// for every request, a copy and a destroy of a struct of a dozen
    /// references (callgrind, issue 17).
    @exclusivity(unchecked) package final var target: HTTPRequestTarget?
    #if Tracing
    /// The caller's service context when the task was made (trait
    /// `Tracing`): its span's parent, read on the subscribing thread.
    package final let serviceContext: ServiceContext? = ServiceContext.current
    #endif

    /// The current target: a redirect's, or the spec's checked one. Only
    /// for a started task (whose spec's target was checked).
    package final var currentTarget: HTTPRequestTarget {
        if let target { return target }
        guard case .success(let checked) = spec.target else {
            httpViolation("SessionTask.currentTarget: a started task's target was checked")
        }
        return checked
    }


    /// ``currentTarget``'s pool key, without copying the target.
    package final var currentKey: ConnectionKey {
        if case .none = target, let key = spec.key { return key }
        if let key = target?.key { return key }
        httpViolation("SessionTask.currentKey: a started task's target was checked")
    }
    /// Whether the current request says `Connection: close`.
    @exclusivity(unchecked) package final var closesConnection = false
    @exclusivity(unchecked) package final var timeouts: RequestTimeoutStateMachine?
    /// The task's redirects, from its first redirect response on.
    @exclusivity(unchecked) package final var redirects: Redirects?
    /// A data task's response head and body so far.
    @exclusivity(unchecked) package final var response: HTTPResponse?
    @exclusivity(unchecked) package final var data = BodyBuffer()
    /// The current response's content decoder (`Content-Encoding: gzip`
    /// or `deflate`, ``UVURLSession/Configuration/decompressesResponses``),
    /// or nil.
    @exclusivity(unchecked) package final var decoder: ContentDecoder?
    /// Decoded body bytes so far, for `maximumResponseBodyLength`.
    @exclusivity(unchecked) package final var decodedLength = 0
    /// The task's metrics while it runs; nil unless someone will receive
    /// them (SessionEngine+Metrics.swift).
    @exclusivity(unchecked) package final var metrics: TaskMetricsRecorder?
    /// The `Cookie` field of ``request`` is the session's, added for the
    /// current hop (SessionEngine+Cookies.swift), so the next hop
    /// replaces it.
    @exclusivity(unchecked) package final var addedCookieField = false
    /// The task's answers to authentication challenges, from the first
    /// one answered (SessionEngine+Authentication.swift).
    @exclusivity(unchecked) package final var authentication: TaskAuthentication?

    /// Forgets one exchange's response (before a retry or a redirect).
    package final func resetExchange() {
        if let redirects { redirects.step = nil }
        response = nil
        data.reset()
        decoder = nil
        decodedLength = 0
    }

    deinit {
        data.reset()
    }
}

/// A task's redirect machine and the step being followed, made at its
/// first redirect response. One optional reference in the task rather
/// than two optional values: the task's `deinit` destroyed each of those
/// through generic value witnesses, about 230 instructions per request
/// that never redirects (callgrind, issue 17); an allocation per
/// redirected task is the price.
///
/// Threading: the task's loop thread.
package final class Redirects {
    /// The policy's state across the task's redirects.
    package var machine: RedirectStateMachine
    /// The redirect being followed, until its response ended.
    package var step: RedirectStateMachine.Step?

    package init(machine: RedirectStateMachine) {
        self.machine = machine
    }
}

/// A data task's body as it arrives: one `malloc`ed buffer handed to the
/// subscription as a ``ResponseBody``, which becomes the delivered `Data`
/// without a copy (`Data(bytesNoCopy:count:deallocator: .free)`) or the C
/// API's bytes.
///
/// With a known `Content-Length` the buffer is allocated once at the final
/// size (up to 1 GiB; the parser already refused a length past
/// `maximumBodyLength`), so a large body is copied once, from the read
/// buffer into its place. Without one it grows by doubling with
/// `realloc`, which for large blocks moves pages (`mremap`) instead of
/// copying bytes. Large buffers ask for transparent huge pages on Linux
/// (`MADV_HUGEPAGE`): a fresh 64 MiB buffer otherwise takes 16,384 page
/// faults as the body fills it.
///
/// Threading: the task's loop thread.
package struct BodyBuffer {
    private var pointer: UnsafeMutableRawPointer?
    private var capacity = 0
    private(set) var count = 0

    /// The most reserved up front for an announced length.
    private static let maximumReservation = 1 << 30
    /// Buffers this large ask for huge pages.
    private static let hugePageThreshold = 4 << 20

    /// Makes room for `length` bytes in all (a body's announced length).
    mutating func reserve(_ length: Int) {
        let wanted = min(length, Self.maximumReservation)
        // A refused reservation (a hostile length under strict overcommit)
        // is no error: the buffer then grows as bytes come.
        if wanted > capacity { _ = resize(to: wanted) }
    }

    /// Appends `bytes`, growing by doubling when they do not fit.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let needed = count + bytes.count
        if let pointer, source == UnsafeRawPointer(pointer + count), needed <= capacity {
            // Read straight into place (`room(for:)`): nothing to copy.
            count = needed
            return
        }
        if needed > capacity, !resize(to: max(needed, capacity * 2, 1024)) {
            trap("BodyBuffer: out of memory for \(needed) bytes")
        }
        (pointer! + count).copyMemory(from: source, byteCount: bytes.count)
        count = needed
    }

    /// The room after the bytes, for `length` more, if the buffer has it
    /// (the engine points the socket's reads there).
    func room(for length: Int) -> UnsafeMutableRawBufferPointer? {
        guard let pointer, length > 0, capacity - count >= length else { return nil }
        return UnsafeMutableRawBufferPointer(start: pointer + count, count: length)
    }

    /// The bytes, owned by the caller; the buffer is then empty.
    mutating func take() -> ResponseBody {
        guard var taken = pointer, count > 0 else {
            reset()
            return ResponseBody(pointer: nil, count: 0)
        }
        // Give back a large unused tail (an unknown length's last doubling).
        if capacity - count > max(count / 4, 64 * 1024), let smaller = realloc(taken, count) {
            taken = smaller
        }
        let body = ResponseBody(pointer: taken, count: count)
        pointer = nil
        capacity = 0
        count = 0
        return body
    }

    /// Frees the buffer.
    mutating func reset() {
        free(pointer)
        pointer = nil
        capacity = 0
        count = 0
    }

    /// False when the memory was refused (the buffer is then unchanged).
    private mutating func resize(to newCapacity: Int) -> Bool {
        guard let grown = realloc(pointer, newCapacity) else { return false }
        pointer = grown
        capacity = newCapacity
        #if os(Linux)
        if newCapacity >= Self.hugePageThreshold {
            // Whole pages inside the block only.
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: grown) + page - 1) & ~(page - 1)
            let end = (Int(bitPattern: grown) + newCapacity) & ~(page - 1)
            if end > start {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE)
            }
        }
        #endif
        return true
    }
}
