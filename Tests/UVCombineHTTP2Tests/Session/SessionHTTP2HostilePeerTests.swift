import Foundation
import HTTPTypes
import Testing
import TestServerSupport
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// `UVURLSession` against a hostile HTTP/2 peer on a real socket (issue 33,
/// "Hostile peers", "Done when": "each hostile-peer limit (a small hostile
/// server of your own)"): a ``ScriptedTCPServer`` speaking crafted frames
/// (`Frame`) over h2c with prior knowledge. Each limit ends the data task
/// with its exact `UVURLError`, the client's GOAWAY with the right code,
/// and a closed connection (the session holds none). The floods never
/// end on the server's side: the client closing the socket before the
/// server has written `floodLimit` bytes is what bounds its memory.
@Suite("UVURLSession over HTTP/2 against a hostile peer (real socket)")
struct SessionHTTP2HostilePeerTests {
    /// What a flood may write before the test calls the client unbounded.
    static let floodLimit = 64 << 20

    /// The outcome of `requests` GETs against the scripted peer.
    struct Run {
        let errors: [Int: UVURLError]
        let bodies: [Int: String]
        let connection: ScriptedTCPServer.Connection
        let connectionsLeft: Int
    }

    /// Runs `requests` GETs on one session against a peer playing
    /// `script`, until every task ended.
    static func run(requests: Int = 1, method: HTTPRequest.Method = .get, body: [UInt8]? = nil,
                    configure: (inout UVURLSession.Configuration) -> Void = { _ in },
                    _ script: @escaping @Sendable (ScriptedTCPServer.Connection) -> Void) throws -> Run {
        let server = try ScriptedTCPServer(script: script)
        var result: (errors: [Int: UVURLError], bodies: [Int: String], left: Int) = ([:], [:], 0)
        try withH2Loop { loop in
            let (session, _) = makeH2Session(loop, configure: configure)
            let outcomes = Outcomes()
            for index in 0..<requests {
                var request = h2Request("127.0.0.1:\(server.port)", "/\(index)")
                request.method = method
                if let body {
                    outcomes.start(index, session.dataTaskPublisher(for: request, body: Data(body)))
                } else {
                    outcomes.start(index, session.dataTaskPublisher(for: request))
                }
            }
            _ = loop.run()
            result = (outcomes.errors(), outcomes.bodies(), session.engine.connectionCount)
            session.invalidateAndCancel()
        }
        let connection = try #require(server.wait(), "the client never connected")
        return Run(errors: result.errors, bodies: result.bodies, connection: connection, connectionsLeft: result.left)
    }

    /// The task's exact error, the client's GOAWAY code, and the
    /// connection closed by the client.
    static func expectFailure(_ run: Run, request: Int = 0, detail: String, goAway: HTTP2ErrorCode,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let error = run.errors[request]
        #expect(error?.code == .badServerResponse, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.detail == detail, sourceLocation: sourceLocation)
        #expect(run.connection.clientGoAwayCode == goAway.rawValue, sourceLocation: sourceLocation)
        #expect(run.connection.peerClosed, "the client closed the connection", sourceLocation: sourceLocation)
        #expect(run.connectionsLeft == 0, "the session keeps no connection", sourceLocation: sourceLocation)
    }

    @Test("a response header list above 64 KiB: headerListTooLarge, GOAWAY(ENHANCE_YOUR_CALM), closed")
    func headerListTooLarge() throws {
        let run = try Self.run { peer in
            guard peer.h2Handshake(), let streams = peer.readRequests(1) else { return }
            // 2,000 fields of 58 bytes each by RFC 9113's count: 116,000 bytes,
            // in 58,000 bytes of block: HEADERS and 3 CONTINUATION frames.
            var block = Frame.hpackLiteral(":status", "200")
            for index in 0..<2000 { block += Frame.hpackLiteral("x-\(1000 + index)", String(repeating: "v", count: 20)) }
            let pieces = stride(from: 0, to: block.count, by: 16384).map { Array(block[$0..<min($0 + 16384, block.count)]) }
            var bytes: [UInt8] = []
            for (index, piece) in pieces.enumerated() {
                let last = index == pieces.count - 1
                bytes += Frame.make(type: index == 0 ? Frame.headers : Frame.continuation,
                                    flags: last ? Frame.endHeaders : 0, stream: streams[0], payload: piece)
            }
            peer.write(bytes)
            _ = peer.awaitClose()
        }
        Self.expectFailure(run, detail: "HTTP/2: response header list too large (more than 65536 bytes on stream 1) [ENHANCE_YOUR_CALM (0xb)]",
                           goAway: .enhanceYourCalm)
    }

    @Test("an HPACK dynamic table size update to 1 MiB: compressionError, GOAWAY(COMPRESSION_ERROR), closed")
    func hpackTableTooLarge() throws {
        let run = try Self.run { peer in
            guard peer.h2Handshake(), let streams = peer.readRequests(1) else { return }
            let block = Frame.hpackInteger(1 << 20, prefix: 5, first: 0x20) + Frame.status200
            peer.write(Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: streams[0], payload: block))
            _ = peer.awaitClose()
        }
        Self.expectFailure(run, detail: "HTTP/2: header compression error [COMPRESSION_ERROR (0x9)]", goAway: .compressionError)
    }

    @Test("a CONTINUATION flood (16-byte frames of one 60,000-byte value): continuationFlood, closed after 8 frames")
    func continuationFlood() throws {
        let run = try Self.run { peer in
            guard peer.h2Handshake(), let streams = peer.readRequests(1) else { return }
            let start = Frame.status200 + [0x00] + Frame.hpackInteger(6, prefix: 7, first: 0) + Array("x-slow".utf8)
                + Frame.hpackInteger(60000, prefix: 7, first: 0)
            peer.write(Frame.make(type: Frame.headers, stream: streams[0], payload: start))
            let piece = Frame.make(type: Frame.continuation, stream: streams[0], payload: Array(repeating: 0x62, count: 16))
            // 3,700 frames stay inside the value: a client without the
            // limit would read them all and wait for more.
            _ = peer.writeUntilClosed(limit: 3700 * piece.count, next: { piece })
            _ = peer.awaitClose()
        }
        Self.expectFailure(run, detail: "HTTP/2: too many CONTINUATION frames [ENHANCE_YOUR_CALM (0xb)]", goAway: .enhanceYourCalm)
    }

    @Test("rapid resets: an endless stream of RST_STREAM fails the other stream with resetFlood, closed")
    func rapidResets() throws {
        let run = try Self.run(requests: 2) { peer in
            guard peer.h2Handshake(), let streams = peer.readRequests(2) else { return }
            let reset = Frame.rst(stream: streams[0], code: HTTP2ErrorCode.cancel.rawValue)
            _ = peer.writeUntilClosed(limit: Self.floodLimit, next: { reset })
            _ = peer.awaitClose()
        }
        let reset = try #require(run.errors.values.first { $0.code == .networkConnectionLost })
        #expect(reset.detail == "HTTP/2: stream reset (RST_STREAM from the server) [CANCEL (0x8)]", "the stream the server reset")
        let flood = try #require(run.errors.first { $0.value.code == .badServerResponse })
        Self.expectFailure(run, request: flood.key, detail: "HTTP/2: too many RST_STREAM frames from the peer (more than 200 RST_STREAM frames in 1.0 seconds) [ENHANCE_YOUR_CALM (0xb)]",
                           goAway: .enhanceYourCalm)
        print("HTTP2 flood: RST_STREAM: the server wrote \(run.connection.bytesWritten) bytes before the client closed")
        #expect(run.connection.bytesWritten < Self.floodLimit)
    }

    @Test("a PING flood that never ends: pingFlood, GOAWAY(ENHANCE_YOUR_CALM), closed long before 64 MiB")
    func pingFlood() throws {
        let run = try Self.run { peer in
            guard peer.h2Handshake(), peer.readRequests(1) != nil else { return }
            let pings = (0..<64).flatMap { Frame.pingFrame(UInt64($0)) }
            _ = peer.writeUntilClosed(limit: Self.floodLimit, next: { pings })
            _ = peer.awaitClose()
        }
        Self.expectFailure(run, detail: "HTTP/2: too many PING frames from the peer (more than 100 PING frames in 1.0 seconds) [ENHANCE_YOUR_CALM (0xb)]", goAway: .enhanceYourCalm)
        print("HTTP2 flood: PING: the server wrote \(run.connection.bytesWritten) bytes before the client closed")
        #expect(run.connection.bytesWritten < Self.floodLimit)
    }

    @Test("a SETTINGS flood that never ends: settingsFlood, GOAWAY(ENHANCE_YOUR_CALM), closed long before 64 MiB")
    func settingsFlood() throws {
        let run = try Self.run { peer in
            guard peer.h2Handshake(), peer.readRequests(1) != nil else { return }
            let settings = (0..<64).flatMap { _ in Frame.settings() }
            _ = peer.writeUntilClosed(limit: Self.floodLimit, next: { settings })
            _ = peer.awaitClose()
        }
        Self.expectFailure(run, detail: "HTTP/2: too many SETTINGS from the peer (more than 100 SETTINGS frames in 1.0 seconds) [ENHANCE_YOUR_CALM (0xb)]", goAway: .enhanceYourCalm)
        print("HTTP2 flood: SETTINGS: the server wrote \(run.connection.bytesWritten) bytes before the client closed")
        #expect(run.connection.bytesWritten < Self.floodLimit)
    }

    @Test("a zero window that opens later: no DATA until the server's WINDOW_UPDATE, then the whole upload")
    func zeroWindowOpensLater() throws {
        let payload = patternBytes(100_000)
        let held = Held()
        let run = try Self.run(method: .post, body: payload) { peer in
            // SETTINGS_INITIAL_WINDOW_SIZE 0: the stream may send nothing.
            guard peer.h2Handshake(settings: [(0x4, 0)]), let streams = peer.readRequests(1) else { return }
            // A PING's acknowledgement comes after anything the client
            // could write before it: no DATA may precede it.
            peer.write(Frame.pingFrame(42))
            guard peer.read(until: { Frame.parse($0).contains { $0.type == Frame.ping && $0.flags & Frame.ack != 0 } }) else { return }
            held.bytesBeforeWindow = peer.uploadedBytes(on: streams[0])
            peer.write(Frame.windowUpdateFrame(stream: 0, 1 << 20) + Frame.windowUpdateFrame(stream: streams[0], 1 << 20))
            guard peer.read(until: { _ in peer.requestEnded(on: streams[0]) }) else { return }
            let count = peer.uploadedBytes(on: streams[0])
            peer.write(Frame.response(stream: streams[0], status: 200)
                       + Frame.dataFrame(stream: streams[0], Array("received \(count)".utf8), endStream: true))
            _ = peer.awaitClose()
        }
        #expect(held.bytesBeforeWindow == 0)
        #expect(run.errors.isEmpty, "\(run.errors)")
        #expect(run.bodies[0] == "received 100000")
    }
}

extension SessionHTTP2HostilePeerTests {
    @Test("a peer that ignores PINGs: with http2PingInterval set, the waiting request fails with timedOut (idle read), closed")
    func ignoredPings() throws {
        let run = try Self.run(configure: {
            $0.http2PingInterval = .milliseconds(50)
            $0.http2PingTimeout = .milliseconds(100)
        }) { peer in
            guard peer.h2Handshake(), peer.readRequests(1) != nil else { return }
            // No response, no PING acknowledgement: only reads.
            _ = peer.awaitClose()
        }
        let error = run.errors[0]
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(error?.timeoutKind == .idleRead)
        #expect(error?.detail == "HTTP/2: keep-alive PING not acknowledged (no PING acknowledgement in 100 ms)")
        #expect(run.connection.frames.contains { $0.type == Frame.ping && $0.flags & Frame.ack == 0 }, "the client pinged")
        #expect(run.connection.peerClosed)
        #expect(run.connectionsLeft == 0)
    }
}

/// A value the server's script hands to the test (written on the
/// script's thread before `wait()` returns, read after).
final class Held: @unchecked Sendable {
    var bytesBeforeWindow = -1
}
