import Dispatch
import Foundation
import UVCombine

/// The demo's embedded HTTP/1.1 server: a few routes (``DemoRoutes``) on a
/// random loopback port, served from a ``UVLoopThread`` of its own (as a remote server
/// would be: the scenarios' loops never run it), built on `UVTCP.listen`.
///
/// Why not `TestHTTPServer`: it lives in UVCombineTesting, which links the
/// malloc-counting interposer (CUVCombineMallocCounter) into whatever
/// depends on it; a shipped executable must not carry a test allocator.
/// The demo needs far less anyway: GET requests, keep-alive, a delay, and
/// one misbehaviour (dropping the connection without an answer, the
/// "transient network error" that `retry` exists for).
///
/// Each path's requests are counted (``hits(_:)``), so scenarios can check
/// how many requests really went out (`share()`: one; `retry(1)`: two).
///
/// The service's state (the routes, the counts, the observer) lives in an
/// actor on the server's loop (``Service``): the connections, which run in
/// libuv callbacks on that thread, reach it synchronously with
/// `assumeIsolated`; the scenarios, on other threads, with `await`.
///
/// Threading: every member may be used from any thread; routes run on the
/// server's loop thread.
final class DemoServer: Sendable {
    /// What a route answers.
    enum Reply: Sendable {
        /// A complete response after `delay` seconds.
        case respond(status: Int, reason: String, contentType: String, body: [UInt8], delay: Double)
        /// Close the connection without a byte of response.
        case drop

        /// A 200 response.
        static func ok(_ body: [UInt8], contentType: String, delay: Double = 0) -> Reply {
            .respond(status: 200, reason: "OK", contentType: contentType, body: body, delay: delay)
        }
    }

    /// Answers a request for one path; `hit` is 1 for the first request
    /// to that path, 2 for the second, and so on.
    typealias Route = @Sendable (_ hit: Int) -> Reply

    /// The port the server listens on.
    let port: Int
    private let thread: UVLoopThread
    private let listener: UVTCPListener
    private let service: Service

    /// Starts the server on a new loop thread.
    init(routes: [String: Route]) throws {
        let thread = try UVLoopThread()
        let loop = thread.loop
        let service = Service(routes: routes, loop: loop)
        let listening = Self.runOnLoop(loop) { () -> Result<UVTCPListener, UVTCPError> in
            Result { () throws(UVTCPError) -> UVTCPListener in
                try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    Connection(connection: connection, service: service).start()
                }
            }
        }
        do {
            listener = try listening.get()
        } catch {
            try? thread.shutdown()
            throw error
        }
        self.thread = thread
        self.service = service
        port = listener.port
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// How many requests for `path` the server has read. Waits for the
    /// service's answer; call it off the server's thread.
    func hits(_ path: String) -> Int {
        Self.wait { [service] in await service.hits(path) }
    }

    /// Called on the server's thread for every request read, with its
    /// request line (`GET /endpoint`); `nil` to stop. Returns once the
    /// service took it; call it off the server's thread.
    func observe(_ observer: (@Sendable (String) -> Void)?) {
        Self.wait { [service] in await service.observe(observer) }
    }

    /// Stops listening, closes every connection and the loop, and joins
    /// the thread.
    func shutdown() {
        listener.close()
        try? thread.shutdown()
    }

    /// Runs `body` on `loop`'s thread and waits for its result.
    private static func runOnLoop<R>(_ loop: UVLoop, _ body: @escaping () -> R) -> R {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<R>()
        loop.schedule {
            box.value = body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    /// Runs `body` in a task and blocks the calling thread until it is
    /// done: the synchronous scenarios' way to `await` the service.
    private static func wait<R: Sendable>(_ body: @escaping @Sendable () async -> R) -> R {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<R>()
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    /// A value handed from one thread to the waiting one; the semaphore
    /// orders the write before the read.
    private final class ResultBox<R>: @unchecked Sendable {
        var value: R?
    }
}

extension DemoServer {
    /// The service: the routes, the request counts and the observer. An
    /// actor on the server's loop (its executor is the loop), so all of it
    /// stays on that one thread whether a connection's libuv callback
    /// (`assumeIsolated`) or another thread (`await`) reaches it.
    actor Service {
        let routes: [String: DemoServer.Route]
        let loop: UVLoop
        private var hits: [String: Int] = [:]
        private var observer: (@Sendable (String) -> Void)?

        init(routes: [String: DemoServer.Route], loop: UVLoop) {
            self.routes = routes
            self.loop = loop
        }

        nonisolated var unownedExecutor: UnownedSerialExecutor {
            loop.asUnownedSerialExecutor()
        }

        /// Counts the request and picks the reply (404 for unknown paths).
        func reply(method: String, path: String) -> DemoServer.Reply {
            hits[path, default: 0] += 1
            let hit = hits[path, default: 0]
            observer?("\(method) \(path)")
            guard let route = routes[path] else {
                return .respond(status: 404, reason: "Not Found", contentType: "text/plain",
                                body: Array("not found\n".utf8), delay: 0)
            }
            return route(hit)
        }

        /// How many requests for `path` were read.
        func hits(_ path: String) -> Int {
            hits[path, default: 0]
        }

        /// Replaces the observer.
        func observe(_ observer: (@Sendable (String) -> Void)?) {
            self.observer = observer
        }
    }
}
