import Dispatch
import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineLoop

/// An HTTP/1.1 server for tests, on a random loopback port, answering each
/// request from a handler or a route table, and misbehaving on demand
/// (``Fault``): refusing connections, closing mid-response, stalling,
/// chunking, trickling, sending malformed or oversized heads, redirecting
/// forever, closing idle keep-alive connections.
///
/// It parses requests itself (``RequestParser``: request line, header
/// fields, `Content-Length` body), keeps connections alive as HTTP/1.1
/// says, answers pipelined requests in order, and records every request
/// it parsed (``requests``, ``requestCount``, ``connectionCount``).
///
/// ## Threading
///
/// By default the server runs on a ``/UVCombineLoop/UVLoopThread`` of its own: create it,
/// use it and shut it down from any thread (not from its own loop thread).
/// Given a `loop`, it runs there instead: create it and call ``shutdown()``
/// on that loop's thread (or before the loop first ran); closing the loop
/// also stops it. Handlers run on the server's loop thread. The counters
/// and the request log are thread-safe.
///
/// ```swift
/// let server = try TestHTTPServer(routes: [
///     "/hello": .text("hello"),
///     "/cut": .fault(.closeMidBody),
/// ])
/// defer { server.shutdown() }
/// let url = server.url("/hello") // http://127.0.0.1:<port>/hello
/// // ... run a client against it ...
/// #expect(server.requestCount == 1)
/// #expect(server.requests[0].headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(server.port)")
/// ```
public final class TestHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: the mutable state below the "loop thread" mark
    // is only touched on the server's loop thread; the counters are atomic,
    // the log is in a mutex, the rest is immutable.

    /// Answers one request; runs on the server's loop thread.
    public typealias Handler = @Sendable (Request) -> Response

    /// The loop the server runs on.
    public let loop: UVLoop
    /// The port it listens on (for ``Fault/refuse`` servers: a port nobody
    /// listens on).
    public let port: Int
    /// The address listened on: `127.0.0.1` or `::1`.
    public let host: String

    private let ownThread: UVLoopThread?
    private let handler: Handler
    private let receivedRequests = Mutex<[Request]>([])
    private let requestCounter = Atomic<Int>(0)
    private let connectionCounter = Atomic<Int>(0)
    private let isShutDown = Atomic<Bool>(false)

    // MARK: Loop thread only

    private var listener: UVTCPListener?
    private var connections: [ObjectIdentifier: ServerConnection] = [:]

    /// Starts a server that answers every request with `handler`.
    ///
    /// - Parameters:
    ///   - loop: The loop to run on; `nil` (the default) starts a
    ///     ``/UVCombineLoop/UVLoopThread`` for the server.
    ///   - handler: Answers each request, on the server's loop thread.
    ///
    /// Throws the ``/UVCombineLoop/UVError`` from starting the loop thread, or the
    /// ``/UVCombineLoop/UVTCPError`` from listening.
    ///
    /// ```swift
    /// let server = try TestHTTPServer { request in
    ///     request.method == "POST" ? .text("posted \(request.body.count) bytes") : .notFound
    /// }
    /// ```
    public convenience init(loop: UVLoop? = nil, handler: @escaping Handler) throws {
        try self.init(loop: loop, refusing: false, handler: handler)
    }

    /// Starts a server that answers from a route table: the request's path
    /// (without its query) selects the response; others get `fallback`.
    /// `host` is the loopback address to listen on: `127.0.0.1` (the
    /// default) or `::1`.
    ///
    /// ```swift
    /// let server = try TestHTTPServer(routes: ["/": .text("home"), "/stall": .fault(.stall)])
    /// let v6 = try TestHTTPServer(host: "::1", routes: ["/": .text("home")]) // http://[::1]:port/
    /// ```
    public convenience init(host: String = "127.0.0.1", loop: UVLoop? = nil, routes: [String: Response], fallback: Response = .notFound) throws {
        try self.init(host: host, loop: loop, refusing: false) { request in routes[request.path] ?? fallback }
    }

    /// Starts a server that misbehaves as `fault` says for every request;
    /// for ``Fault/refuse`` it never listens (connecting is refused).
    ///
    /// ```swift
    /// let refusing = try TestHTTPServer(fault: .refuse)
    /// let cutting = try TestHTTPServer(fault: .closeMidBody, body: Array(repeating: 1, count: 10_000))
    /// ```
    public convenience init(loop: UVLoop? = nil, fault: Fault, body: [UInt8] = Response.defaultFaultBody) throws {
        let response = Response.fault(fault, body: body)
        try self.init(loop: loop, refusing: fault == .refuse) { _ in response }
    }

    private init(host: String = "127.0.0.1", loop: UVLoop?, refusing: Bool, handler: @escaping Handler) throws {
        let thread: UVLoopThread? = loop == nil ? try UVLoopThread() : nil
        let serverLoop = loop ?? thread!.loop
        self.loop = serverLoop
        self.ownThread = thread
        self.handler = handler
        self.host = host
        // The accept closure reaches the server through this box, filled in
        // on the loop thread once the server exists (no connection can be
        // accepted before: the loop thread is busy with this setup).
        let link = ServerLink()
        let setUp = { () -> Result<UVTCPListener, UVTCPError> in
            Result { () throws(UVTCPError) -> UVTCPListener in
                let listener = try UVTCP.listen(host: host, port: 0, on: serverLoop) { connection in
                    guard let server = link.server else {
                        connection.close()
                        return
                    }
                    server.accept(connection)
                }
                // A refusing server keeps the port number, not the socket.
                if refusing { listener.close() }
                return listener
            }
        }
        // On the loop thread: at once for a given loop (the caller is on
        // its thread), through the loop for our own thread.
        let bound = thread == nil ? setUp() : Self.runOnLoop(serverLoop, setUp)
        let listener: UVTCPListener
        do {
            listener = try bound.get()
        } catch {
            try? thread?.shutdown()
            throw error
        }
        port = listener.port
        let install = { [self] in
            link.server = self
            if !refusing { self.listener = listener }
        }
        if thread == nil {
            install()
        } else {
            Self.runOnLoop(serverLoop, install)
        }
    }

    /// The listener's way to the server; loop thread only.
    private final class ServerLink: @unchecked Sendable {
        internal weak var server: TestHTTPServer?
    }

    deinit {
        guard let ownThread, !isShutDown.load(ordering: .acquiring) else { return }
        if loop.isInLoop { fatalError("TestHTTPServer released on its own loop thread without shutdown()") }
        isShutDown.store(true, ordering: .releasing)
        try? ownThread.shutdown()
    }

    /// Runs `body` on `loop`'s thread (which is running on another thread)
    /// and waits for its result.
    private static func runOnLoop<R>(_ loop: UVLoop, _ body: @escaping () -> R) -> R {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<R>()
        loop.schedule {
            result.value = body()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    /// A value handed from the loop thread to the waiting thread; the
    /// semaphore orders the write before the read.
    private final class ResultBox<R>: @unchecked Sendable {
        internal var value: R?
    }

    // MARK: Inspection (any thread)

    /// `http://127.0.0.1:<port>`, or `http://[::1]:<port>` for a server on `::1`.
    public var baseURL: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }

    /// The URL of `path` on this server, e.g. `http://127.0.0.1:40123/hello`.
    ///
    /// ```swift
    /// let url = server.url("/items?page=2")
    /// ```
    public func url(_ path: String = "/") -> URL {
        URL(string: baseURL + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// How many requests the server parsed (answered or not). Any thread.
    public var requestCount: Int { requestCounter.load(ordering: .acquiring) }

    /// How many connections the server accepted. Any thread.
    public var connectionCount: Int { connectionCounter.load(ordering: .acquiring) }

    /// Every request parsed so far, in order. Any thread.
    public var requests: [Request] { receivedRequests.withLock { $0 } }

    /// Empties the log ``requests`` returns (``requestCount`` keeps
    /// counting). A long run calls it now and then, so that the log does not
    /// grow with every request. Any thread.
    ///
    /// ```swift
    /// server.clearRequests() // server.requests == [], requestCount unchanged
    /// ```
    public func clearRequests() {
        receivedRequests.withLock { $0.removeAll() }
    }

    // MARK: Stopping

    /// Stops listening and closes every connection; for a server on its own
    /// thread, also closes its loop and joins the thread. Idempotent.
    ///
    /// Any thread for a server with its own thread (not that thread
    /// itself); on the loop's thread for a server on a given loop.
    ///
    /// ```swift
    /// server.shutdown()
    /// ```
    public func shutdown() {
        if isShutDown.exchange(true, ordering: .acquiringAndReleasing) { return }
        if let ownThread {
            // Closing the loop closes the listener and every connection.
            try? ownThread.shutdown()
        } else {
            loop.preconditionInLoop()
            stopListening()
            for connection in connections.values { connection.close() }
            connections = [:]
        }
    }

    // MARK: Serving (loop thread)

    private func accept(_ connection: UVTCPConnection) {
        let number = connectionCounter.add(1, ordering: .acquiringAndReleasing).oldValue
        let served = ServerConnection(server: self, connection: connection, number: number)
        connections[ObjectIdentifier(served)] = served
        served.start()
    }

    /// Records a parsed request and answers it. Loop thread.
    internal func respond(to request: Request) -> Response {
        receivedRequests.withLock { $0.append(request) }
        requestCounter.add(1, ordering: .acquiringAndReleasing)
        return handler(request)
    }

    /// Closes the listening socket (``Fault/refuse``). Loop thread.
    internal func stopListening() {
        listener?.close()
        listener = nil
    }

    internal func connectionDidClose(_ connection: ServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }
}
