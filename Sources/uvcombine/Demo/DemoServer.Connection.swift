import Foundation
import UVCombine

extension DemoServer {
    /// One accepted connection: reads requests (head and `Content-Length`
    /// body), asks the ``Service`` for each reply, answers them in order,
    /// keeps the connection alive unless the client says
    /// `Connection: close`. Loop thread only.
    final class Connection: UVTCPConnectionHandler {
        private let connection: UVTCPConnection
        private let service: Service
        private var buffer: [UInt8] = []
        /// A delayed response is pending: later requests wait.
        private var busy = false

        init(connection: UVTCPConnection, service: Service) {
            self.connection = connection
            self.service = service
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
                // A read callback on the loop thread, which is the
                // service actor's executor: no await needed.
                let reply = service.assumeIsolated { $0.reply(method: request.method, path: request.path) }
                switch reply {
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
                        loop.schedule(after: loop.now.advanced(by: .seconds(delay))) { [self] in
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
        /// until one is complete. A malformed request line closes the
        /// connection.
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
}
