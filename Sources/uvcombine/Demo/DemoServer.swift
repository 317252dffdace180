import Dispatch
import Foundation
import Synchronization
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
    private let routing: Routing

    /// Starts the server on a new loop thread.
    init(routes: [String: Route]) throws {
        let thread = try UVLoopThread()
        let routing = Routing(routes: routes)
        let loop = thread.loop
        let listening = Self.runOnLoop(loop) { () -> Result<UVTCPListener, UVTCPError> in
            Result { () throws(UVTCPError) -> UVTCPListener in
                try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    Connection(connection: connection, routing: routing).start()
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
        self.routing = routing
        port = listener.port
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// How many requests for `path` the server has read.
    func hits(_ path: String) -> Int {
        routing.hits.withLock { $0[path, default: 0] }
    }

    /// Called on the server's thread for every request read, with its
    /// request line (`GET /endpoint`); `nil` to stop.
    func observe(_ observer: (@Sendable (String) -> Void)?) {
        routing.observer.withLock { $0 = observer }
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

    /// A value handed from the loop thread to the waiting one; the
    /// semaphore orders the write before the read.
    private final class ResultBox<R>: @unchecked Sendable {
        var value: R?
    }
}

extension DemoServer {
    /// The routes, the request counts and the observer; shared by the
    /// server's connections.
    final class Routing: Sendable {
        let routes: [String: DemoServer.Route]
        let hits = Mutex<[String: Int]>([:])
        let observer = Mutex<(@Sendable (String) -> Void)?>(nil)

        init(routes: [String: DemoServer.Route]) {
            self.routes = routes
        }

        /// Counts the request and picks the reply (404 for unknown paths).
        func reply(method: String, path: String) -> DemoServer.Reply {
            let hit = hits.withLock { hits -> Int in
                hits[path, default: 0] += 1
                return hits[path, default: 0]
            }
            observer.withLock { $0 }?("\(method) \(path)")
            guard let route = routes[path] else {
                return .respond(status: 404, reason: "Not Found", contentType: "text/plain",
                                body: Array("not found\n".utf8), delay: 0)
            }
            return route(hit)
        }
    }
}
