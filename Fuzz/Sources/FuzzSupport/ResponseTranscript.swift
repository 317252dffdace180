import HTTPTypes
import UVCombineHTTPCore

/// Everything observable about one response as `HTTPResponseParser`
/// reported it: the head, the body bytes joined, and how it ended.
public struct ResponseRecord: Equatable, CustomStringConvertible {
    /// The final head's status code and reason phrase.
    public var status: Int
    public var reason: String
    /// The fields in order, as name and exact value bytes.
    public var fields: [FieldRecord]
    /// Every body slice, concatenated (how the body was sliced depends on
    /// how the input was split; the bytes must not).
    public var body: [UInt8] = []
    /// `keepAlive` of the `.end` event, or `nil` when the response did not
    /// end.
    public var keepAlive: Bool? = nil

    /// The record of a parsed head.
    public init(_ response: HTTPResponse) {
        status = response.status.code
        reason = response.status.reasonPhrase
        fields = response.headerFields.map(FieldRecord.init)
    }

    public var description: String {
        "\(status) \(quotedBytes(Array(reason.utf8))) fields \(fields) "
            + "body \(body.count) bytes \(quotedBytes(body.prefix(64))) keepAlive \(String(describing: keepAlive))"
    }
}

/// A field as a name and its exact value bytes.
public struct FieldRecord: Equatable, CustomStringConvertible {
    public var name: String
    public var value: [UInt8]

    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    /// The record of a swift-http-types field (its raw name and bytes).
    public init(_ field: HTTPField) {
        name = field.name.rawName
        value = field.withUnsafeBytesOfValue { Array($0) }
    }

    public var description: String {
        "\(name): \(quotedBytes(value))"
    }
}

/// How a parser consumed a byte stream: the responses, then the error that
/// stopped it, if any.
public struct ResponseTranscript: Equatable, CustomStringConvertible {
    public var responses: [ResponseRecord] = []
    /// The error thrown by `next(_:)` or `endOfInput()`, which stops the run.
    public var error: UVURLError? = nil

    public var description: String {
        "responses \(responses)\nerror \(error.map { "\($0.code) \($0.detail ?? "")" } ?? "none")"
    }
}

/// The setting of one parser run: what the request was and what the
/// connection does after each response.
public struct ParserSetup {
    /// The parser's limits (only this package's fuzzers use it).
    package var configuration = HTTPResponseParser.Configuration()
    public var method: HTTPRequest.Method = .get
    public var requestClosesConnection = false
    /// How many requests are sent one after the other on the connection: after
    /// a response ends with `keepAlive: true`, the next is expected, up to
    /// this many.
    public var exchanges = 1
    /// Whether the peer closes the connection after the last byte
    /// (`endOfInput()` is then reported when the parser is not idle).
    public var closesAtEnd = true

    public init() {}
}

/// Feeds chunks to an `HTTPResponseParser` the way the session does (loop
/// `next(_:)` until `.needMoreData` on each read) and records what it says,
/// checking the per-event contract as it goes.
public enum ResponseParserRun {
    /// Parses `bytes` delivered in the chunks between `cuts`.
    public static func run(_ bytes: [UInt8], cuts: [Int], setup: ParserSetup) -> ResponseTranscript {
        var parser = HTTPResponseParser(configuration: setup.configuration)
        parser.expectResponse(to: setup.method, requestClosesConnection: setup.requestClosesConnection)
        var transcript = ResponseTranscript()
        var expected = 1

        func handle(_ event: HTTPResponseParser.Event) {
            switch event {
            case .head(let response):
                fuzzCheck(
                    transcript.responses.last.map { $0.keepAlive != nil } ?? true,
                    "a head before the previous response ended"
                )
                transcript.responses.append(ResponseRecord(response))
            case .body(let slice):
                fuzzCheck(
                    transcript.responses.last.map { $0.keepAlive == nil } ?? false,
                    "body bytes outside a response"
                )
                transcript.responses[transcript.responses.count - 1].body.append(contentsOf: slice)
            case .end(let keepAlive):
                fuzzCheck(
                    transcript.responses.last.map { $0.keepAlive == nil } ?? false,
                    "an end outside a response"
                )
                transcript.responses[transcript.responses.count - 1].keepAlive = keepAlive
                fuzzCheck(parser.isIdle, "the parser is not idle after .end")
                if keepAlive && expected < setup.exchanges {
                    expected += 1
                    parser.expectResponse(to: setup.method, requestClosesConnection: setup.requestClosesConnection)
                }
            case .needMoreData:
                break
            }
        }

        let stopped = bytes.withUnsafeBytes { (stream: UnsafeRawBufferPointer) -> Bool in
            var start = 0
            for index in 0...cuts.count {
                let end = index < cuts.count ? cuts[index] : stream.count
                let chunk = UnsafeRawBufferPointer(rebasing: stream[start..<end])
                start = end
                var offset = 0
                // Every event but `.end` consumes bytes or asks for more; a
                // run of events that consume nothing would be a livelock.
                var idleEvents = 0
                while true {
                    let rest = UnsafeRawBufferPointer(rebasing: chunk[offset...])
                    let event: HTTPResponseParser.Event
                    let consumed: Int
                    do throws(UVURLError) {
                        (event, consumed) = try parser.next(rest)
                    } catch {
                        transcript.error = error
                        return true
                    }
                    fuzzCheck(consumed >= 0 && consumed <= rest.count, "consumed \(consumed) of \(rest.count) bytes")
                    if case .body(let slice) = event {
                        fuzzCheck(!slice.isEmpty, "an empty body slice")
                        fuzzCheck(
                            slice.baseAddress! == rest.baseAddress! + consumed - slice.count,
                            "a body slice that is not the last bytes consumed"
                        )
                    }
                    if case .needMoreData = event {
                        fuzzCheck(consumed == rest.count, "needMoreData with \(rest.count - consumed) bytes unread")
                        break
                    }
                    idleEvents = consumed == 0 ? idleEvents + 1 : 0
                    fuzzCheck(idleEvents < 3, "the parser makes no progress")
                    offset += consumed
                    handle(event)
                }
            }
            return false
        }
        if stopped { return transcript }
        if setup.closesAtEnd && !parser.isIdle {
            do throws(UVURLError) {
                handle(try parser.endOfInput())
            } catch {
                transcript.error = error
            }
        }
        return transcript
    }
}

/// Bytes as a one-line string for messages: printable ASCII as is, anything
/// else as `\xNN`.
public func quotedBytes(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789ABCDEF".unicodeScalars)
    var text = "\""
    for byte in bytes {
        if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "\"") {
            text.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            text += "\\x"
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0xF)])
        }
    }
    return text + "\""
}
