import UVCombineCore

/// TCP on a ``UVLoop``: connecting by host name or address, listening, and
/// a one-shot fetch publisher. The namespace for the TCP entry points.
///
/// - ``connect(host:port:on:options:completion:)`` resolves the host on the
///   loop (`uv_getaddrinfo`), tries each address in order, and hands over a
///   ``UVTCPConnection``.
/// - ``listen(host:port:backlog:on:options:accept:)`` accepts connections
///   (port 0 picks a free port; ``UVTCPListener/port`` reports it).
/// - `fetch(host:port:send:limit:on:options:)` connects, sends bytes and
///   publishes the reply as `Data` (in UVCombineLoopFoundation, which
///   `import UVCombine` includes; a symbol link from this module cannot
///   reach it).
///
/// Failures are ``UVTCPError``s: a kind (host not found, connection
/// failed, timed out, ...) and the libuv error behind it.
///
/// ```swift
/// let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
///     connection.handler = EchoHandler()
///     connection.startReading()
/// }
/// UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: Array("hi".utf8), limit: 2, on: loop)
///     .sink(receiveCompletion: { _ in listener.close() }, receiveValue: { print(Array($0)) })
///     .store(in: &cancellables)
/// loop.run() // Prints: "[104, 105]"
/// ```
public enum UVTCP {
    /// Settings for connections and listeners.
    ///
    /// ```swift
    /// var options = UVTCP.Options()
    /// options.connectTimeout = .seconds(5)
    /// ```
    public struct Options: Sendable, Equatable {
        /// How long connecting may take, resolution and every address
        /// included; `nil` (the default) waits as long as the kernel does.
        /// When it passes, the attempt fails with
        /// ``UVTCPError/Kind/timedOut`` (`UV_ETIMEDOUT`).
        public var connectTimeout: UVLoop.SchedulerTimeType.Stride?
        /// Happy Eyeballs (RFC 8305): how long a connection attempt to one
        /// address runs alone before the next address is tried beside it.
        /// 250 ms by default, as RFC 8305 recommends; an attempt that
        /// fails starts the next one at once. Attempts overlap until one
        /// connects (it wins; the others are closed) or all have failed.
        public var connectionAttemptDelay: UVLoop.SchedulerTimeType.Stride = .milliseconds(250)
        /// The size of each connection's one read buffer, allocated on its
        /// first read: the largest chunk a read delivers. 64 KiB by default.
        public var readBufferSize: Int = 64 * 1024
        /// ``UVTCPConnection/writeHighWaterMark``'s initial value. 64 KiB by
        /// default.
        public var writeHighWaterMark: Int = 64 * 1024
        /// Whether to send small writes at once (`TCP_NODELAY`); on by
        /// default, as request/response protocols want.
        public var noDelay = true

        /// The defaults.
        public init() {}
    }
}

extension UVLoop {
    /// Traps unless the caller may use libuv on this loop: on the loop's
    /// thread, or on any thread before the loop first ran (setting it up).
    internal func preconditionLoopConfined(_ what: StaticString, file: StaticString = #fileID, line: UInt = #line) {
        if !isLoopConfinedContext {
            violation("\(what) must be called on the UVLoop's thread (or before the loop first ran)", file: file, line: line)
        }
    }

    /// Whether the calling thread may use libuv on this loop now: it is the
    /// loop's thread, or the loop never ran and nobody runs it.
    internal var isLoopConfinedContext: Bool {
        isInLoop || (home.load(ordering: .acquiring) == 0 && !running.load(ordering: .acquiring))
    }
}
