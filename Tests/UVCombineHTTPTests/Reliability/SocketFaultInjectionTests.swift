#if DEBUG
import CLibUV
import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// One socket fault injected where the TCP layer hears from libuv
/// (`UVTCPFaultInjection`, debug builds only), and what the session must
/// report for it.
struct SocketFaultCase: Sendable, CustomTestStringConvertible {
    let name: String
    let point: UVTCPFaultInjection.Point
    let status: Int32
    /// Events at the point that pass before the fault strikes.
    let skipping: Int
    /// Whether the URL names the host (so it goes through the resolver).
    let byName: Bool
    let code: UVURLError.Code
    let detail: String
    let underlying: String

    var testDescription: String { name }
}

let socketFaultCases: [SocketFaultCase] = [
    // The head arrives in the first read; the body's first part, 100 ms
    // later, is the read that is reset.
    SocketFaultCase(name: "ECONNRESET mid-read (after the head)", point: .read, status: UV_ECONNRESET.rawValue,
                    skipping: 1, byName: false, code: .networkConnectionLost, detail: "connection lost",
                    underlying: "UV_ECONNRESET"),
    SocketFaultCase(name: "EPIPE on writing the request", point: .write, status: UV_EPIPE.rawValue,
                    skipping: 0, byName: false, code: .networkConnectionLost, detail: "connection lost",
                    underlying: "UV_EPIPE"),
    SocketFaultCase(name: "DNS failure (EAI_AGAIN)", point: .resolve, status: UV_EAI_AGAIN.rawValue,
                    skipping: 0, byName: true, code: .cannotFindHost, detail: "host resolution failed",
                    underlying: "UV_EAI_AGAIN"),
    SocketFaultCase(name: "DNS: no such name (EAI_NONAME)", point: .resolve, status: UV_EAI_NONAME.rawValue,
                    skipping: 0, byName: true, code: .cannotFindHost, detail: "host not found",
                    underlying: "UV_EAI_NONAME"),
    SocketFaultCase(name: "EMFILE creating the socket", point: .connect, status: UV_EMFILE.rawValue,
                    skipping: 0, byName: false, code: .cannotConnectToHost, detail: "connection failed",
                    underlying: "UV_EMFILE"),
]

/// Socket faults a server cannot produce, injected at the TCP layer's
/// libuv choke points (debug builds only): each gives its typed error, the
/// pool keeps no dead connection, and the next request succeeds.
extension Reliability {
@Suite("Reliability: injected socket faults (debug builds)")
struct SocketFaultInjectionTests {
    @Test("an injected socket fault gives its typed error; the session keeps working", arguments: socketFaultCases)
    func injected(_ fault: SocketFaultCase) throws {
        let server = try TestHTTPServer(routes: [
            "/slow": .fault(.slowBody(chunks: 2, delay: .milliseconds(100))),
            "/ok": .text("ok"),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            defer { UVTCPFaultInjection.removeAll(on: loop) }
            let session = UVURLSession(loop: loop)
            let host = fault.byName ? "localhost" : "127.0.0.1"
            let path = fault.point == .read ? "/slow" : "/ok"
            let url = URL(string: "http://\(host):\(server.port)\(path)")!
            UVTCPFaultInjection.inject(fault.status, at: fault.point, on: loop, skipping: fault.skipping)
            let error = fetch(session.dataTaskPublisher(for: url), on: loop)?.error
            #expect(error?.code == fault.code, "\(String(describing: error))")
            #expect(error?.detail == fault.detail)
            #expect(error?.underlyingErrorName == fault.underlying)
            #expect(session.engine.connectionCount == 0, "no dead connection stays pooled")
            #expect(session.engine.runningTaskCount == 0)

            let next = fetch(session.dataTaskPublisher(for: URL(string: "http://\(host):\(server.port)/ok")!), on: loop)
            #expect(next?.text == "ok", "\(String(describing: next?.error))")
            #expect(session.engine.connectionCount == 1)
        }
    }

    @Test("EPIPE writing on a reused keep-alive connection: retried once on a fresh connection, the task succeeds")
    func stalePooledConnectionRetried() throws {
        let server = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { server.shutdown() }
        withRealLoop { loop in
            defer { UVTCPFaultInjection.removeAll(on: loop) }
            let session = UVURLSession(loop: loop)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
            UVTCPFaultInjection.inject(UV_EPIPE.rawValue, at: .write, on: loop)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)
            #expect(outcome?.text == "ok", "\(String(describing: outcome?.error))")
            #expect(server.connectionCount == 2, "the broken connection was replaced")
            #expect(session.engine.connectionCount == 1)
        }
    }

    @Test("ECONNRESET while idle in the pool: the connection leaves the pool; the next request opens another")
    func resetWhileIdle() throws {
        // The server closes the connection after its response; the client's
        // idle connection reads that end of file, replaced by a reset.
        let server = try TestHTTPServer(routes: ["/bye": .fault(.keepAliveClosedByServer), "/ok": .text("ok")])
        defer { server.shutdown() }
        withRealLoop { loop in
            defer { UVTCPFaultInjection.removeAll(on: loop) }
            let session = UVURLSession(loop: loop)
            UVTCPFaultInjection.inject(UV_ECONNRESET.rawValue, at: .read, on: loop, skipping: 1)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/bye")), on: loop)
            #expect(outcome?.status == 200, "\(String(describing: outcome?.error))")
            #expect(runLoop(loop, until: { session.engine.connectionCount == 0 }), "the reset connection left the pool")
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
            #expect(server.connectionCount == 2)
        }
    }
}
}
#endif
