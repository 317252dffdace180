import Foundation
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

/// The one local HTTP/1.1 server every HTTP workload talks to: two
/// listeners on loopback (a small response, and a 64 MiB body) on
/// UVCombine's TCP layer, on a ``UVLoopThread`` of their own.
///
/// It answers each request (everything up to the blank line; the workloads
/// send no request bodies) with one fixed response, keep-alive, written from
/// arrays made once: in steady state it allocates nothing, so the process's
/// malloc count during a workload is the client's (the bare libuv client
/// beside the libraries shows 0 for both together). Its CPU time is read
/// from its thread's clock and reported apart, so client CPU time is the
/// process's less the server's.
///
/// Started on first use, it runs until the process exits.
final class BenchServer: @unchecked Sendable {
    // @unchecked Sendable: every member is set in init and never changes; the
    // handlers run on the server's loop thread only.

    static let shared = BenchServer()

    /// Bytes of the small response's body.
    static let smallBodyLength = 100
    /// Bytes of the big response's body: 64 MiB.
    static let bigBodyLength = 64 << 20

    let thread: UVLoopThread
    let smallPort: Int
    let bigPort: Int
    /// The server thread's CPU-time clock.
    let cpuClock: clockid_t

    /// The small response, head and body, as one array.
    let smallResponse: [UInt8]
    /// The big response's head; its body is ``bigBody``.
    let bigHead: [UInt8]
    let bigBody: [UInt8]

    var smallURL: URL { URL(string: "http://127.0.0.1:\(smallPort)/small")! }
    var bigURL: URL { URL(string: "http://127.0.0.1:\(bigPort)/big")! }

    private init() {
        let small = Array(repeating: UInt8(ascii: "x"), count: Self.smallBodyLength)
        smallResponse = Array("HTTP/1.1 200 OK\r\nContent-Length: \(small.count)\r\nContent-Type: text/plain\r\n\r\n".utf8) + small
        bigHead = Array("HTTP/1.1 200 OK\r\nContent-Length: \(Self.bigBodyLength)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        bigBody = (0..<Self.bigBodyLength).map { UInt8(truncatingIfNeeded: $0) }
        do {
            thread = try UVLoopThread()
        } catch {
            fatalError("BenchServer: UVLoopThread(): \(error)")
        }
        let started = DispatchSemaphore(value: 0)
        let result = Box<(small: Int, big: Int, clock: clockid_t)>()
        let loop = thread.loop
        let (smallResponse, bigHead, bigBody) = (self.smallResponse, self.bigHead, self.bigBody)
        loop.schedule {
            do {
                let smallListener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    connection.handler = RequestCounter(responses: [smallResponse])
                    connection.startReading()
                }
                let bigListener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    connection.handler = RequestCounter(responses: [bigHead, bigBody])
                    connection.startReading()
                }
                var clock = clockid_t()
                pthread_getcpuclockid(pthread_self(), &clock)
                result.value = (smallListener.port, bigListener.port, clock)
            } catch {
                fatalError("BenchServer: listen: \(error)")
            }
            started.signal()
        }
        started.wait()
        guard let ports = result.value else { fatalError("BenchServer: not started") }
        smallPort = ports.small
        bigPort = ports.big
        cpuClock = ports.clock
    }

    /// Opens one more listener on the server's loop whose connections
    /// answer every request with `responses` (written in order); returns
    /// its port. Any thread but the server's.
    func listen(responses: [[UInt8]]) -> Int {
        let started = DispatchSemaphore(value: 0)
        let result = Box<Int>()
        let loop = thread.loop
        loop.schedule {
            do {
                let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    connection.handler = RequestCounter(responses: responses)
                    connection.startReading()
                }
                result.value = listener.port
            } catch {
                fatalError("BenchServer: listen: \(error)")
            }
            started.signal()
        }
        started.wait()
        guard let port = result.value else { fatalError("BenchServer: not listening") }
        return port
    }

    /// The server thread's CPU time so far, in nanoseconds. Any thread.
    func cpuNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(cpuClock, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }

    /// A request for `path` on `port`, as the bare libuv client sends it.
    static func requestBytes(path: String, port: Int) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    }
}

/// A value handed from the server's thread to the one waiting for it.
private final class Box<Value>: @unchecked Sendable {
    var value: Value?
}

/// One server connection: counts complete request heads (CR LF CR LF) across
/// reads and writes the fixed response for each. Zero-copy both ways: the
/// reads are parsed in the connection's buffer, the responses are the same
/// arrays every time (libuv holds their storage until written).
private final class RequestCounter: UVTCPConnectionHandler {
    private let responses: [[UInt8]]
    /// How much of CR LF CR LF the bytes so far end with.
    private var matched = 0

    init(responses: [[UInt8]]) {
        self.responses = responses
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        var requests = 0
        var matched = self.matched
        for byte in bytes {
            switch (matched, byte) {
            case (0, 13), (2, 13): matched += 1
            case (1, 10): matched = 2
            case (3, 10):
                requests += 1
                matched = 0
            case (_, 13): matched = 1
            default: matched = 0
            }
        }
        self.matched = matched
        for _ in 0..<requests {
            for response in responses { connection.write(response) }
        }
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        connection.close()
    }
}
