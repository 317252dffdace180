import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The parser's events must not depend on how the bytes were cut into
/// chunks: for every response, parsing it whole, split at every single
/// position, and split at many random positions gives the same events
/// (adjacent body events merged).
@Suite("HTTPResponseParser chunking")
struct HTTPResponseParserSplitTests {
    /// `bytes` cut at the given sorted positions.
    static func chunks(_ bytes: [UInt8], cuts: [Int]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            result.append(Array(bytes[start..<cut]))
            start = cut
        }
        return result
    }

    /// Checks one response against its expected events, whole and split.
    static func checkAllSplits(
        _ bytes: [UInt8],
        expected: [Seen],
        random: inout SplitMix64,
        run: ([[UInt8]]) -> [Seen]
    ) {
        let whole = run([bytes])
        #expect(whole == expected, "unsplit")
        guard whole == expected else { return }
        for cut in 0...bytes.count {
            let split = run(chunks(bytes, cuts: [cut]))
            if split != expected {
                Issue.record("split at \(cut): \(split) instead of \(expected)")
                return
            }
        }
        for _ in 0..<20 where bytes.count > 1 {
            let cutCount = Int.random(in: 1...min(12, bytes.count), using: &random)
            var cuts: [Int] = []
            for _ in 0..<cutCount { cuts.append(Int.random(in: 0...bytes.count, using: &random)) }
            cuts.sort()
            let split = run(chunks(bytes, cuts: cuts))
            if split != expected {
                Issue.record("cuts at \(cuts): \(split) instead of \(expected)")
                return
            }
        }
        // One byte at a time.
        let single = run(bytes.map { [$0] })
        #expect(single == expected, "byte by byte")
    }

    @Test(arguments: validParserCases + malformedParserCases)
    func corpusIsSplitInvariant(_ c: ParserCase) {
        var random = SplitMix64(seed: 0xC0FFEE)
        Self.checkAllSplits(Array(c.input.utf8), expected: c.expected, random: &random) { c.run(chunks: $0) }
    }

    @Test func generatedResponsesMatchTheOracleAtEverySplit() {
        var random = SplitMix64(seed: 20_240_601)
        // Debug builds are slow on the shared machine; release runs more.
        for _ in 0..<(isOptimizedBuild ? 500 : 60) {
            let generated = GeneratedResponse.make(using: &random)
            Self.checkAllSplits(generated.bytes, expected: generated.expected, random: &random) { chunks in
                parse(chunks: chunks, methods: generated.methods, eof: generated.eof)
            }
        }
    }
}

/// A random well-formed response (or two on one connection) and the
/// events an independent reading of RFC 9112 expects from it.
struct GeneratedResponse {
    var bytes: [UInt8] = []
    var expected: [Seen] = []
    var methods: [HTTPRequest.Method] = []
    var eof = false

    static let names = ["Server", "Date", "X-Request-Id", "Cache-Control", "ETag", "Vary", "x-lower", "X-Empty", "Set-Cookie"]
    static let reasons = ["OK", "Created", "Not Found", "Internal Server Error", "", "Whatever You Like"]
    static let statuses = [200, 200, 200, 201, 204, 301, 304, 404, 500]

    static func make(using random: inout SplitMix64) -> GeneratedResponse {
        var result = GeneratedResponse()
        let count = Int.random(in: 0..<5, using: &random) == 0 ? 2 : 1
        for index in 0..<count {
            let last = index == count - 1
            let keepGoing = result.append(using: &random, mayCloseDelimit: last)
            if !keepGoing { break }
        }
        return result
    }

    /// Appends one response; returns whether the connection stays usable.
    mutating func append(using random: inout SplitMix64, mayCloseDelimit: Bool) -> Bool {
        let isHTTP10 = Int.random(in: 0..<5, using: &random) == 0
        let isHead = Int.random(in: 0..<6, using: &random) == 0
        let status = Self.statuses.randomElement(using: &random)!
        let reason = Self.reasons.randomElement(using: &random)!
        methods.append(isHead ? .head : .get)

        var text = ""
        if Bool.random(using: &random) {
            text += "HTTP/1.1 100 Continue\r\n\r\n"
        }
        text += "HTTP/\(isHTTP10 ? "1.0" : "1.1") \(status)"
        if !reason.isEmpty || Bool.random(using: &random) { text += " \(reason)" }
        text += "\r\n"

        var fields: [String] = []
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            let name = Self.names.randomElement(using: &random)!
            let value = name == "X-Empty" ? "" : Self.value(using: &random)
            let padding = [" ", "", "  ", "\t"].randomElement(using: &random)!
            text += "\(name):\(padding)\(value)\(Bool.random(using: &random) ? " " : "")\r\n"
            fields.append("\(name): \(value)")
        }
        let connection = ["", "close", "keep-alive", "Keep-Alive, Upgrade"].randomElement(using: &random)!
        if !connection.isEmpty {
            text += "Connection: \(connection)\r\n"
            fields.append("Connection: \(connection)")
        }

        let body = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let noBody = isHead || status == 204 || status == 304
        enum Framing { case length, chunked, close }
        var framing: Framing = [.length, .length, .chunked, .close].randomElement(using: &random)!
        if framing == .close && (!mayCloseDelimit || noBody) { framing = .length }

        var bodyBytes: [UInt8] = []
        switch framing {
        case .length:
            text += "Content-Length: \(body.count)\r\n"
            fields.append("Content-Length: \(body.count)")
            bodyBytes = body
        case .chunked:
            text += "Transfer-Encoding: chunked\r\n"
            fields.append("Transfer-Encoding: chunked")
            var rest = body[...]
            while !rest.isEmpty {
                let size = min(rest.count, Int.random(in: 1...80, using: &random))
                var line = String(size, radix: 16, uppercase: Bool.random(using: &random))
                if Bool.random(using: &random) { line += ";ext=\(size)" }
                bodyBytes += Array("\(line)\r\n".utf8) + rest.prefix(size) + Array("\r\n".utf8)
                rest = rest.dropFirst(size)
            }
            bodyBytes += Array("0\r\n".utf8)
            if Bool.random(using: &random) { bodyBytes += Array("X-Trailer: \(Self.value(using: &random))\r\n".utf8) }
            bodyBytes += Array("\r\n".utf8)
        case .close:
            bodyBytes = body
            eof = true
        }
        text += "\r\n"

        bytes += Array(text.utf8)
        if !noBody { bytes += bodyBytes }

        let connectionClose = connection.lowercased().contains("close")
        let connectionKeepAlive = connection.lowercased().contains("keep-alive")
        var keepAlive = isHTTP10 ? connectionKeepAlive && !connectionClose : !connectionClose
        if isHTTP10 && framing == .chunked { keepAlive = false }
        if framing == .close { keepAlive = false }

        expected.append(.head(status, reason, fields))
        if !noBody && !body.isEmpty { expected.append(.body(body)) }
        expected.append(.end(keepAlive: keepAlive))
        return keepAlive
    }

    /// A field value: visible ASCII with inner spaces, no outer whitespace.
    static func value(using random: inout SplitMix64) -> String {
        let length = Int.random(in: 1...40, using: &random)
        var scalars: [Character] = []
        for position in 0..<length {
            let inner = position > 0 && position < length - 1
            if inner && Int.random(in: 0..<6, using: &random) == 0 {
                scalars.append(" ")
            } else {
                scalars.append(Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &random))))
            }
        }
        return String(scalars)
    }
}
