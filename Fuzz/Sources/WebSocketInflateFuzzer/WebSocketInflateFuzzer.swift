// Fuzzes the permessage-deflate inflate path of UVCombineWebSocketCore
// (DeflateDecompressor), on arbitrary bytes and on what DeflateCompressor
// produced.
//
// Input: 5 bytes of setting, then up to four length-prefixed messages
// (one byte of length, then the bytes) and the rest as a last message.
//   byte 0  bit 0 no context takeover (both sides reset after a message)
//           bit 1 the limit in KiB (up to 64 MiB) instead of bytes
//           bits 4-6 the compressor's window bits (9 + n % 7)
//   1-2     the inflated size limit, little-endian
//   3-4     the seed of the random splits
//
// Properties:
// - No crash, no trap, no sanitizer report; memory bounded by the limit
//   (libFuzzer's RSS limit catches a bomb that is not stopped).
// - Limit respected: a message never holds more than the limit, and a
//   message that would exceed it fails with 1009; bytes that are not
//   DEFLATE fail with 1007; nothing else.
// - Split invariance: inflating a message in random pieces succeeds
//   exactly when inflating it at once does, with the same bytes.
// - Round trip: the messages, compressed (context taken over or not,
//   any window), inflate in random pieces to the same bytes.
import FuzzSupport
import UVCombineWebSocketCore

/// Inflates `messages` in order with one decompressor (so the window
/// carries over unless `noContextTakeover`), each cut at random places.
/// Returns each message's bytes or error; stops at the first error, as a
/// connection would.
func inflate(_ messages: [[UInt8]], noContextTakeover: Bool, limit: Int, seed: UInt64, split: Bool) -> [Result<[UInt8], WebSocketProtocolError>] {
    let inflater: DeflateDecompressor
    do { inflater = try DeflateDecompressor(noContextTakeover: noContextTakeover) } catch {
        fuzzCheck(false, "DeflateDecompressor failed: \(error)")
        return []
    }
    var results: [Result<[UInt8], WebSocketProtocolError>] = []
    for (index, message) in messages.enumerated() {
        var output: [UInt8] = []
        let cuts = split ? Splits.random(count: message.count, seed: seed &+ UInt64(index)) : []
        var start = 0
        do throws(WebSocketProtocolError) {
            for end in cuts + [message.count] {
                // withUnsafeBytes rethrows untyped: the error comes out through a local.
                var failure: WebSocketProtocolError?
                message[start..<end].withUnsafeBytes { raw in
                    do throws(WebSocketProtocolError) { try inflater.inflate(raw, into: &output, limit: limit) } catch { failure = error }
                }
                if let failure { throw failure }
                start = end
                fuzzCheck(output.count <= limit, "an inflated message of \(output.count) bytes passed the limit \(limit)")
            }
            try inflater.finishMessage(into: &output, limit: limit)
            fuzzCheck(output.count <= limit, "an inflated message of \(output.count) bytes passed the limit \(limit)")
            results.append(.success(output))
        } catch {
            fuzzCheck(output.count <= limit, "a failed message holds \(output.count) bytes, past the limit \(limit)")
            fuzzCheck(error.closeCode == .messageTooBig || error.closeCode == .invalidFramePayloadData,
                      "inflating failed with close code \(error.closeCode): \(error)")
            results.append(.failure(error))
            return results
        }
    }
    return results
}

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let flags = input.byte()
    let noContextTakeover = flags & 1 != 0
    let rawLimit = Int(input.uint16())
    let limit = flags & 2 != 0 ? rawLimit * 1024 : rawLimit
    let windowBits = 9 + Int((flags >> 4) & 7) % 7
    let seed = UInt64(input.uint16())
    var messages: [[UInt8]] = []
    for _ in 0..<4 where input.remaining > 0 { messages.append(input.lengthPrefixed()) }
    if input.remaining > 0 { messages.append(input.rest()) }

    // Arbitrary bytes as compressed messages.
    let whole = inflate(messages, noContextTakeover: noContextTakeover, limit: limit, seed: seed, split: false)
    let pieces = inflate(messages, noContextTakeover: noContextTakeover, limit: limit, seed: seed, split: true)
    fuzzCheck(whole.count == pieces.count, "splitting changed how many messages inflated: \(whole.count) at once, \(pieces.count) in pieces")
    for (atOnce, split) in zip(whole, pieces) {
        switch (atOnce, split) {
        case (.success(let a), .success(let b)):
            fuzzCheck(a == b, "splitting changed the inflated bytes: \(a.count) vs \(b.count) bytes")
        case (.failure, .failure):
            break
        default:
            fuzzCheck(false, "splitting changed whether a message inflates: at once \(atOnce), in pieces \(split)")
        }
    }

    // The messages as plain text, compressed and inflated again.
    let compressor: DeflateCompressor
    do { compressor = try DeflateCompressor(windowBits: windowBits, noContextTakeover: noContextTakeover) } catch {
        fuzzCheck(false, "DeflateCompressor failed: \(error)")
        return
    }
    var compressed: [[UInt8]] = []
    for message in messages {
        do { compressed.append(try compressor.compress(message)) } catch {
            fuzzCheck(false, "compressing \(message.count) bytes failed: \(error)")
            return
        }
    }
    let roundTrip = inflate(compressed, noContextTakeover: noContextTakeover, limit: 1 << 20, seed: seed ^ 0xD0, split: true)
    fuzzCheck(roundTrip.count == messages.count, "a compressed message did not inflate: \(roundTrip.last.map(String.init(describing:)) ?? "")")
    for (index, result) in roundTrip.enumerated() {
        fuzzCheck((try? result.get()) == messages[index],
                  "message \(index) of \(messages[index].count) bytes (window bits \(windowBits)) came back as \(result)")
    }
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
