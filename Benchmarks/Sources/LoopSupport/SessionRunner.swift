import Foundation
import UVCombine

/// Runs data tasks on a ``UVURLSession`` as a user writes them: one
/// publisher made once, subscribed with `sink` for every request, the
/// `AnyCancellable` kept until the task ends. `width` tasks are in flight at
/// a time; each completion starts the next task from inside its
/// `receiveCompletion`, on the loop's thread, until `total` have run.
///
/// With `publisherPerRequest`, each request is
/// `session.dataTaskPublisher(for: url).sink { … }` as written in place (the
/// publisher, its request and the checked URL made again every time).
/// With `distinctURLs` as well, the requests cycle through that many URLs
/// that differ in their query (`?i=0`, `?i=1`, …, made before the run), so
/// the session's one-entry memo of the last URL's request misses every
/// time and each request parses its URL and prepares its head again.
///
/// `httpVersion` and `trustRoot` set the session's HTTP version and its
/// TLS trust root (a PEM file) for the HTTP/2 workloads: h2c by prior
/// knowledge, `h2` by ALPN against nginx's self-signed certificate.
///
/// Loop thread: the calling thread runs the loop (``makeLoop()``).
///
/// ```swift
/// let runner = SessionRunner(url: url, maximumConnectionsPerHost: 1)
/// runner.run(total: 2_000, width: 1)
/// runner.close()
/// ```
public final class SessionRunner {
    public let loop: UVLoop
    public let session: UVURLSession
    public let publisher: UVURLSession.DataTaskPublisher
    /// The body bytes received.
    public let accumulator = ByteCounter()
    /// The transactions whose metrics were collected.
    public let metricsCount = ByteCounter()
    private let url: URL
    private let publisherPerRequest: Bool
    /// The URLs cycled through (`distinctURLs`), or empty.
    private let urls: [URL]
    private var nextURL = 0
    private var slots: [Slot] = []
    private var toStart = 0
    private var toFinish = 0
    private(set) var failure: UVURLError?

    /// A session on a loop of the calling thread, at most
    /// `maximumConnectionsPerHost` connections to `url`'s host.
    /// With `collectsMetrics`, every task's metrics are collected and
    /// handed to a handler that only counts them (the task-metrics
    /// benchmark). `httpVersion` replaces the configuration's default;
    /// `trustRoot` is a PEM file of trusted certificates for https.
    public init(url: URL, maximumConnectionsPerHost: Int, publisherPerRequest: Bool = false,
                distinctURLs: Int = 0, collectsMetrics: Bool = false,
                httpVersion: HTTPVersionPreference? = nil, trustRoot: String? = nil) {
        self.url = url
        self.publisherPerRequest = publisherPerRequest || distinctURLs > 0
        urls = (0..<distinctURLs).map { URL(string: url.absoluteString + "?i=\($0)")! }
        loop = makeLoop()
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = maximumConnectionsPerHost
        if let httpVersion { configuration.httpVersion = httpVersion }
        if let trustRoot { configuration.tls.trustRoots = .pemFile(trustRoot) }
        if collectsMetrics {
            // The handler runs on this loop's thread only (the runner's).
            nonisolated(unsafe) let counter = metricsCount
            configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in
                counter.add(metrics.transactionMetrics.count)
            }
        }
        session = UVURLSession(loop: loop, configuration: configuration)
        publisher = session.dataTaskPublisher(for: url)
    }

    /// Runs one request with a metrics handler and returns the protocol it
    /// used (`"h2"`, `"http/1.1"`): a workload's check, outside the
    /// measured region.
    public func negotiatedProtocol() -> String? {
        nonisolated(unsafe) var name: String?
        var options = UVURLSession.RequestOptions()
        options.metricsHandler = UVURLSession.MetricsHandler { metrics in
            name = metrics.transactionMetrics.last?.networkProtocolName
        }
        var failure: UVURLError?
        let cancellable = session.dataTaskPublisher(for: url, options: options).sink(
            receiveCompletion: { [loop] completion in
                if case .failure(let error) = completion { failure = error }
                loop.stop()
            }, receiveValue: { _ in })
        loop.run()
        cancellable.cancel()
        if let failure { fatalError("SessionRunner: the check request failed: \(failure)") }
        return name
    }

    /// Runs `total` tasks, `width` at a time; returns when all finished.
    public func run(total: Int, width: Int) {
        precondition(total >= width, "SessionRunner: fewer tasks than slots")
        while slots.count < width { slots.append(Slot(runner: self)) }
        toStart = total
        toFinish = total
        for slot in slots.prefix(width) { start(slot) }
        loop.run()
        if let failure { fatalError("SessionRunner: a data task failed: \(failure)") }
        precondition(toFinish == 0, "SessionRunner: \(toFinish) tasks did not finish")
    }

    fileprivate func start(_ slot: Slot) {
        toStart -= 1
        // Closures capturing one object allocate no context.
        if publisherPerRequest {
            var url = self.url
            if !urls.isEmpty {
                url = urls[nextURL]
                nextURL = nextURL + 1 == urls.count ? 0 : nextURL + 1
            }
            slot.cancellable = session.dataTaskPublisher(for: url).sink(
                receiveCompletion: { slot.finished($0) }, receiveValue: { slot.received($0.data) })
            return
        }
        slot.cancellable = publisher.sink(receiveCompletion: { slot.finished($0) },
                                          receiveValue: { slot.received($0.data) })
    }

    fileprivate func finished(_ slot: Slot, _ completion: Subscribers.Completion<UVURLError>) {
        if case .failure(let error) = completion, failure == nil { failure = error }
        toFinish -= 1
        if toStart > 0 && failure == nil {
            start(slot)
        } else if toFinish == 0 || failure != nil {
            loop.stop()
        }
    }

    /// Ends the session, lets its connections close, closes the loop.
    public func close() {
        for slot in slots { slot.cancellable = nil }
        slots = []
        session.invalidateAndCancel()
        finish(loop)
    }

    /// One request in flight at a time.
    fileprivate final class Slot {
        unowned let runner: SessionRunner
        var cancellable: AnyCancellable?

        init(runner: SessionRunner) {
            self.runner = runner
        }

        func received(_ data: Data) {
            runner.accumulator.add(data.count)
        }

        func finished(_ completion: Subscribers.Completion<UVURLError>) {
            runner.finished(self, completion)
        }
    }
}

/// Streams one response through `bytesPublisher(for:)`, counting the body's
/// bytes as the parts arrive (the sink keeps none of them).
///
/// ```swift
/// let runner = StreamRunner(url: url)
/// let length = runner.run()
/// runner.close()
/// ```
public final class StreamRunner {
    public let loop: UVLoop
    public let session: UVURLSession
    public let publisher: UVURLSession.BytesPublisher
    private(set) var bytes = 0
    private var cancellable: AnyCancellable?
    private var failure: UVURLError?

    /// A session on a loop of the calling thread.
    public init(url: URL) {
        loop = makeLoop()
        session = UVURLSession(loop: loop)
        publisher = session.bytesPublisher(for: url)
    }

    /// Fetches the URL once; returns the body's length.
    public func run() -> Int {
        bytes = 0
        cancellable = publisher.sink(receiveCompletion: { [unowned self] completion in
            if case .failure(let error) = completion { self.failure = error }
            self.loop.stop()
        }, receiveValue: { [unowned self] part in
            if case .body(let data) = part { self.bytes += data.count }
        })
        loop.run()
        if let failure { fatalError("StreamRunner: the task failed: \(failure)") }
        cancellable = nil
        return bytes
    }

    /// Ends the session and closes the loop.
    public func close() {
        session.invalidateAndCancel()
        finish(loop)
    }
}

/// Where the runners count what they receive: one add through a pointer
/// (a captured `var` would be checked for exclusivity on every access).
///
/// ```swift
/// let counter = ByteCounter()
/// counter.add(100)
/// print(counter.total) // Prints: "100"
/// ```
public final class ByteCounter {
    @usableFromInline let storage: UnsafeMutablePointer<Int>

    /// A counter at zero.
    public init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: 0)
    }

    deinit {
        storage.deallocate()
    }

    /// Adds `value`, wrapping on overflow.
    @inlinable @inline(__always)
    public func add(_ value: Int) {
        storage.pointee &+= value
    }

    /// The sum so far.
    public var total: Int { storage.pointee }
}
