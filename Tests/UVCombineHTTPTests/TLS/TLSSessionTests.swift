import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

extension UVURLSession.Configuration {
    /// The defaults, trusting only the CA in `caFile`.
    static func trusting(_ caFile: String) -> UVURLSession.Configuration {
        var configuration = UVURLSession.Configuration()
        configuration.tls.trustRoots = .pemFile(caFile)
        return configuration
    }
}

extension Result where Success == (data: Data, response: HTTPResponse), Failure == UVURLError {
    var data: Data? {
        if case .success(let value) = self { return value.data }
        return nil
    }
}

/// https against real TLS servers on loopback (Python's `ssl` module and
/// `openssl s_server`), with certificates made at test time.
@Suite("UVURLSession over TLS")
struct TLSSessionTests {
    @Test("with the test CA trusted: bytes arrive intact, and sequential requests reuse one TLS connection")
    func fetchWithCustomCA() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let big = pseudoRandomBytes(2 * 1024 * 1024 + 17, seed: 11)
        let server = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["big.bin": Data(big), "hello.txt": Data("hello over TLS".utf8)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
            let first = fetch(session.dataTaskPublisher(for: server.url("/big.bin")), on: loop)
            #expect(first?.error == nil, "\(String(describing: first?.error))")
            #expect(first?.status == 200)
            #expect(first?.data?.count == big.count)
            #expect(first?.data == Data(big), "byte for byte")
            for _ in 0..<3 {
                let start = loop.now
                let outcome = fetch(session.dataTaskPublisher(for: server.url("/hello.txt")), on: loop)
                #expect(outcome?.text == "hello over TLS")
                #expect(start.distance(to: loop.now) < .seconds(10),
                        "run() returned with the TLS connection idle in the pool")
            }
            #expect(session.engine.connectionCount == 1, "one pooled connection")
            let ports = server.requestClientPorts()
            #expect(ports.count == 4)
            #expect(Set(ports).count == 1, "all four requests on one connection: \(ports)")
        }
    }

    @Test("openssl s_server -WWW: an HTTP/1.0 response ended by close_notify, by host name and by IP address")
    func openSSLServer() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let file = pseudoRandomBytes(300 * 1024 + 5, seed: 5)
        let server = try TLSTestServer(.openSSL(arguments: []), certificate: certificates.localhost,
                                       key: certificates.keyFile, files: ["file.bin": Data(file)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
            for host in ["localhost", "127.0.0.1"] {
                let outcome = fetch(session.dataTaskPublisher(for: server.url("/file.bin", host: host)), on: loop)
                #expect(outcome?.error == nil, "\(host): \(String(describing: outcome?.error))")
                #expect(outcome?.status == 200)
                #expect(outcome?.data == Data(file), "\(host): byte for byte")
            }
            #expect(session.engine.connectionCount == 0, "HTTP/1.0: each connection closed after its response")
        }
    }

    @Test("concurrent requests share at most maximumConnectionsPerHost TLS connections")
    func concurrentRequests() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let body = pseudoRandomBytes(100 * 1024, seed: 9)
        let server = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["body.bin": Data(body)])
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration.trusting(certificates.caFile)
            configuration.maximumConnectionsPerHost = 2
            let session = UVURLSession(loop: loop, configuration: configuration)
            var bodies: [Data] = []
            var completions: [Subscribers.Completion<UVURLError>] = []
            let cancellables = (0..<6).map { _ in
                session.dataTaskPublisher(for: server.url("/body.bin"))
                    .sink(receiveCompletion: { completions.append($0) }, receiveValue: { bodies.append($0.data) })
            }
            // A released AnyCancellable cancels, and the optimiser may end
            // a local's lifetime at its last use: keep them across run().
            withExtendedLifetime(cancellables) { _ = loop.run() }
            #expect(completions.count == 6)
            #expect(completions.allSatisfy { $0 == .finished }, "\(completions)")
            #expect(bodies.count == 6)
            #expect(bodies.allSatisfy { $0 == Data(body) })
            #expect(session.engine.connectionCount == 2)
            #expect(Set(server.requestClientPorts()).count == 2)
        }
    }

    @Test("backpressure: a stalled streaming subscriber stops the TLS connection's reads; demand resumes them")
    func backpressure() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let body = pseudoRandomBytes(16 * 1024 * 1024, seed: 13)
        let server = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["bulk.bin": Data(body)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
            let tracker = PartsTracker(initialDemand: .max(3))
            session.bytesPublisher(for: server.url("/bulk.bin")).subscribe(tracker)
            // Let the transfer run into the stall.
            let settle = loop.keepAlive()
            loop.schedule(after: loop.now.advanced(by: .milliseconds(300))) { settle.cancel() }
            loop.run()
            #expect(tracker.values.count == 3, "the head and two parts, then no demand")
            #expect(session.engine.readingConnectionCount == 0, "reading stopped")
            #expect(session.engine.heldResponseByteCount <= 16 * 1024, "at most one record's plaintext held by the session")
            #expect(session.engine.transportBufferedByteCount <= 64 * 1024 + 17 * 1024,
                    "at most one TCP read (and a record) held by TLS: \(session.engine.transportBufferedByteCount)")

            // Demand again, one part at a time for a while, then everything.
            for _ in 0..<20 {
                tracker.request(.max(1))
                loop.run()
            }
            #expect(tracker.values.count == 23, "one part per unit of demand")
            tracker.request(.unlimited)
            loop.run()
            #expect(tracker.completion == .finished)
            var received = Data()
            for case .body(let chunk) in tracker.values { received.append(chunk) }
            #expect(received.count == body.count)
            #expect(received == Data(body), "byte for byte")
        }
    }

    @Test("cancelling during the handshake closes the socket and leaves no handle open (uv_loop_close == 0)")
    func cancelMidHandshake() throws {
        var serverSawClientHello = false
        var serverSawEnd = false
        var delivered: [String] = []
        withRealLoop { loop in
            let stalled = try! StalledHandshakeServer(loop: loop)
            var session: UVURLSession? = UVURLSession(loop: loop, configuration: .default)
            var cancellable: AnyCancellable? = session!
                .dataTaskPublisher(for: URL(string: "https://localhost:\(stalled.port)/")!)
                .sink(receiveCompletion: { delivered.append("completion \($0)") },
                      receiveValue: { _ in delivered.append("value") })
            session = nil
            stalled.onFirstBytes = { bytes in
                serverSawClientHello = bytes.first == 0x16 // a TLS handshake record
                cancellable?.cancel()
                cancellable = nil
            }
            stalled.onEnd = { serverSawEnd = true }
            // The server's connection keeps the loop running until it sees
            // the client's end of file.
            loop.run()
            #expect(!stalled.guardFired)
            stalled.close()
        }
        #expect(serverSawClientHello, "the handshake had begun")
        #expect(serverSawEnd, "the client closed its socket")
        #expect(delivered.isEmpty, "a cancelled subscription receives nothing")
    }
}

/// Accepts one connection on the client's loop and reads it; answers the
/// first bytes with `reply` (a plain HTTP server's 400), or never (a TLS
/// handshake to it then stalls after the ClientHello).
///
/// The listener and the accepted connection keep the loop running until
/// the client's end of file closes them: a test waits for the client to
/// close its socket by running the loop. So that a client that never
/// connects or never closes fails a test instead of hanging it, a guard
/// closes everything after 20 s (``guardFired``).
final class StalledHandshakeServer: UVTCPConnectionHandler {
    let port: Int
    var onFirstBytes: (([UInt8]) -> Void)?
    var reply: [UInt8]?
    var onEnd: (() -> Void)?
    private(set) var guardFired = false
    private var listener: UVTCPListener?
    private var connection: UVTCPConnection?
    private var guardTimer: (any Cancellable)?

    private final class Link {
        weak var server: StalledHandshakeServer?
    }

    init(loop: UVLoop) throws {
        let link = Link()
        let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
            link.server?.accept(connection)
        }
        port = listener.port
        self.listener = listener
        link.server = self
        guardTimer = loop.schedule(after: loop.now.advanced(by: .seconds(20)), interval: .seconds(20)) {
            link.server?.guardFired = true
            link.server?.close()
        }
    }

    private func accept(_ connection: UVTCPConnection) {
        listener?.close()
        listener = nil
        self.connection = connection
        connection.handler = self
        connection.startReading()
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        if let first = onFirstBytes {
            onFirstBytes = nil
            first(Array(bytes))
        }
        if let reply, !connection.isClosed {
            self.reply = nil
            connection.write(reply)
        }
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        onEnd?()
        onEnd = nil
        // The connection closes itself; nothing is left to guard.
        guardTimer?.cancel()
        guardTimer = nil
    }

    func close() {
        guardTimer?.cancel()
        guardTimer = nil
        listener?.close()
        listener = nil
        connection?.close()
        connection = nil
    }
}
