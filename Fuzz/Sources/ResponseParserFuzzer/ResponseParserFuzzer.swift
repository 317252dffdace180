// Fuzzes HTTPResponseParser with whole responses (and several on one
// connection), delivered in arbitrary splits.
//
// Input: 8 bytes of setting, then the bytes the server sends.
//   byte 0  bit 0 HEAD request (else GET); bit 1 the request said
//           `Connection: close`; bits 2-3 up to 1-4 requests on the
//           connection; bit 4 the server keeps the connection open at the
//           end (no `endOfInput()`); bit 5 tight limits from bytes 1-5
//   1-5     maximumHeaderBytes, maximumHeaderCount, maximumStatusLineLength,
//           maximumChunkLineLength, maximumBodyLength (with bit 5)
//   6-7     the seed of the random split
//
// Properties:
// - Split invariance: parsed in one chunk, in random chunks (some empty) and
//   finely (one byte at a time up to 192 bytes, else at up to 96 random
//   places), the transcript (heads, joined bodies, ends and
//   keep-alive, the error with its code and detail) is identical.
// - Event contract: body slices are the bytes just consumed, no event before
//   a head or after an end, no livelock, `.needMoreData` only with all
//   bytes consumed, idle after `.end`.
// - Accepted heads are well-formed: a final status 200-999 (never 101),
//   token names, trimmed field-value bytes (never CR, LF, NUL); at most the
//   configured field count; a body that respects `Content-Length`, the
//   body limit, and is empty for HEAD, 204 and 304; `keepAlive` false when
//   either side said `Connection: close`.
// - Round trip: every complete response, written out again (one chunk for
//   a chunked body), parses to the same status, reason, fields and body.
import FuzzSupport
import HTTPTypes
import UVCombineHTTPCore

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let flags = input.byte()
    var setup = ParserSetup()
    setup.method = flags & 1 != 0 ? .head : .get
    setup.requestClosesConnection = flags & 2 != 0
    setup.exchanges = 1 + Int((flags >> 2) & 3)
    setup.closesAtEnd = flags & 16 == 0
    let limits = input.bytes(5)
    if flags & 32 != 0 && limits.count == 5 {
        setup.configuration.maximumHeaderBytes = 1 + Int(limits[0]) * 2
        setup.configuration.maximumHeaderCount = Int(limits[1] % 16)
        setup.configuration.maximumStatusLineLength = Int(limits[2])
        setup.configuration.maximumChunkLineLength = 1 + Int(limits[3] % 32)
        setup.configuration.maximumBodyLength = Int(limits[4])
    }
    let seed = UInt64(input.uint16())
    let stream = input.rest()

    let whole = ResponseParserRun.run(stream, cuts: [], setup: setup)
    let split = ResponseParserRun.run(stream, cuts: Splits.random(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(split == whole, "a random split changed the result\nwhole: \(whole)\nsplit: \(split)")
    let fine = ResponseParserRun.run(stream, cuts: Splits.fine(count: stream.count, seed: seed), setup: setup)
    fuzzCheck(fine == whole, "a fine split changed the result\nwhole: \(whole)\nfine:  \(fine)")

    let configuration = setup.configuration
    for response in whole.responses {
        fuzzCheck((200...999).contains(response.status), "final status \(response.status)")
        fuzzCheck(response.fields.count <= configuration.maximumHeaderCount, "\(response.fields.count) fields")
        for field in response.fields {
            fuzzCheck(HTTPGrammar.isToken(field.name.utf8), "field name \(quotedBytes(field.name.utf8))")
            fuzzCheck(HTTPGrammar.isTrimmedFieldValue(field.value), "field value \(field)")
        }
        if let maximum = configuration.maximumBodyLength {
            fuzzCheck(response.body.count <= maximum, "a \(response.body.count)-byte body past the limit \(maximum)")
        }
        guard let keepAlive = response.keepAlive else { continue }

        let hasNoBody = setup.method == .head || response.status == 204 || response.status == 304
        if hasNoBody {
            fuzzCheck(response.body.isEmpty, "a body for HEAD, 204 or 304: \(response)")
        } else if let length = response.fields.first(where: { HTTPGrammar.nameEquals($0.name, "Content-Length") })
            .flatMap({ HTTPGrammar.listElements($0.value).first }).flatMap(HTTPGrammar.decimal)
        {
            fuzzCheck(response.body.count == length, "Content-Length \(length), body \(response.body.count)")
        }
        let saysClose = response.fields.contains {
            HTTPGrammar.nameEquals($0.name, "Connection") && HTTPGrammar.listContains($0.value, "close")
        }
        if setup.requestClosesConnection || saysClose {
            fuzzCheck(!keepAlive, "keepAlive after Connection: close: \(response)")
        }

        let written = ResponseSerializer.serialize(response, method: setup.method.rawValue)
        var again = ParserSetup()
        again.method = setup.method
        let reparsed = ResponseParserRun.run(written, cuts: [], setup: again)
        fuzzCheck(
            reparsed.error == nil && reparsed.responses.count == 1,
            "the response written out again does not parse\nwritten: \(quotedBytes(written))\n\(reparsed)"
        )
        var expected = response
        expected.keepAlive = nil
        var got = reparsed.responses[0]
        got.keepAlive = nil
        fuzzCheck(got == expected, "round trip changed the response\nbefore: \(expected)\nafter:  \(got)")
    }
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
