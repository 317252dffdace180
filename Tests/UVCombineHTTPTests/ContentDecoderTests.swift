import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// Decodes `encoded` fed `inputStep` bytes at a time into a buffer of
/// `outputSize` bytes, as the session does, then finishes.
private func decodeAll(_ encoded: [UInt8], _ coding: ContentDecoder.Coding, inputStep: Int = .max,
                       outputSize: Int = 64 * 1024) throws(UVURLError) -> [UInt8] {
    let decoder = ContentDecoder(coding: coding)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: outputSize, alignment: 1)
    defer { output.deallocate() }
    var decoded: [UInt8] = []
    var offset = 0
    repeat {
        let end = min(encoded.count, offset + min(inputStep, encoded.count))
        let result = encoded[offset..<end].withUnsafeBytes { run -> Result<Void, UVURLError> in
            var input = run
            do throws(UVURLError) {
                while true {
                    let count = try decoder.decode(&input, into: output)
                    decoded += UnsafeRawBufferPointer(rebasing: output[..<count])
                    if input.isEmpty && count < output.count { return .success(()) }
                }
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        offset = end
    } while offset < encoded.count
    try decoder.finish()
    return decoded
}

private func response(contentEncoding values: [String]) -> HTTPResponse {
    var fields = HTTPFields()
    for value in values { fields.append(HTTPField(name: .contentEncoding, value: value)) }
    return HTTPResponse(status: .ok, headerFields: fields)
}

@Suite("ContentDecoder")
struct ContentDecoderTests {
    static let text = compressibleText(300_000)

    @Test("gzip, zlib-wrapped and raw deflate decode, whole and split at every size", arguments: CompressionFormat.allCases)
    func formats(_ format: CompressionFormat) throws {
        let coding: ContentDecoder.Coding = format == .gzip ? .gzip : .deflate
        let encoded = compressed(Self.text, format)
        #expect(encoded.count < Self.text.count / 4)
        #expect(Data(try decodeAll(encoded, coding)) == Data(Self.text))
        // Input cut anywhere (one byte at a time included: the deflate
        // header sniff sees one byte, then the next) and a small output
        // buffer that zlib fills again and again.
        for step in [1, 2, 3, 7, 1000, 4096] {
            #expect(Data(try decodeAll(encoded, coding, inputStep: step, outputSize: 1000)) == Data(Self.text), "step \(step)")
        }
        #expect(Data(try decodeAll(encoded, coding, inputStep: 1, outputSize: 1)) == Data(Self.text))
    }

    @Test("gzip labels a zlib stream too; incompressible data survives")
    func lenient() throws {
        #expect(Data(try decodeAll(compressed(Self.text, .zlib), .gzip)) == Data(Self.text))
        let noise = incompressibleBytes(100_000)
        #expect(Data(try decodeAll(compressed(noise, .gzip, level: 1), .gzip, inputStep: 1500)) == Data(noise))
        #expect(Data(try decodeAll(compressed(noise, .raw, level: 0), .deflate, inputStep: 1500)) == Data(noise))
    }

    @Test("multi-member gzip is the members' concatenation, split anywhere")
    func multiMember() throws {
        let parts = [Array("first member\n".utf8), compressibleText(70_000), [], Array("last".utf8)]
        let encoded = parts.flatMap { compressed($0, .gzip) }
        for step in [1, 5, 100, .max] {
            #expect(Data(try decodeAll(encoded, .gzip, inputStep: step, outputSize: 4096)) == Data(parts.flatMap { $0 }), "step \(step)")
        }
    }

    @Test("bytes after the last gzip member that start no member are ignored; after a deflate stream too")
    func trailingGarbage() throws {
        let encoded = compressed(Self.text, .gzip) + Array("\0\0\0garbage".utf8)
        #expect(Data(try decodeAll(encoded, .gzip)) == Data(Self.text))
        #expect(Data(try decodeAll(compressed(Self.text, .zlib) + [0, 0], .deflate, inputStep: 3)) == Data(Self.text))
    }

    @Test("an empty body decodes to nothing; so does an empty stream")
    func empty() throws {
        #expect(try decodeAll([], .gzip).isEmpty)
        #expect(try decodeAll([], .deflate).isEmpty)
        #expect(try decodeAll(compressed([], .gzip), .gzip).isEmpty)
        #expect(try decodeAll(compressed([], .raw), .deflate).isEmpty)
    }

    @Test("a corrupt stream fails with cannotDecodeContentData and zlib's reason")
    func corrupt() throws {
        var encoded = compressed(Self.text, .gzip)
        // The gzip header's magic.
        var badMagic = encoded
        badMagic[0] = 0x42
        #expect(throws: UVURLError(.cannotDecodeContentData)) { try decodeAll(badMagic, .gzip) }
        // A flipped bit in the CRC-32 trailer.
        encoded[encoded.count - 6] ^= 0x01
        do {
            _ = try decodeAll(encoded, .gzip, inputStep: 1000)
            Issue.record("a bad CRC decoded")
        } catch {
            #expect(error.code == .cannotDecodeContentData)
            #expect(error.detail == "corrupt gzip stream (zlib: incorrect data check)")
        }
        // Not compressed at all.
        #expect(throws: UVURLError(.cannotDecodeContentData)) { try decodeAll(Array("plain text, not gzip".utf8), .gzip) }
        var zlib = compressed(Self.text, .zlib)
        zlib[zlib.count - 1] ^= 0xFF // the Adler-32
        #expect(throws: UVURLError(.cannotDecodeContentData)) { try decodeAll(zlib, .deflate) }
    }

    @Test("a truncated stream fails at the end of the body", arguments: CompressionFormat.allCases)
    func truncated(_ format: CompressionFormat) throws {
        let coding: ContentDecoder.Coding = format == .gzip ? .gzip : .deflate
        let encoded = compressed(Self.text, format)
        for cut in [1, encoded.count / 2, encoded.count - 1] {
            do {
                _ = try decodeAll(Array(encoded[..<cut]), coding)
                Issue.record("\(format) cut at \(cut) decoded")
            } catch {
                #expect(error.code == .cannotDecodeContentData)
                #expect(error.detail == "the \(format == .gzip ? "gzip" : "deflate") stream is truncated")
            }
        }
    }

    @Test("one decoder reset between bodies: gzip, raw deflate, a corrupt stream, zlib, cut mid-stream, gzip")
    func reuse() throws {
        let decoder = ContentDecoder(coding: .gzip)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { output.deallocate() }
        func run(_ encoded: [UInt8], _ coding: ContentDecoder.Coding, finish: Bool = true) throws(UVURLError) -> [UInt8] {
            decoder.reset(coding: coding)
            var decoded: [UInt8] = []
            let result = encoded.withUnsafeBytes { bytes -> Result<Void, UVURLError> in
                var input = bytes
                do throws(UVURLError) {
                    while true {
                        let count = try decoder.decode(&input, into: output)
                        decoded += UnsafeRawBufferPointer(rebasing: output[..<count])
                        if input.isEmpty && count < output.count { return .success(()) }
                    }
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
            if finish { try decoder.finish() }
            return decoded
        }
        let text = compressibleText(50_000)
        #expect(Data(try run(compressed(text, .gzip), .gzip)) == Data(text))
        #expect(Data(try run(compressed(text, .raw), .deflate)) == Data(text))
        #expect(throws: UVURLError(.cannotDecodeContentData)) { try run(Array("not gzip".utf8), .gzip) }
        #expect(Data(try run(compressed(text, .zlib), .deflate)) == Data(text))
        let gzip = compressed(text, .gzip)
        _ = try run(Array(gzip[..<(gzip.count / 2)]), .gzip, finish: false)
        #expect(Data(try run(gzip, .gzip)) == Data(text))
    }

    @Test("Content-Encoding: the codings decoded, and those delivered as they came")
    func codingOfResponse() {
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["gzip"])) == .gzip)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["GZIP"])) == .gzip)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["x-gzip"])) == .gzip)
        #expect(ContentDecoder.coding(of: response(contentEncoding: [" deflate "])) == .deflate)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["identity, gzip"])) == .gzip)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["identity"])) == nil)
        #expect(ContentDecoder.coding(of: response(contentEncoding: [])) == nil)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["br"])) == nil)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["gzip, gzip"])) == nil)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["gzip", "deflate"])) == nil)
        #expect(ContentDecoder.coding(of: response(contentEncoding: ["gzip, br"])) == nil)
    }
}
