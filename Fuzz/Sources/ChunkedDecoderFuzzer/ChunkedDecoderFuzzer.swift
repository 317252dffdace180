// Fuzzes the chunked body decoding of HTTPResponseParser: a fixed head
// (`Transfer-Encoding: chunked`), then fuzzer bytes as the body.
//
// Input: 7 bytes of setting, then the body bytes.
//   byte 0  bit 0 tight limits from bytes 1-4
//   1-4     maximumHeaderBytes (64 + n; the head needs 47), maximumHeaderCount
//           (1 + n % 8; the head has one field), maximumChunkLineLength
//           (1 + n % 32), maximumBodyLength (n)
//   5-6     the seed of the random split and of the re-encoding
//
// Properties:
// - Split invariance, as for the response parser (one chunk, random chunks,
//   finely).
// - Differential: the parser agrees with ReferenceChunkedDecoder (a plain
//   whole-buffer decoder of RFC 9112 section 7.1) on the body bytes, on
//   whether the body ended, and on the error code.
// - Round trip: an accepted body, chunked again at random sizes with random
//   chunk extensions, decodes to the same bytes.
import FuzzSupport
import HTTPTypes
import UVCombineHTTPCore

/// The head every input's body follows.
let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let flags = input.byte()
    var setup = ParserSetup()
    let limits = input.bytes(4)
    if flags & 1 != 0 && limits.count == 4 {
        setup.configuration.maximumHeaderBytes = 64 + Int(limits[0])
        setup.configuration.maximumHeaderCount = 1 + Int(limits[1] % 8)
        setup.configuration.maximumChunkLineLength = 1 + Int(limits[2] % 32)
        setup.configuration.maximumBodyLength = Int(limits[3])
    }
    let seed = UInt64(input.uint16())
    let body = input.rest()
    let stream = head + body

    let whole = ResponseParserRun.run(stream, cuts: [], setup: setup)
    let split = ResponseParserRun.run(stream, cuts: Splits.random(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(split == whole, "a random split changed the result\nwhole: \(whole)\nsplit: \(split)")
    let fine = ResponseParserRun.run(stream, cuts: Splits.fine(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(fine == whole, "a fine split changed the result\nwhole: \(whole)\nfine:  \(fine)")

    fuzzCheck(whole.responses.count == 1, "the fixed head did not parse: \(whole)")
    var parsed = ReferenceChunkedDecoder.Outcome()
    parsed.body = whole.responses[0].body
    parsed.ended = whole.responses[0].keepAlive != nil
    parsed.error = whole.error?.code
    let reference = ReferenceChunkedDecoder(configuration: setup.configuration).decode(body)
    fuzzCheck(
        parsed == reference,
        "the parser and the reference decoder disagree\nbody:      \(quotedBytes(body))\nparser:    \(parsed) (\(whole.error.map(String.init(describing:)) ?? "no error"))\nreference: \(reference)"
    )

    guard parsed.ended else { return }
    // Chunk the decoded body again, differently, and decode it.
    var generator = SplitMix64(seed: seed ^ 0x5EED)
    var encoded: [UInt8] = []
    var offset = 0
    let decoded = parsed.body
    while offset < decoded.count {
        let size = 1 + generator.next(below: min(decoded.count - offset, 300))
        encoded += Array(String(size, radix: 16, uppercase: generator.next(below: 2) == 0).utf8)
        if generator.next(below: 4) == 0 { encoded += Array(" ;name=\"v a l\";x".utf8) }
        encoded += [0x0D, 0x0A] + decoded[offset..<offset + size] + [0x0D, 0x0A]
        offset += size
    }
    encoded += Array("0\r\nX-Checksum: \(decoded.count)\r\n\r\n".utf8)
    let again = ResponseParserRun.run(head + encoded, cuts: [], setup: ParserSetup())
    fuzzCheck(
        again.error == nil && again.responses.count == 1 && again.responses[0].body == decoded,
        "the body chunked again does not decode to the same bytes\nencoded: \(quotedBytes(encoded))\n\(again)"
    )
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
