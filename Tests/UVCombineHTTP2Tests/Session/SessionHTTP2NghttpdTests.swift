import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// `UVURLSession` over HTTP/2 with prior knowledge against nghttp2's own
/// server (`nghttpd --no-tls`): the publishers, the pool's streams, demand
/// as the flow-control window, cancel, uploads.
@Suite("UVURLSession over HTTP/2 against nghttpd", .enabled(if: NghttpdServer.executable != nil, "nghttpd not installed"))
struct SessionHTTP2NghttpdTests {
    static let small = patternBytes(1024)
    static let big = patternBytes(1 << 20)

    @Test("100 concurrent data tasks on one TCP connection")
    func hundredOnOneConnection() throws {
        let server = try NghttpdServer(files: ["small.bin": Self.small])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            for index in 0..<100 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            }
            outcomes.start(100, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/missing")))
            _ = loop.run()
            #expect(outcomes.errors().isEmpty, "\(outcomes.errors())")
            let ok = outcomes.values.values.filter { if case .success(let v) = $0 { v.response.status == .ok && Array(v.data) == Self.small } else { false } }
            #expect(ok.count == 100)
            if case .success(let missing)? = outcomes.values[100] { #expect(missing.response.status.code == 404) }
            #expect(counter.connections == 1)
            #expect(counter.http2Connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("a stalled subscriber holds one stream's window while 20 others complete; its bytes all come once it asks")
    func stalledStream() throws {
        let server = try NghttpdServer(files: ["small.bin": Self.small, "big.bin": Self.big])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let held = HeldSubscriber(initial: .max(2))
            session.bytesPublisher(for: h2Request("127.0.0.1:\(server.port)", "/big.bin")).subscribe(held)
            let outcomes = Outcomes()
            for index in 0..<20 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")),
                               whenAll: 20, stop: loop)
            }
            _ = loop.run()
            #expect(outcomes.bodies().count == 20)
            #expect(held.completion == nil)
            #expect(held.parts == 2)
            // Delivered plus held below the subscriber: one stream window
            // (256 KiB) and the part that opened it, never the whole MiB.
            let buffered = session.engine.http2HeldByteCount + session.engine.heldResponseByteCount
            print("HTTP2 stalled: delivered \(held.bodyBytes) held \(buffered)")
            #expect(held.bodyBytes + buffered <= 256 * 1024 + 64 * 1024)
            #expect(held.bodyBytes + buffered < Self.big.count)
            held.subscription?.request(.unlimited)
            _ = loop.run()
            #expect(held.bodyBytes == Self.big.count)
            if case .failure(let error)? = held.completion { Issue.record("failed: \(error)") }
            #expect(counter.connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS 1: ten requests one after another on one connection")
    func oneStreamAtATime() throws {
        let server = try NghttpdServer(files: ["small.bin": Self.small], arguments: ["-m", "1"])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let outcomes = Outcomes()
            for index in 0..<10 {
                outcomes.start(index, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            }
            _ = loop.run()
            #expect(outcomes.bodies().count == 10, "\(outcomes.errors())")
            #expect(counter.connections == 1)
            session.invalidateAndCancel()
        }
    }

    @Test("cancel resets the stream (RST_STREAM); the connection serves the next request")
    func cancelStream() throws {
        let server = try NghttpdServer(files: ["small.bin": Self.small, "big.bin": Self.big])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop)
            let held = HeldSubscriber(initial: .max(2))
            held.onPart = { [held] in if held.parts == 2 { held.subscription?.cancel() } }
            session.bytesPublisher(for: h2Request("127.0.0.1:\(server.port)", "/big.bin")).subscribe(held)
            let outcomes = Outcomes()
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            _ = loop.run()
            #expect(held.completion == nil, "a cancelled subscription hears nothing more")
            #expect(held.bodyBytes < Self.big.count)
            #expect(outcomes.values[0].map { if case .success(let v) = $0 { Array(v.data) == Self.small } else { false } } == true)
            outcomes.start(1, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")))
            _ = loop.run()
            #expect(outcomes.bodies()[1] != nil)
            #expect(counter.connections == 1)
            #expect(session.engine.http2HeldByteCount == 0)
            session.invalidateAndCancel()
        }
    }

    @Test("uploads past the server's window: a whole body and a streamed one, echoed")
    func uploads() throws {
        let server = try NghttpdServer(files: [:], arguments: ["--echo-upload"])
        defer { server.stop() }
        let payload = patternBytes(300 * 1024)
        try withH2Loop { loop in
            let (session, _) = makeH2Session(loop)
            let outcomes = Outcomes()
            var post = h2Request("127.0.0.1:\(server.port)", "/echo")
            post.method = .post
            outcomes.start(0, session.dataTaskPublisher(for: post, body: Data(payload)))
            let chunks = stride(from: 0, to: payload.count, by: 16 * 1024).map { Data(payload[$0..<min($0 + 16 * 1024, payload.count)]) }
            outcomes.start(1, session.dataTaskPublisher(for: post, bodyPublisher: chunks.publisher, contentLength: payload.count))
            outcomes.start(2, session.dataTaskPublisher(for: post, bodyPublisher: chunks.publisher))
            _ = loop.run()
            for index in 0...2 {
                guard case .success(let value)? = outcomes.values[index] else {
                    Issue.record("upload \(index): \(String(describing: outcomes.values[index]))")
                    continue
                }
                #expect(Array(value.data) == payload, "upload \(index)")
            }
            session.invalidateAndCancel()
        }
    }

    @Test("PING keep-alive: a quiet connection is pinged and the acknowledgements come back")
    func keepAlivePings() throws {
        let server = try NghttpdServer(files: ["big.bin": Self.big])
        defer { server.stop() }
        try withH2Loop { loop in
            let (session, _) = makeH2Session(loop) { $0.http2PingInterval = .milliseconds(40) }
            // A stalled stream: the connection stays open and quiet.
            let held = HeldSubscriber(initial: .max(2))
            session.bytesPublisher(for: h2Request("127.0.0.1:\(server.port)", "/big.bin")).subscribe(held)
            var pings = 0
            loop.schedule(after: loop.now.advanced(by: .milliseconds(400))) {
                pings = session.engine.http2PingsAcknowledged
                held.subscription?.cancel()
                session.invalidateAndCancel()
            }
            _ = loop.run()
            #expect(pings >= 3, "\(pings) PINGs acknowledged in 400 ms at a 40 ms interval")
            #expect(held.completion == nil)
        }
    }

    @Test("the async API and values over HTTP/2")
    func asyncAPI() async throws {
        let server = try NghttpdServer(files: ["small.bin": Self.small])
        defer { server.stop() }
        let background = try UVLoopThread()
        do {
            var configuration = UVURLSession.Configuration()
            configuration.httpVersion = .http2PriorKnowledge
            let session = UVURLSession(loop: background.loop, configuration: configuration)
            let (data, response) = try await session.data(for: h2Request("127.0.0.1:\(server.port)", "/small.bin"))
            #expect(response.status == .ok)
            #expect(Array(data) == Self.small)
            var total = 0
            for try await part in session.bytesPublisher(for: h2Request("127.0.0.1:\(server.port)", "/small.bin")).values {
                if case .body(let bytes) = part { total += bytes.count }
            }
            #expect(total == Self.small.count)
            session.invalidateAndCancel()
        }
        try background.shutdown()
    }
}
