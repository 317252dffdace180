import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// A peer nobody's library would let us be: crafted frames fed straight
/// into the client. Each limit ends in its typed error, the open stream
/// failing with it, and a GOAWAY in the output.
@Suite("HTTP/2 hostile peers")
struct HTTP2HostilePeerTests {
    /// A client with one open stream (id 1) that has read the server's
    /// empty SETTINGS.
    static func connected(_ configuration: HTTP2Configuration = HTTP2Configuration(), streams: Int = 1) throws
        -> (HTTP2ClientConnection, EventRecorder) {
        let client = try HTTP2ClientConnection(configuration: configuration)
        let recorder = EventRecorder()
        client.delegate = recorder
        for _ in 0..<streams {
            _ = try client.openStream(HTTPRequest(method: .get, scheme: "http", authority: "a", path: "/"))
        }
        var out: [UInt8] = []
        client.produceOutput(into: &out)
        feed(client, Frame.settings())
        return (client, recorder)
    }

    static func feed(_ client: HTTP2ClientConnection, _ bytes: [UInt8], now: UInt64 = 0) {
        bytes.withUnsafeBytes { client.receive($0, now: HTTPDeadline(uptimeNanoseconds: now)) }
    }

    static func output(_ client: HTTP2ClientConnection) -> [UInt8] {
        var out: [UInt8] = []
        client.produceOutput(into: &out)
        return out
    }

    /// The error, the stream's failure, and the GOAWAY code written.
    static func expectFailure(_ client: HTTP2ClientConnection, _ recorder: EventRecorder, _ kind: HTTP2Error.Kind,
                              goAway: HTTP2ErrorCode, stream: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(recorder.connectionError?.kind == kind, sourceLocation: sourceLocation)
        #expect(recorder.records.contains(.connectionFailed(kind)), sourceLocation: sourceLocation)
        #expect(recorder.errors[stream]?.kind == kind, sourceLocation: sourceLocation)
        #expect(client.failure?.kind == kind, sourceLocation: sourceLocation)
        #expect(!client.canOpenStreams, sourceLocation: sourceLocation)
        #expect(client.isFinished, sourceLocation: sourceLocation)
        #expect(client.wantsToWrite, sourceLocation: sourceLocation)
        #expect(Frame.goAwayCode(in: output(client)) == goAway.rawValue, sourceLocation: sourceLocation)
        #expect(recorder.connectionError?.urlError.code == .badServerResponse, sourceLocation: sourceLocation)
    }

    @Test("a header list above maxHeaderListSize: headerListTooLarge, GOAWAY(ENHANCE_YOUR_CALM)")
    func headerListTooLarge() throws {
        var configuration = HTTP2Configuration()
        configuration.maxHeaderListSize = 1000
        let (client, recorder) = try Self.connected(configuration)
        let block = Frame.status200 + Frame.hpackLiteral("x-big", String(repeating: "a", count: 2000))
        Self.feed(client, Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: 1, payload: block))
        Self.expectFailure(client, recorder, .headerListTooLarge, goAway: .enhanceYourCalm)
        #expect(recorder.connectionError?.detail == "more than 1000 bytes on stream 1")
    }

    @Test("many small fields add up to the header list limit too")
    func manySmallFields() throws {
        var configuration = HTTP2Configuration()
        configuration.maxHeaderListSize = 4096
        let (client, recorder) = try Self.connected(configuration)
        var block = Frame.status200
        for index in 0..<200 { block += Frame.hpackLiteral("x-\(index)", "v") }
        Self.feed(client, Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: 1, payload: block))
        Self.expectFailure(client, recorder, .headerListTooLarge, goAway: .enhanceYourCalm)
    }

    @Test("an HPACK table size update above SETTINGS_HEADER_TABLE_SIZE: compressionError, GOAWAY(COMPRESSION_ERROR)")
    func hpackTableTooLarge() throws {
        let (client, recorder) = try Self.connected()
        // Dynamic table size update (001xxxxx) to 1 MiB.
        let block = Frame.hpackInteger(1 << 20, prefix: 5, first: 0x20) + Frame.status200
        Self.feed(client, Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: 1, payload: block))
        Self.expectFailure(client, recorder, .compressionError, goAway: .compressionError)
    }

    @Test("a CONTINUATION flood: continuationFlood after maxContinuations frames")
    func continuationFlood() throws {
        var configuration = HTTP2Configuration()
        configuration.maxContinuations = 4
        let (client, recorder) = try Self.connected(configuration)
        // One field whose value spreads over many frames, so each is small.
        let block = Frame.status200 + Frame.hpackLiteral("x-slow", String(repeating: "b", count: 100))
        var bytes = Frame.make(type: Frame.headers, stream: 1, payload: Array(block[0..<10]))
        for index in 0..<20 {
            bytes += Frame.make(type: Frame.continuation, stream: 1, payload: Array(block[(10 + index)..<(11 + index)]))
        }
        Self.feed(client, bytes)
        #expect(recorder.connectionError?.kind == .continuationFlood)
        #expect(recorder.errors[1]?.kind == .continuationFlood)
        #expect(!client.canOpenStreams)
    }

    @Test("rapid resets: more RST_STREAM than maxPeerResets in the window is resetFlood")
    func rapidResets() throws {
        var configuration = HTTP2Configuration()
        configuration.maxPeerResets = 5
        let (client, recorder) = try Self.connected(configuration, streams: 10)
        var bytes: [UInt8] = []
        for index in 0..<10 { bytes += Frame.rst(stream: UInt32(2 * index + 1), code: HTTP2ErrorCode.refusedStream.rawValue) }
        Self.feed(client, bytes, now: 1_000)
        // Streams 1 to 9 were refused before the sixth reset; 11 to 19 fail
        // with the flood.
        Self.expectFailure(client, recorder, .resetFlood, goAway: .enhanceYourCalm, stream: 11)
        #expect(recorder.records.filter { if case .failed(_, .refusedStream, _) = $0 { true } else { false } }.count == 5)
    }

    @Test("resets spread over windows are not a flood")
    func resetsOverTime() throws {
        var configuration = HTTP2Configuration()
        configuration.maxPeerResets = 5
        let (client, recorder) = try Self.connected(configuration, streams: 10)
        for index in 0..<10 {
            Self.feed(client, Frame.rst(stream: UInt32(2 * index + 1), code: HTTP2ErrorCode.refusedStream.rawValue),
                      now: UInt64(index) * 300_000_000)
        }
        #expect(recorder.connectionError == nil)
        #expect(recorder.failed.count == 10)
    }

    @Test("a PING flood: more than maxPeerPings in the window is pingFlood")
    func pingFlood() throws {
        var configuration = HTTP2Configuration()
        configuration.maxPeerPings = 10
        let (client, recorder) = try Self.connected(configuration)
        Self.feed(client, (0..<20).flatMap { Frame.pingFrame(UInt64($0)) })
        Self.expectFailure(client, recorder, .pingFlood, goAway: .enhanceYourCalm)
    }

    @Test("a SETTINGS flood: more than maxPeerSettingsFrames in the window is settingsFlood")
    func settingsFlood() throws {
        var configuration = HTTP2Configuration()
        configuration.maxPeerSettingsFrames = 5
        let (client, recorder) = try Self.connected(configuration)
        Self.feed(client, (0..<10).flatMap { _ in Frame.settings() })
        Self.expectFailure(client, recorder, .settingsFlood, goAway: .enhanceYourCalm)
    }

    @Test("more SETTINGS entries in one frame than maxSettingsEntries is settingsFlood")
    func tooManySettingsEntries() throws {
        let (client, recorder) = try Self.connected()
        Self.feed(client, Frame.settings((0..<40).map { _ in (0x3, 100) }))
        Self.expectFailure(client, recorder, .settingsFlood, goAway: .enhanceYourCalm)
        #expect(recorder.connectionError?.detail == "40 entries in one SETTINGS frame, limit 32")
    }

    @Test("acknowledgements piling up unwritten: ackFlood")
    func ackFlood() throws {
        var configuration = HTTP2Configuration()
        configuration.maxOutboundAcks = 10
        configuration.maxPeerPings = 10_000
        let (client, recorder) = try Self.connected(configuration)
        Self.feed(client, (0..<50).flatMap { Frame.pingFrame(UInt64($0)) })
        #expect(recorder.connectionError?.kind == .ackFlood)
        #expect(recorder.errors[1]?.kind == .ackFlood)
    }

    @Test("DATA beyond the stream's window: that stream fails with flowControlError (RST_STREAM), the connection stays")
    func flowControlViolation() throws {
        var configuration = HTTP2Configuration()
        configuration.initialStreamWindowSize = 1000
        let (client, recorder) = try Self.connected(configuration, streams: 2)
        let head = Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: 1, payload: Frame.status200)
        // Our SETTINGS are acknowledged first, so the stream's window is
        // 1000 bytes; 5000 break it (the connection's 16 MiB are fine).
        let data = Frame.make(type: Frame.data, stream: 1, payload: Array(repeating: 0, count: 5000))
        Self.feed(client, Frame.make(type: Frame.settings, flags: Frame.ack) + head + data)
        #expect(recorder.connectionError == nil)
        #expect(recorder.errors[1] == HTTP2Error(.flowControlError, errorCode: .flowControlError))
        #expect(recorder.errors[1]?.urlError.code == .badServerResponse)
        let reset = Frame.parse(Self.output(client)).first { $0.type == Frame.rstStream }
        #expect(reset?.stream == 1)
        #expect(reset?.payload == Frame.bigEndian(HTTP2ErrorCode.flowControlError.rawValue))
        #expect(client.canOpenStreams)
        #expect(client.openStreamCount == 1)
    }

    @Test("DATA on stream 0: protocolError with nghttp2's reason")
    func dataOnStreamZero() throws {
        let (client, recorder) = try Self.connected()
        Self.feed(client, Frame.make(type: Frame.data, stream: 0, payload: [1, 2, 3]))
        #expect(recorder.connectionError?.kind == .protocolError)
        #expect(recorder.connectionError?.detail == "DATA: stream_id == 0")
        #expect(Frame.goAwayCode(in: Self.output(client)) == HTTP2ErrorCode.protocolError.rawValue)
    }

    @Test("after a failure, input is ignored and nothing more is reported")
    func inputAfterFailureIgnored() throws {
        var configuration = HTTP2Configuration()
        configuration.maxPeerPings = 1
        let (client, recorder) = try Self.connected(configuration)
        Self.feed(client, Frame.pingFrame(1) + Frame.pingFrame(2))
        let count = recorder.records.count
        Self.feed(client, Frame.make(type: Frame.headers, flags: Frame.endHeaders | Frame.endStream, stream: 1, payload: Frame.status200))
        #expect(recorder.records.count == count)
    }
}


@Suite("HTTP/2 cancelled streams and the connection window")
struct HTTP2CancelWindowTests {
    @Test("DATA for a cancelled stream still returns to the connection's window, so the other streams keep flowing")
    func cancelledStreamDoesNotLeakConnectionWindow() throws {
        var configuration = HTTP2Configuration()
        configuration.connectionWindowSize = 65_535
        configuration.initialStreamWindowSize = 65_535
        let (client, recorder) = try HTTP2HostilePeerTests.connected(configuration, streams: 2)
        client.cancelStream(HTTP2StreamID(1))
        _ = HTTP2HostilePeerTests.output(client)  // RST_STREAM(CANCEL) written: stream 1 is closed
        let heads = Frame.make(type: Frame.settings, flags: Frame.ack)
            + Frame.make(type: Frame.headers, flags: Frame.endHeaders, stream: 3, payload: Frame.status200)
        HTTP2HostilePeerTests.feed(client, heads)
        // In flight when the reset left: 4 × 15,000 bytes for stream 1,
        // which nghttp2 ignores; then 4 × 15,000 for stream 3. Together
        // they exceed 65,535: only a returned window lets them in.
        var bytes: [UInt8] = []
        for _ in 0..<4 { bytes += Frame.make(type: Frame.data, stream: 1, payload: Array(repeating: 1, count: 15_000)) }
        HTTP2HostilePeerTests.feed(client, bytes)
        _ = HTTP2HostilePeerTests.output(client)
        bytes = []
        for _ in 0..<4 { bytes += Frame.make(type: Frame.data, stream: 3, payload: Array(repeating: 3, count: 15_000)) }
        HTTP2HostilePeerTests.feed(client, bytes)
        #expect(recorder.connectionError == nil)
        #expect(recorder.bodies[3]?.count == 60_000)
        #expect(recorder.bodies[1] == nil)
    }
}
