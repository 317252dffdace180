import HTTPTypes
import UVCombineCore
import UVCombineLoop

extension TestHTTPServer {
    /// One accepted connection: parses requests as bytes arrive, answers
    /// them one at a time (pipelined requests wait their turn), and plays
    /// the response's fault. Loop thread only.
    internal final class ServerConnection: UVTCPConnectionHandler {
        /// Weak: a server released without `shutdown()` (on a given loop)
        /// must not be reached through its connections.
        private weak var server: TestHTTPServer?
        private let connection: UVTCPConnection
        private var parser: RequestParser
        /// A response is under way: requests read meanwhile wait.
        private var responding = false
        private var closed = false
        /// The timer of a slow body.
        private var pacer: (any Cancellable)?

        internal init(server: TestHTTPServer, connection: UVTCPConnection, number: Int) {
            self.server = server
            self.connection = connection
            parser = RequestParser(connectionNumber: number)
        }

        internal func start() {
            connection.handler = self
            connection.startReading()
        }

        internal func close() {
            guard !closed else { return }
            closed = true
            pacer?.cancel()
            pacer = nil
            connection.close()
            server?.connectionDidClose(self)
        }

        // MARK: UVTCPConnectionHandler

        internal func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
            parser.append(bytes)
            serveNext()
        }

        internal func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
            // The client went away (the connection closes itself): stop.
            close()
        }

        // MARK: Serving

        private func serveNext() {
            while !responding && !closed {
                switch parser.next() {
                case .needMoreData:
                    return
                case .invalid(let status, let reason):
                    responding = true
                    let body = Array(reason.utf8)
                    let head = Response(status: status).head(adding: [("Content-Length", "\(body.count)"),
                                                                       ("Connection", "close")])
                    writeThenClose(head + body)
                    return
                case .request(let request):
                    guard let server else {
                        close()
                        return
                    }
                    responding = true
                    let response = server.respond(to: request)
                    send(response, to: request)
                }
            }
        }

        /// Sends `response` (or plays its fault); clears `responding` when
        /// the connection can take the next request.
        private func send(_ response: Response, to request: Request) {
            let keepAlive = request.wantsKeepAlive && !Self.saysClose(response.headerFields)
            let isHead = request.method == "HEAD"
            guard let fault = response.fault else {
                sendNormally(response, keepAlive: keepAlive, isHead: isHead)
                return
            }
            let body = response.body
            switch fault {
            case .refuse:
                server?.stopListening()
                close()
            case .closeAfterHead:
                writeThenClose(response.head(adding: [("Content-Length", "\(body.count)"), ("Connection", "close")]))
            case .closeMidBody:
                let half = body.isEmpty ? 0 : max(1, body.count / 2)
                let head = response.head(adding: [("Content-Length", "\(max(body.count, 1))"), ("Connection", "close")])
                writeThenClose(head + body[..<half])
            case .stall:
                break // `responding` stays set: nothing more is answered
            case .contentLengthMismatch:
                let head = response.head(adding: [("Content-Length", "\(body.count + 10)"), ("Connection", "close")])
                writeThenClose(head + body)
            case .chunked(let chunkSize):
                var extra = [("Transfer-Encoding", "chunked")]
                if !keepAlive { extra.append(("Connection", "close")) }
                write(response.head(adding: extra))
                if !isHead {
                    let size = max(chunkSize, 1)
                    var offset = 0
                    while offset < body.count {
                        let end = min(offset + size, body.count)
                        write(Array(String(end - offset, radix: 16).utf8) + [13, 10] + body[offset..<end] + [13, 10])
                        offset = end
                    }
                    write(Array("0\r\n\r\n".utf8))
                }
                finish(keepAlive: keepAlive)
            case .slowBody(let chunks, let delay):
                var extra = [("Content-Length", "\(body.count)")]
                if !keepAlive { extra.append(("Connection", "close")) }
                write(response.head(adding: extra))
                if isHead || body.isEmpty {
                    finish(keepAlive: keepAlive)
                    return
                }
                let parts = max(1, min(chunks, body.count))
                let partSize = (body.count + parts - 1) / parts
                var offset = 0
                let loop = connection.loop
                pacer = loop.schedule(after: loop.now.advanced(by: delay), interval: delay) { [self] in
                    guard !closed else { return }
                    let end = min(offset + partSize, body.count)
                    write(Array(body[offset..<end]))
                    offset = end
                    if offset == body.count {
                        pacer?.cancel()
                        pacer = nil
                        finish(keepAlive: keepAlive)
                        if keepAlive { serveNext() }
                    }
                }
            case .malformedStatusLine:
                writeThenClose(Array("HTTP/1.1 abc Malformed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            case .oversizedHeaders(let bytes):
                let value = String(repeating: "a", count: max(bytes, 1))
                let head = response.head(adding: [("X-Oversized", value), ("Content-Length", "\(body.count)"),
                                                  ("Connection", "close")])
                writeThenClose(head + (isHead ? [] : body))
            case .infiniteRedirect:
                let hop = request.query.flatMap { query -> Int? in
                    guard query.hasPrefix("hop=") else { return nil }
                    return Int(query.dropFirst(4))
                } ?? 0
                var extra = [("Location", "\(request.path)?hop=\(hop + 1)"), ("Content-Length", "0")]
                if !keepAlive { extra.append(("Connection", "close")) }
                let redirect = Response(status: .found, headerFields: response.headerFields)
                write(redirect.head(adding: extra))
                finish(keepAlive: keepAlive)
            case .keepAliveClosedByServer:
                var extra: [(String, String)] = []
                if !response.hasFraming { extra.append(("Content-Length", "\(body.count)")) }
                writeThenClose(response.head(adding: extra) + (isHead ? [] : body))
            }
        }

        private func sendNormally(_ response: Response, keepAlive: Bool, isHead: Bool) {
            var extra: [(String, String)] = []
            if !response.hasFraming { extra.append(("Content-Length", "\(response.body.count)")) }
            if !keepAlive && !Self.saysClose(response.headerFields) { extra.append(("Connection", "close")) }
            let bytes = response.head(adding: extra) + (isHead ? [] : response.body)
            if keepAlive {
                write(bytes)
                finish(keepAlive: true)
            } else {
                writeThenClose(bytes)
            }
        }

        /// The response is complete: take the next request, or close once
        /// the bytes are out.
        private func finish(keepAlive: Bool) {
            if keepAlive {
                responding = false
            } else {
                write([]) { [self] _ in close() }
            }
        }

        /// Writes `bytes`, then closes the connection once they were handed
        /// to the kernel.
        private func writeThenClose(_ bytes: [UInt8]) {
            write(bytes) { [self] _ in close() }
        }

        /// Writes unless the connection closed meanwhile (a write error
        /// closes it at once).
        private func write(_ bytes: [UInt8], completion: ((UVError?) -> Void)? = nil) {
            guard !closed else { return }
            connection.write(bytes, completion: completion)
        }

        private static func saysClose(_ fields: HTTPFields) -> Bool {
            fields[values: .connection].contains { $0.lowercased().contains("close") }
        }
    }
}
