import CLibUV
import Synchronization
import UVCombineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension UVTCP {
    /// Connects to `host` and `port` on `loop` and calls `completion` on the
    /// loop thread with the connection or the reason it failed.
    ///
    /// - A numeric IPv4 or IPv6 host (`127.0.0.1`, `::1`, `[::1]`,
    ///   `fe80::1%eth0`) is used as it is; a name is resolved on the loop
    ///   (`uv_getaddrinfo`, IPv4 and IPv6), and its addresses are tried
    ///   each on a fresh socket, with Happy Eyeballs (RFC 8305): in the
    ///   resolver's order with the two families interleaved (the
    ///   resolver's first family first), each attempt running alone for
    ///   ``Options/connectionAttemptDelay`` (250 ms) before the next one
    ///   starts beside it, or at once when it fails. The first to connect
    ///   wins and the others are closed, so a black-holed address (often
    ///   IPv6) costs 250 ms, not the whole connect timeout.
    /// - Failures: ``UVTCPError/Kind/hostNotFound`` (`UV_EAI_NONAME`),
    ///   ``UVTCPError/Kind/resolutionFailed``,
    ///   ``UVTCPError/Kind/connectionFailed`` with the last address's error
    ///   (`UV_ECONNREFUSED`, ...), ``UVTCPError/Kind/timedOut`` after
    ///   ``Options/connectTimeout``, ``UVTCPError/Kind/invalidArgument`` for a
    ///   port outside `1...65535`.
    /// - The returned attempt's `cancel()` stops everything: the socket
    ///   closes and `completion` is never called.
    ///
    /// Any thread. The attempt starts in the loop's next iteration (also
    /// when called on the loop thread, so `completion` never runs inside
    /// this call). If the loop closes first, `completion` is never called.
    ///
    /// ```swift
    /// UVTCP.connect(host: "localhost", port: 8080, on: loop) { result in
    ///     switch result {
    ///     case .success(let connection): connection.write(Array("hello".utf8))
    ///     case .failure(let error): print(error) // e.g. "connection failed: UV_ECONNREFUSED: connection refused"
    ///     }
    /// }
    /// ```
    @discardableResult
    public static func connect(host: String, port: Int, on loop: UVLoop, options: Options = Options(),
                               completion: @escaping (Result<UVTCPConnection, UVTCPError>) -> Void)
        -> UVTCPConnectAttempt
    {
        let attempt = UVTCPConnectAttempt(host: host, port: port, loop: loop, options: options, completion: completion)
        loop.schedule { attempt.start() }
        return attempt
    }
}

extension UVTCP {
    /// Connects to the first of `addresses` that accepts, starting the
    /// attempts in the order given (not interleaved by family) with the
    /// Happy Eyeballs stagger, as `connect(host:port:)` does with a name's
    /// resolved addresses. For the package's tests (a name with several
    /// addresses needs a resolver configured for it).
    @discardableResult
    package static func connect(addresses: [UVTCPAddress], on loop: UVLoop, options: Options = Options(),
                                completion: @escaping (Result<UVTCPConnection, UVTCPError>) -> Void)
        -> UVTCPConnectAttempt
    {
        let attempt = UVTCPConnectAttempt(host: addresses.map(\.description).joined(separator: ","),
                                          port: addresses.first?.port ?? 0, loop: loop, options: options,
                                          completion: completion)
        attempt.presetAddresses = addresses.compactMap { SocketAddress(numericHost: $0.host, port: $0.port) }
        loop.schedule { attempt.start() }
        return attempt
    }
}

/// One connect in progress, from ``UVTCP/connect(host:port:on:options:completion:)``:
/// resolving the host, then racing its addresses (Happy Eyeballs, RFC
/// 8305), under an optional timeout. Keep it to cancel; letting go of it
/// does not cancel.
///
/// States: pending (queued for the loop) → resolving (a name only) →
/// connecting (a fresh `uv_tcp_t` per address; a new attempt starts every
/// ``UVTCP/Options/connectionAttemptDelay`` while none has connected, or
/// as soon as one fails; several may be in flight) → finished (connected,
/// failed, timed out or cancelled). The first attempt to connect wins;
/// the sockets of the others are closed (their memory is freed in their
/// close callbacks, as for every handle). While the resolver works, the
/// attempt's first socket stays open, so that closing the loop waits for
/// the resolver's answer (`uv_loop_close` would otherwise find the
/// request still active).
///
/// Threading: ``cancel()`` and the `let` properties from any thread;
/// everything else happens on the loop thread.
///
/// ```swift
/// let attempt = UVTCP.connect(host: "127.0.0.1", port: 8080, on: loop) { result in print(result) }
/// attempt.cancel() // the completion never runs
/// ```
public final class UVTCPConnectAttempt: Cancellable, @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the mutable state below is touched on the loop
    // thread only; `cancelled` is atomic; the rest is immutable.

    /// The host to connect to, as given.
    public let host: String
    /// The port to connect to.
    public let port: Int
    /// The loop that runs the attempt and its completion.
    public let loop: UVLoop
    internal let options: UVTCP.Options
    /// Set by `cancel()`; the completion is never called once it is.
    internal let cancelled = Atomic<Bool>(false)

    internal enum Phase {
        case pending
        case resolving
        case connecting
        case finished
    }

    // MARK: Loop thread only

    internal var phase: Phase = .pending
    internal var completion: ((Result<UVTCPConnection, UVTCPError>) -> Void)?
    /// The socket the first address will use, opened before resolving
    /// (see the type's documentation); nil once that address is tried.
    internal var socket: TCPSocket?
    /// The sockets whose connect is in flight, oldest first.
    internal var connecting: [TCPSocket] = []
    /// Starts the next attempt when the current one has run alone for
    /// the attempt delay.
    internal var staggerTimer: ScheduledAction?
    /// Tells a stagger timer that fires after it was replaced or stopped
    /// from the current one.
    internal var staggerGeneration = 0
    /// The resolver's request while it is out (freed in its callback).
    internal var resolveRequest: UnsafeMutablePointer<uv_getaddrinfo_t>?
    internal var isResolutionCancelled = false
    internal var addresses: [SocketAddress] = []
    internal var nextAddress = 0
    internal var lastError: Int32 = 0
    internal var timer: ScheduledAction?
    /// Every address tried, in order. For tests.
    package private(set) var triedAddresses: [UVTCPAddress] = []
    /// The sockets the attempt holds open (connecting, or waiting for the
    /// resolver): 0 once it finished. For tests.
    package var openSocketCount: Int { connecting.count + (socket == nil ? 0 : 1) }
    /// Addresses to try instead of resolving `host`. For tests.
    internal var presetAddresses: [SocketAddress]?
    /// When the attempt started on the loop, and when its addresses were
    /// known (the resolver answered, or at once for a numeric host), on
    /// the `uv_hrtime` clock; 0 until then. The session's task metrics
    /// (name lookup start and end) read them once the connect finished.
    package private(set) var startedAt: UInt64 = 0
    package private(set) var resolvedAt: UInt64 = 0

    internal init(host: String, port: Int, loop: UVLoop, options: UVTCP.Options,
                  completion: @escaping (Result<UVTCPConnection, UVTCPError>) -> Void) {
        self.host = host
        self.port = port
        self.loop = loop
        self.options = options
        self.completion = completion
    }

    /// `UVTCPConnectAttempt(host:port)`.
    public var description: String { "UVTCPConnectAttempt(\(host):\(port))" }

    // MARK: Cancelling

    /// Stops the attempt: the resolver's request is cancelled, the socket
    /// closes, and the completion is never called (a connection made
    /// meanwhile is closed). Idempotent.
    ///
    /// Any thread: on the loop thread it acts at once; from another thread
    /// in the loop's next iteration (a completion already running on the
    /// loop thread finishes).
    ///
    /// ```swift
    /// let attempt = UVTCP.connect(host: "example.com", port: 80, on: loop) { _ in }
    /// attempt.cancel()
    /// ```
    public func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        if loop.isInLoop {
            cancelNow()
        } else {
            loop.schedule { self.cancelNow() }
        }
    }

    private func cancelNow() {
        guard phase != .finished else { return }
        phase = .finished
        stopTimer()
        let completion = self.completion
        self.completion = nil
        abortIO()
        _ = completion // released after the state is consistent
    }

    // MARK: Steps

    /// Loop thread, from the job `connect` queued.
    internal func start() {
        guard phase == .pending else { return }
        if cancelled.load(ordering: .acquiring) {
            phase = .finished
            completion = nil
            return
        }
        guard (1...65535).contains(port) else {
            finish(.failure(UVTCPError(.invalidArgument, code: UV_EINVAL.rawValue)))
            return
        }
        socket = makeSocket()
        startedAt = uv_hrtime()
        if let timeout = options.connectTimeout {
            let deadline = loop.now.advanced(by: max(timeout, .zero)).uptimeNanoseconds
            let timer = ScheduledAction(loop: loop, deadline: deadline, interval: 0) { [self] in timedOut() }
            self.timer = timer
            loop.submitOrdered(.open(timer))
        }
        if let presetAddresses {
            addresses = presetAddresses
            resolvedAt = startedAt
            startNextAttempt()
        } else if let literal = SocketAddress(numericHost: host, port: port) {
            addresses = [literal]
            resolvedAt = startedAt
            startNextAttempt()
        } else {
            resolve()
        }
    }

    private func makeSocket() -> TCPSocket {
        let socket = TCPSocket(loop: loop)
        socket.open()
        socket.attempt = self
        return socket
    }

    private func resolve() {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_getaddrinfo_t>.size,
                                                   alignment: MemoryLayout<uv_getaddrinfo_t>.alignment)
        let request = raw.bindMemory(to: uv_getaddrinfo_t.self, capacity: 1)
        // Retained until the callback, which always runs.
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        // libuv copies the host and the hints.
        let status = uv_getaddrinfo(loop.uvLoop, request, { request, status, result in
            guard let request else { return }
            let attempt = Unmanaged<UVTCPConnectAttempt>.fromOpaque(request.pointee.data).takeRetainedValue()
            UnsafeMutableRawPointer(request).deallocate()
            #if DEBUG
            if status == 0, let injected = UVTCPFaultInjection.take(.resolve, on: attempt.loop) {
                attempt.resolved(status: injected, result: result)
                return
            }
            #endif
            attempt.resolved(status: status, result: result)
        }, host, nil, &hints)
        guard status == 0 else {
            Unmanaged<UVTCPConnectAttempt>.fromOpaque(request.pointee.data).release()
            raw.deallocate()
            finish(.failure(.resolution(status)))
            return
        }
        resolveRequest = request
        phase = .resolving
    }

    private func resolved(status: Int32, result: UnsafeMutablePointer<addrinfo>?) {
        resolveRequest = nil
        resolvedAt = uv_hrtime()
        var found: [SocketAddress] = []
        var cursor = result
        while let info = cursor {
            if let address = info.pointee.ai_addr,
               let socketAddress = SocketAddress(address, length: Int(info.pointee.ai_addrlen), port: port) {
                found.append(socketAddress)
            }
            cursor = info.pointee.ai_next
        }
        if let result { uv_freeaddrinfo(result) }
        guard phase == .resolving else {
            // Cancelled, timed out or the loop is closing: the socket only
            // waited for this answer.
            closeSocket()
            return
        }
        guard status == 0 else {
            finish(.failure(.resolution(status)))
            return
        }
        guard !found.isEmpty else {
            finish(.failure(UVTCPError(.hostNotFound, code: UV_EAI_NONAME.rawValue)))
            return
        }
        addresses = Self.interleavingFamilies(found)
        startNextAttempt()
    }

    /// RFC 8305 section 4: the addresses in the resolver's order, the two
    /// families alternating from the family of the first (`[6a, 6b, 4a]`
    /// becomes `[6a, 4a, 6b]`), so that a broken family costs one attempt
    /// delay, not one per address.
    internal static func interleavingFamilies(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return addresses }
        let preferred = addresses.filter { $0.storage.ss_family == first.storage.ss_family }
        let other = addresses.filter { $0.storage.ss_family != first.storage.ss_family }
        var result: [SocketAddress] = []
        result.reserveCapacity(addresses.count)
        for index in 0..<max(preferred.count, other.count) {
            if index < preferred.count { result.append(preferred[index]) }
            if index < other.count { result.append(other[index]) }
        }
        return result
    }

    /// `interleavingFamilies` on `UVTCPAddress`es, for tests.
    package static func interleavingFamilies(_ addresses: [UVTCPAddress]) -> [UVTCPAddress] {
        interleavingFamilies(addresses.compactMap { SocketAddress(numericHost: $0.host, port: $0.port) }).map(\.address)
    }

    /// Starts a connect to the next address (an address refused at once
    /// is skipped) and arms the stagger timer while addresses remain; when
    /// none is left and no attempt is in flight, fails with the last error.
    private func startNextAttempt() {
        phase = .connecting
        stopStagger()
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            let socket = self.socket ?? makeSocket()
            self.socket = nil
            triedAddresses.append(address.address)
            let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_connect_t>.size,
                                                       alignment: MemoryLayout<uv_connect_t>.alignment)
            let request = raw.bindMemory(to: uv_connect_t.self, capacity: 1)
            #if DEBUG
            // A socket the kernel refused to create (EMFILE) fails here.
            let injected = UVTCPFaultInjection.take(.connect, on: loop)
            #else
            let injected: Int32? = nil
            #endif
            let status = injected ?? address.withSockaddr { sockaddr in
                uv_tcp_connect(request, socket.tcp, sockaddr) { request, status in
                    // Always called: connected, failed, or UV_ECANCELED when
                    // the socket closed first.
                    guard let request else { return }
                    let stream = request.pointee.handle
                    UnsafeMutableRawPointer(request).deallocate()
                    guard let stream else { return }
                    let socket = TCPSocket.of(stream)
                    guard socket.phase == .open, let attempt = socket.attempt else { return } // closed: ignore
                    attempt.connectFinished(socket, status: status)
                }
            }
            if status == 0 {
                connecting.append(socket)
                armStagger()
                return
            }
            // Refused at once (no callback follows): next address.
            raw.deallocate()
            lastError = status
            close(socket)
        }
        if connecting.isEmpty { failWithLastError() }
    }

    private func failWithLastError() {
        finish(.failure(UVTCPError(.connectionFailed, code: lastError == 0 ? UV_ECONNREFUSED.rawValue : lastError)))
    }

    /// Starts the next attempt after the attempt delay, if an address is
    /// left.
    private func armStagger() {
        guard nextAddress < addresses.count else { return }
        staggerGeneration += 1
        let generation = staggerGeneration
        let delay = max(options.connectionAttemptDelay, .zero)
        let deadline = loop.now.advanced(by: delay).uptimeNanoseconds
        let timer = ScheduledAction(loop: loop, deadline: deadline, interval: 0) { [self] in
            staggerFired(generation)
        }
        staggerTimer = timer
        loop.submitOrdered(.open(timer))
    }

    private func staggerFired(_ generation: Int) {
        guard phase == .connecting, generation == staggerGeneration else { return }
        staggerTimer = nil
        startNextAttempt()
    }

    private func stopStagger() {
        staggerGeneration += 1
        staggerTimer?.cancel()
        staggerTimer = nil
    }

    private func connectFinished(_ socket: TCPSocket, status: Int32) {
        guard phase == .connecting, let index = connecting.firstIndex(where: { $0 === socket }) else { return }
        connecting.remove(at: index)
        if status == 0 {
            // The winner; the other attempts lose and close.
            socket.attempt = nil
            stopStagger()
            closeConnecting()
            let connection = UVTCPConnection(socket: socket, options: options)
            finish(.success(connection))
            return
        }
        lastError = status
        close(socket)
        // RFC 8305 section 5: a failed attempt starts the next one at once.
        if nextAddress < addresses.count {
            startNextAttempt()
        } else if connecting.isEmpty {
            failWithLastError()
        }
    }

    private func timedOut() {
        guard phase != .finished else { return }
        timer = nil
        abortIO()
        finish(.failure(UVTCPError(.timedOut, code: UV_ETIMEDOUT.rawValue)))
    }

    private func finish(_ result: Result<UVTCPConnection, UVTCPError>) {
        phase = .finished
        stopTimer()
        stopStagger()
        if case .failure = result { abortIO() }
        let completion = self.completion
        self.completion = nil
        if cancelled.load(ordering: .acquiring) {
            // Cancelled from another thread while this was under way.
            if case .success(let connection) = result { connection.closeNow() }
            return
        }
        completion?(result)
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
    }

    /// Stops the I/O in flight: the resolver's request is cancelled (its
    /// callback closes the socket) or every socket closes now.
    private func abortIO() {
        stopStagger()
        if resolveRequest != nil {
            cancelResolution()
            return
        }
        closeSocket()
        closeConnecting()
    }

    /// Asks libuv to drop the resolver's request, once. The callback still
    /// runs (with `UV_EAI_CANCELED`, or with the answer if the resolver had
    /// started).
    private func cancelResolution() {
        guard let resolveRequest, !isResolutionCancelled else { return }
        isResolutionCancelled = true
        _ = UnsafeMutableRawPointer(resolveRequest).withMemoryRebound(to: uv_req_t.self, capacity: 1) { uv_cancel($0) }
    }

    /// Closes the socket kept for the first address.
    private func closeSocket() {
        guard let socket else { return }
        self.socket = nil
        close(socket)
    }

    /// Closes every attempt in flight (their connect callbacks then come
    /// with `UV_ECANCELED` and are ignored).
    private func closeConnecting() {
        let sockets = connecting
        connecting = []
        for socket in sockets { close(socket) }
    }

    private func close(_ socket: TCPSocket) {
        socket.attempt = nil
        socket.closeHandle()
    }

    // MARK: Loop shutdown

    /// The loop is closing while `socket` belongs to this attempt. Returns
    /// whether the socket must stay open until the resolver answers.
    internal func loopWillClose(_ socket: TCPSocket) -> Bool {
        phase = .finished
        completion = nil
        if resolveRequest != nil {
            cancelResolution()
            return true
        }
        if self.socket === socket { self.socket = nil }
        connecting.removeAll { $0 === socket }
        socket.attempt = nil
        return false
    }

    internal func socketDidClose(_ socket: TCPSocket) {
        if self.socket === socket { self.socket = nil }
        connecting.removeAll { $0 === socket }
    }
}
