import Dispatch
import Foundation
import Synchronization
import UVCombine

/// The demo's embedded HTTP/1.1 server: a few routes on a random loopback
/// port, served from a ``UVLoopThread`` of its own (as a remote server
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
                    DemoServerConnection(connection: connection, routing: routing).start()
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

/// One accepted connection: reads requests (head and `Content-Length`
/// body), answers them in order, keeps the connection alive unless the
/// client says `Connection: close`. Loop thread only.
final class DemoServerConnection: UVTCPConnectionHandler {
    private let connection: UVTCPConnection
    private let routing: Routing
    private var buffer: [UInt8] = []
    /// A delayed response is pending: later requests wait.
    private var busy = false

    init(connection: UVTCPConnection, routing: Routing) {
        self.connection = connection
        self.routing = routing
    }

    func start() {
        connection.handler = self
        connection.startReading()
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        serve()
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        connection.close()
    }

    private func serve() {
        while !busy, !connection.isClosed, let request = nextRequest() {
            switch routing.reply(method: request.method, path: request.path) {
            case .drop:
                connection.close()
                return
            case .respond(let status, let reason, let contentType, let body, let delay):
                var head = "HTTP/1.1 \(status) \(reason)\r\n"
                head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
                if request.close { head += "Connection: close\r\n" }
                head += "\r\n"
                let bytes = Array(head.utf8) + (request.method == "HEAD" ? [] : body)
                if delay > 0 {
                    busy = true
                    let loop = connection.loop
                    loop.schedule(after: loop.now.advanced(by: .nanoseconds(Int(delay * 1e9)))) { [self] in
                        busy = false
                        send(bytes, thenClose: request.close)
                        serve()
                    }
                } else {
                    send(bytes, thenClose: request.close)
                }
            }
        }
    }

    private func send(_ bytes: [UInt8], thenClose close: Bool) {
        guard !connection.isClosed else { return }
        if close {
            connection.write(bytes) { [connection] _ in connection.close() }
        } else {
            connection.write(bytes)
        }
    }

    /// The next complete request in the buffer, removed from it; `nil`
    /// until one is complete. A malformed head closes the connection.
    private func nextRequest() -> (method: String, path: String, close: Bool)? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4,
              let headEnd = (0...(buffer.count - 4)).first(where: { buffer[$0..<$0 + 4].elementsEqual(terminator) })
        else { return nil }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else {
            connection.close()
            return nil
        }
        var contentLength = 0
        var close = requestLine[2] == "HTTP/1.0"
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { contentLength = Int(value) ?? 0 }
            if name == "connection" { close = value.lowercased() == "close" }
        }
        let end = headEnd + 4 + contentLength
        guard buffer.count >= end else { return nil }
        buffer.removeFirst(end)
        let target = requestLine[1]
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        return (String(requestLine[0]), path, close)
    }
}
