import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Raw TCP clients for testing the server byte by byte. Each runs a fresh
/// loop on the calling thread and closes it (checking `uv_loop_close == 0`)
/// before returning, while the server runs on its own loop thread.

/// How an exchange ended.
enum Ending: Equatable {
    /// The server closed the connection (end of file).
    case serverClosed
    /// Connecting or reading failed.
    case failed(UVTCPError)
    /// The client closed it (`stop` said enough).
    case clientClosed
    /// Nothing ended it before the timeout; the client closed it.
    case timedOut
}

/// What a raw exchange received.
struct RawReply {
    var bytes: [UInt8] = []
    var ending: Ending = .timedOut
    /// When each read arrived, in loop-clock nanoseconds, with its size.
    var reads: [(time: UInt64, count: Int)] = []

    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Collects what a connection reads and reports the end once.
final class Collector: UVTCPConnectionHandler {
    var onRead: (UVTCPConnection, UnsafeRawBufferPointer) -> Void
    var onEnd: (UVTCPError?) -> Void

    init(onRead: @escaping (UVTCPConnection, UnsafeRawBufferPointer) -> Void, onEnd: @escaping (UVTCPError?) -> Void) {
        self.onRead = onRead
        self.onEnd = onEnd
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        onRead(connection, bytes)
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        onEnd(error)
    }
}

/// Runs `body` with a fresh loop, then closes the loop, expecting
/// `uv_loop_close == 0`.
func withClientLoop<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: (UVLoop) throws -> R) throws -> R {
    let loop = try UVLoop()
    let result = try body(loop)
    #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) {
        try loop.close()
    }
    return result
}

/// Connects to 127.0.0.1:`port`, writes `request`, and reads until the
/// server closes, `stop` returns true for the bytes so far (the client then
/// closes), or `timeout` passes.
func rawExchange(port: Int, _ request: [UInt8], timeout: UVLoop.SchedulerTimeType.Stride = .seconds(10),
                 stop: (([UInt8]) -> Bool)? = nil) throws -> RawReply {
    try withClientLoop { loop in
        var reply = RawReply()
        var connection: UVTCPConnection?
        var timer: (any Cancellable)?
        func end(_ ending: Ending) {
            reply.ending = ending
            timer?.cancel()
            timer = nil
            connection?.close()
            connection = nil
        }
        timer = loop.schedule(after: loop.now.advanced(by: timeout), interval: .seconds(3600)) {
            end(.timedOut)
        }
        UVTCP.connect(host: "127.0.0.1", port: port, on: loop) { result in
            switch result {
            case .failure(let error):
                end(.failed(error))
            case .success(let connected):
                connection = connected
                connected.handler = Collector(onRead: { _, bytes in
                    reply.bytes += bytes
                    reply.reads.append((loop.now.uptimeNanoseconds, bytes.count))
                    if stop?(reply.bytes) == true { end(.clientClosed) }
                }, onEnd: { error in
                    end(error.map { .failed($0) } ?? .serverClosed)
                })
                if !request.isEmpty { connected.write(request) }
                connected.startReading()
            }
        }
        loop.run()
        return reply
    }
}

/// `rawExchange` with the request as text.
func rawExchange(port: Int, _ request: String, timeout: UVLoop.SchedulerTimeType.Stride = .seconds(10),
                 stop: (([UInt8]) -> Bool)? = nil) throws -> RawReply {
    try rawExchange(port: port, Array(request.utf8), timeout: timeout, stop: stop)
}

/// A response as the HTTP core's parser reads it.
struct ParsedReply {
    var response: HTTPResponse?
    var body: [UInt8] = []
    var keepAlive: Bool?
    var error: UVURLError?
}

/// Parses `bytes` as the response to a `method` request; with
/// `endOfInput`, the bytes are everything the server sent before closing.
func parse(_ bytes: [UInt8], method: HTTPRequest.Method = .get, endOfInput: Bool = true) -> ParsedReply {
    var parser = HTTPResponseParser()
    parser.expectResponse(to: method)
    var reply = ParsedReply()
    var offset = 0
    bytes.withUnsafeBytes { raw in
        do throws(UVURLError) {
            while true {
                let (event, consumed) = try parser.next(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                offset += consumed
                switch event {
                case .head(let response): reply.response = response
                case .body(let slice): reply.body += slice
                case .end(let keepAlive):
                    reply.keepAlive = keepAlive
                    return
                case .needMoreData:
                    guard endOfInput else { return }
                    if case .end(let keepAlive) = try parser.endOfInput() { reply.keepAlive = keepAlive }
                    return
                }
            }
        } catch {
            reply.error = error
        }
    }
    return reply
}

/// Sends each request on one connection, waiting for its complete
/// response (read with the HTTP core's parser) before the next; returns
/// the responses and how the connection ended.
func converse(port: Int, _ requests: [(method: HTTPRequest.Method, text: String)],
              timeout: UVLoop.SchedulerTimeType.Stride = .seconds(10)) throws -> (replies: [ParsedReply], ending: Ending) {
    try withClientLoop { loop in
        var replies: [ParsedReply] = []
        var ending = Ending.timedOut
        var parser = HTTPResponseParser()
        var current = ParsedReply()
        var connection: UVTCPConnection?
        var timer: (any Cancellable)?
        func end(_ how: Ending) {
            ending = how
            timer?.cancel()
            timer = nil
            connection?.close()
            connection = nil
        }
        func sendNext() {
            guard replies.count < requests.count, let connection else { return end(.clientClosed) }
            let request = requests[replies.count]
            parser.expectResponse(to: request.method)
            current = ParsedReply()
            connection.write(Array(request.text.utf8))
        }
        timer = loop.schedule(after: loop.now.advanced(by: timeout), interval: .seconds(3600)) { end(.timedOut) }
        UVTCP.connect(host: "127.0.0.1", port: port, on: loop) { result in
            guard case .success(let connected) = result else { return end(.failed(result.failureValue!)) }
            connection = connected
            connected.handler = Collector(onRead: { _, bytes in
                var offset = 0
                do throws(UVURLError) {
                    while offset < bytes.count || !parser.isIdle {
                        let (event, consumed) = try parser.next(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                        offset += consumed
                        switch event {
                        case .head(let response): current.response = response
                        case .body(let slice): current.body += slice
                        case .end(let keepAlive):
                            current.keepAlive = keepAlive
                            replies.append(current)
                            current = ParsedReply()
                            sendNext()
                            return
                        case .needMoreData: return
                        }
                    }
                } catch {
                    current.error = error
                    replies.append(current)
                    end(.clientClosed)
                }
            }, onEnd: { error in
                if !parser.isIdle {
                    do throws(UVURLError) {
                        if case .end(let keepAlive) = try parser.endOfInput() {
                            current.keepAlive = keepAlive
                            replies.append(current)
                        }
                    } catch {
                        current.error = error
                        replies.append(current)
                    }
                }
                end(error.map { .failed($0) } ?? .serverClosed)
            })
            connected.startReading()
            sendNext()
        }
        loop.run()
        return (replies, ending)
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A GET request for `path` with a Host field, and more lines if given.
func get(_ path: String, port: Int, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)\r\n"
}
