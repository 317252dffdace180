// Fuzzes the WebSocket frame parser and message reader of
// UVCombineWebSocketCore (WebSocketFrameDecoder under
// WebSocketMessageReader), with and without permessage-deflate.
//
// Input: 5 bytes of setting, then the bytes a peer sent.
//   byte 0  bit 0 permessage-deflate negotiated
//           bit 1 server_no_context_takeover (the reader resets its window)
//           bit 2 frames must be masked (the reader is a server's)
//           bit 3 a 1 MiB message limit instead of bytes 1-2
//   1-2     maximumMessageSize (0-65535), little-endian
//   3-4     the seed of the random splits and of the re-encoding
//
// Properties:
// - No crash, no trap, no sanitizer report (ASan, libFuzzer's RSS limit).
// - Split invariance: the events and the error are the same whether the
//   bytes arrive at once, in random chunks or a byte at a time.
// - Limits respected: every message fits maximumMessageSize, control
//   payloads have at most 125 bytes, text messages and close reasons are
//   UTF-8 (checked by the standard library's validator, not ours), close
//   codes are ones a peer may send, every error is 1002, 1007 or 1009.
// - Bounded memory: after the reader has drained what arrived, it buffers
//   less than one maximal frame (14 header bytes + the limit), however
//   long the frame announced.
// - Round trip: every message read, encoded again (compressed when
//   deflate is on, in random fragments, masked as the reader expects, with
//   a ping between fragments), reads back as the same events.
import FuzzSupport
import UVCombineWebSocketCore

/// The reader's settings, from the input's first bytes.
struct ReaderSetup {
    var compression: PerMessageDeflate.Parameters?
    var expectsMasked = false
    var maximumMessageSize = 0

    func makeReader() -> WebSocketMessageReader {
        var reader = WebSocketMessageReader(maximumMessageSize: maximumMessageSize, expectsMasked: expectsMasked)
        if let compression {
            do { try reader.enableCompression(compression) } catch { fuzzCheck(false, "enableCompression failed: \(error)") }
        }
        return reader
    }
}

/// Everything a run produced: the events in order and the error, if any.
struct ReaderTranscript: Equatable, CustomStringConvertible {
    var events: [WebSocketMessageReader.Event] = []
    var error: WebSocketProtocolError?

    var description: String {
        let shown = events.prefix(8).map { event -> String in
            switch event {
            case .message(let opcode, let bytes): "\(opcode) \(bytes.count) bytes \(quotedBytes(bytes.prefix(32)))"
            case .ping(let bytes): "ping \(quotedBytes(bytes))"
            case .pong(let bytes): "pong \(quotedBytes(bytes))"
            case .close(let frame): "close \(frame.code.rawValue) \(quotedBytes(frame.reasonBytes))"
            }
        }
        return "events \(events.count): \(shown.joined(separator: "; ")), error \(error.map(String.init(describing:)) ?? "none")"
    }
}

/// Feeds `stream` cut at `cuts`, draining the reader after each chunk, and
/// checks the memory bound after each drain.
func run(_ stream: [UInt8], cuts: [Int], setup: ReaderSetup) -> ReaderTranscript {
    var reader = setup.makeReader()
    var transcript = ReaderTranscript()
    var start = 0
    for end in cuts + [stream.count] {
        stream[start..<end].withUnsafeBytes { reader.append($0) }
        start = end
        do {
            while let event = try reader.next() { transcript.events.append(event) }
        } catch {
            transcript.error = error
            return transcript
        }
        fuzzCheck(
            reader.bufferedByteCount < 14 + setup.maximumMessageSize,
            "the reader buffers \(reader.bufferedByteCount) bytes, more than one frame of the limit \(setup.maximumMessageSize)"
        )
    }
    return transcript
}

/// The limits every accepted event must respect.
func checkLimits(_ transcript: ReaderTranscript, setup: ReaderSetup) {
    for event in transcript.events {
        switch event {
        case .message(let opcode, let bytes):
            fuzzCheck(bytes.count <= setup.maximumMessageSize, "a message of \(bytes.count) bytes passed the limit \(setup.maximumMessageSize)")
            fuzzCheck(opcode == .text || opcode == .binary, "a message with opcode \(opcode)")
            if opcode == .text {
                fuzzCheck(String(validating: bytes, as: UTF8.self) != nil, "a text message that is not UTF-8: \(quotedBytes(bytes.prefix(64)))")
            }
        case .ping(let bytes), .pong(let bytes):
            fuzzCheck(bytes.count <= 125, "a control frame of \(bytes.count) bytes")
        case .close(let frame):
            fuzzCheck(frame.reasonBytes.count <= 123, "a close reason of \(frame.reasonBytes.count) bytes")
            fuzzCheck(String(validating: frame.reasonBytes, as: UTF8.self) != nil, "a close reason that is not UTF-8")
            let code = frame.code.rawValue
            fuzzCheck(
                code == 1005 || [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014].contains(code)
                    || (3000...4999).contains(code),
                "a close code a peer may not send was accepted: \(code)"
            )
        }
    }
    if let error = transcript.error {
        let code = error.closeCode
        fuzzCheck(code == .protocolError || code == .invalidFramePayloadData || code == .messageTooBig,
                  "an error with close code \(code): \(error)")
    }
}

/// The messages and pings of `events`, encoded again as a peer would send
/// them: compressed if `setup` has deflate, in random fragments, masked if
/// the reader expects it, with a ping between some fragments.
func reencode(_ events: [WebSocketMessageReader.Event], setup: ReaderSetup, seed: UInt64) -> (bytes: [UInt8], expected: [WebSocketMessageReader.Event]) {
    var generator = SplitMix64(seed: seed ^ 0xF4A3E)
    var encoder = WebSocketFrameEncoder(masks: setup.expectsMasked)
    let compressor: DeflateCompressor?
    do {
        // The reader resets its window after each message when the server
        // said server_no_context_takeover, so the peer's compressor must too.
        compressor = try setup.compression.map { try DeflateCompressor(windowBits: 15, noContextTakeover: $0.serverNoContextTakeover) }
    } catch {
        fuzzCheck(false, "DeflateCompressor failed: \(error)")
        return ([], [])
    }
    var out: [UInt8] = []
    var expected: [WebSocketMessageReader.Event] = []
    for event in events {
        switch event {
        case .message(let opcode, let bytes):
            var payload = bytes
            if let compressor {
                do { payload = try compressor.compress(bytes) } catch { fuzzCheck(false, "compress failed: \(error)") }
            }
            var offset = 0
            var first = true
            repeat {
                // At most the limit per frame: the reader refuses a frame
                // whose payload alone passes it, compressed or not.
                let size = min(payload.count - offset, 1 + generator.next(below: max(payload.count, 1)),
                               max(setup.maximumMessageSize, 1))
                let fin = offset + size == payload.count
                encoder.encode(first ? opcode : .continuation, payload: Array(payload[offset..<offset + size]), fin: fin,
                               rsv1: first && compressor != nil, into: &out)
                offset += size
                if !fin && generator.next(below: 3) == 0 {
                    encoder.encode(.ping, payload: [0x70], into: &out)
                    expected.append(.ping([0x70]))
                }
                first = false
            } while offset < payload.count
            expected.append(event)
        case .ping(let bytes), .pong(let bytes):
            let isPing: Bool
            if case .ping = event { isPing = true } else { isPing = false }
            encoder.encode(isPing ? .ping : .pong, payload: bytes, into: &out)
            expected.append(event)
        case .close:
            return (out, expected)
        }
    }
    return (out, expected)
}

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let flags = input.byte()
    var setup = ReaderSetup()
    if flags & 1 != 0 {
        var parameters = PerMessageDeflate.Parameters()
        parameters.serverNoContextTakeover = flags & 2 != 0
        setup.compression = parameters
    }
    setup.expectsMasked = flags & 4 != 0
    let limit = Int(input.uint16())
    setup.maximumMessageSize = flags & 8 != 0 ? 1 << 20 : limit
    let seed = UInt64(input.uint16())
    let stream = input.rest()

    let whole = run(stream, cuts: [], setup: setup)
    checkLimits(whole, setup: setup)
    let split = run(stream, cuts: Splits.random(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(split == whole, "a random split changed the result\nwhole: \(whole)\nsplit: \(split)")
    let fine = run(stream, cuts: Splits.fine(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(fine == whole, "a fine split changed the result\nwhole: \(whole)\nfine:  \(fine)")

    // The round trip: one compressor for all messages, taking its window
    // over between messages exactly when the reader does.
    // A compressed empty message is one byte: with a limit of 0 it cannot
    // be sent, so that case has no round trip.
    guard setup.compression == nil || setup.maximumMessageSize > 0 else { return }
    let (bytes, expected) = reencode(whole.events, setup: setup, seed: seed)
    let again = run(bytes, cuts: Splits.random(count: bytes.count, seed: seed ^ 0x77), setup: setup)
    fuzzCheck(
        again.error == nil && again.events == expected,
        "the events encoded again do not read back the same\nexpected: \(ReaderTranscript(events: expected))\nread:     \(again)"
    )
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
