import Testing
@testable import UVCombineWebSocketCore

/// Seeded random inputs for the frame parser and the inflate path (a
/// deterministic stand-in for a fuzzer, which is not done): valid frame
/// streams with bytes flipped, cut and repeated, fed in random splits. The
/// reader must either produce events or throw a `WebSocketProtocolError`
/// with one of the RFC's codes, never trap, and never hand out a message
/// beyond its limit.
@Suite("WebSocket reader robustness")
struct WebSocketReaderRobustnessTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A valid server stream: text, binary, fragmented, compressed, control frames.
    static func seedStream(_ random: inout SplitMix, compressor: DeflateCompressor) throws -> [UInt8] {
        var encoder = WebSocketFrameEncoder(masks: false)
        var out: [UInt8] = []
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let length = Int.random(in: 0...300, using: &random)
            let payload = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) }
            switch Int.random(in: 0...4, using: &random) {
            case 0: encoder.encode(.text, payload: payload, into: &out)
            case 1: encoder.encode(.binary, payload: payload, into: &out)
            case 2:
                encoder.encode(.text, payload: Array(payload.prefix(length / 2)), fin: false, into: &out)
                encoder.encode(.ping, payload: [1, 2, 3], into: &out)
                encoder.encode(.continuation, payload: Array(payload.dropFirst(length / 2)), into: &out)
            case 3: encoder.encode(.binary, payload: try compressor.compress(payload), rsv1: true, into: &out)
            default: encoder.encode(.pong, payload: Array(payload.prefix(125)), into: &out)
            }
        }
        return out
    }

    @Test("3,000 mutated streams: events or a close code from the RFC, messages within the limit")
    func mutatedStreams() throws {
        var random = SplitMix(state: 34)
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: false)
        let codes: Set<WebSocketCloseCode> = [.protocolError, .invalidFramePayloadData, .messageTooBig]
        var failures = 0
        var events = 0
        for _ in 0..<3_000 {
            var bytes = try Self.seedStream(&random, compressor: compressor)
            for _ in 0..<Int.random(in: 0...4, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                case 1: bytes.removeSubrange(index...)
                default: bytes.insert(contentsOf: bytes[index..<min(index + 8, bytes.count)], at: index)
                }
            }
            var reader = WebSocketMessageReader(maximumMessageSize: 200)
            try reader.enableCompression(PerMessageDeflate.Parameters())
            var offset = 0
            do throws(WebSocketProtocolError) {
                while offset < bytes.count {
                    let end = min(bytes.count, offset + Int.random(in: 1...64, using: &random))
                    bytes[offset..<end].withUnsafeBytes { reader.append($0) }
                    offset = end
                    while let event = try reader.next() {
                        events += 1
                        if case .message(_, let message) = event, message.count > 200 {
                            Issue.record("a message of \(message.count) bytes passed a limit of 200")
                        }
                    }
                }
            } catch {
                failures += 1
                #expect(codes.contains(error.closeCode), "\(error)")
            }
        }
        // Both outcomes happen: the test exercises both paths.
        #expect(failures > 150 && events > 150, "failures \(failures), events \(events)")
    }
}
