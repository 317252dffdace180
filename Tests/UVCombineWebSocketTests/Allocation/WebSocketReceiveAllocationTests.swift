import Testing
import UVCombineTesting
import UVCombineWebSocketCore

/// The borrowing receive path allocates nothing per message once its
/// buffers have grown: the reader lends each message from the bytes
/// received (one frame) or from its reused message buffer (fragments,
/// permessage-deflate). Counted with the thread-local malloc counter;
/// release builds only. End to end (socket, loop, task) the same figure
/// is WebSocketBenchmarks' `receive16B.borrowed` (websocket.json limit 0).
@Suite("WebSocket receive allocations",
       .enabled(if: isOptimizedBuild && AllocationCounter.isCounting, "allocation counts are meaningful only with -c release"))
struct WebSocketReceiveAllocationTests {
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
        var encoder = WebSocketFrameEncoder(masks: false)
        var out: [UInt8] = []
        encoder.encode(opcode, payload: payload, fin: fin, rsv1: rsv1, into: &out)
        return out
    }

    /// Feeds `batch` (a read's worth of frames) `rounds` times and reads
    /// every message with `nextBorrowed()`; returns mallocs per message.
    static func mallocsPerMessage(_ batch: [UInt8], messagesPerBatch: Int,
                                  compression: PerMessageDeflate.Parameters? = nil) throws -> Double {
        var reader = WebSocketMessageReader(maximumMessageSize: 1 << 20)
        if let compression { try reader.enableCompression(compression) }
        var total = 0
        func round() throws {
            batch.withUnsafeBytes { reader.append($0) }
            while let event = try reader.nextBorrowed() {
                if case .message = event { total &+= reader.withPayload { $0.count } }
            }
        }
        for _ in 0..<100 { try round() }
        let rounds = 1_000
        var failure: (any Error)?
        let mallocs = AllocationCounter.count {
            do { for _ in 0..<rounds { try round() } } catch { failure = error }
        }
        if let failure { throw failure }
        #expect(total > 0)
        return Double(mallocs) / Double(rounds * messagesPerBatch)
    }

    @Test("16-byte binary and text messages, eight per read: no malloc per message")
    func smallMessages() throws {
        var batch: [UInt8] = []
        for index in 0..<8 {
            batch += Self.frame(index % 2 == 0 ? .binary : .text, Array("0123456789abcdef".utf8))
        }
        let perMessage = try Self.mallocsPerMessage(batch, messagesPerBatch: 8)
        print("WebSocket reader, 16 B messages lent: \(perMessage) mallocs per message")
        #expect(perMessage == 0)
    }

    @Test("a message of nearly 64 KiB in one frame: no malloc per message")
    func largeMessage() throws {
        let batch = Self.frame(.binary, [UInt8](repeating: 7, count: 64 * 1024 - 16))
        #expect(try Self.mallocsPerMessage(batch, messagesPerBatch: 1) == 0)
    }

    @Test("fragmented messages with a ping between fragments: no malloc per message")
    func fragments() throws {
        let batch = Self.frame(.text, Array("Hello, ".utf8), fin: false) + Self.frame(.ping, [1])
            + Self.frame(.continuation, Array("world".utf8))
        #expect(try Self.mallocsPerMessage(batch, messagesPerBatch: 1) == 0)
    }

    @Test("compressed messages (context takeover off, the same bytes each time): no malloc per message")
    func compressed() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: true)
        let batch = Self.frame(.text, try compressor.compress(Array(String(repeating: "hello ", count: 20).utf8)), rsv1: true)
        var parameters = PerMessageDeflate.Parameters()
        parameters.serverNoContextTakeover = true
        #expect(try Self.mallocsPerMessage(batch, messagesPerBatch: 1, compression: parameters) == 0)
    }
}
