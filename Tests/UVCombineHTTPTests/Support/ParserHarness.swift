import HTTPTypes
import UVCombineHTTP
import UVCombineHTTPCore

/// What the parser reported, in a comparable form. Adjacent body events are
/// merged, because how a body is sliced depends on how its bytes were split
/// into chunks; everything else must not.
enum Seen: Equatable, Sendable, CustomStringConvertible {
    case head(code: Int, reason: String, fields: [String])
    case body([UInt8])
    case end(keepAlive: Bool)
    case failure(UVURLError.Code, String?)

    static func head(_ code: Int, _ reason: String, _ fields: [String] = []) -> Seen {
        .head(code: code, reason: reason, fields: fields)
    }

    static func error(_ code: UVURLError.Code, _ detail: String) -> Seen {
        .failure(code, detail)
    }

    /// A body given as text.
    static func text(_ text: String) -> Seen {
        .body(Array(text.utf8))
    }

    static func bad(_ detail: String) -> Seen {
        .failure(.badServerResponse, detail)
    }

    var description: String {
        switch self {
        case .head(let code, let reason, let fields): "head(\(code) \(reason.debugDescription) \(fields))"
        case .body(let bytes): "body(\(String(decoding: bytes, as: UTF8.self).debugDescription), \(bytes.count) bytes)"
        case .end(let keepAlive): "end(keepAlive: \(keepAlive))"
        case .failure(let code, let detail): "error(\(code), \(detail.debugDescription))"
        }
    }
}

/// Feeds `chunks` to a parser, one response per entry of `methods`, and
/// reports the events. With `eof`, the end of input follows the chunks.
func parse(
    chunks: [[UInt8]],
    methods: [HTTPRequest.Method] = [.get],
    requestCloses: Bool = false,
    eof: Bool = false,
    configuration: HTTPResponseParser.Configuration = .init()
) -> [Seen] {
    var parser = HTTPResponseParser(configuration: configuration)
    var pending = methods[...]
    var seen: [Seen] = []
    func record(_ event: Seen) {
        if case .body(let more) = event, case .body(let earlier)? = seen.last {
            seen[seen.count - 1] = .body(earlier + more)
        } else {
            seen.append(event)
        }
    }
    if let first = pending.popFirst() {
        parser.expectResponse(to: first, requestClosesConnection: requestCloses)
    }
    do throws(UVURLError) {
        for chunk in chunks {
            let result = chunk.withUnsafeBytes { bytes in Result { () throws(UVURLError) in
                var rest = bytes
                while true {
                    let (event, consumed) = try parser.next(rest)
                    rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
                    switch event {
                    case .head(let response):
                        record(.head(
                            code: response.status.code,
                            reason: response.status.reasonPhrase,
                            fields: response.headerFields.map { "\($0.name.rawName): \($0.value)" }
                        ))
                    case .body(let slice):
                        precondition(slice.count > 0, "empty body event")
                        record(.body(Array(slice)))
                    case .end(let keepAlive):
                        record(.end(keepAlive: keepAlive))
                        if let next = pending.popFirst() {
                            parser.expectResponse(to: next, requestClosesConnection: requestCloses)
                        }
                    case .needMoreData:
                        precondition(rest.isEmpty, "needMoreData before the chunk was consumed")
                        return
                    }
                }
            } }
            try result.get()
        }
        if eof && !parser.isIdle {
            if case .end(let keepAlive) = try parser.endOfInput() {
                record(.end(keepAlive: keepAlive))
            }
        }
    } catch {
        record(.failure(error.code, error.detail))
    }
    return seen
}

/// Parses `text` in one chunk.
func parse(
    _ text: String,
    methods: [HTTPRequest.Method] = [.get],
    requestCloses: Bool = false,
    eof: Bool = false,
    configuration: HTTPResponseParser.Configuration = .init()
) -> [Seen] {
    parse(
        chunks: [Array(text.utf8)],
        methods: methods,
        requestCloses: requestCloses,
        eof: eof,
        configuration: configuration
    )
}

/// A deterministic random number generator (SplitMix64), so property tests
/// are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
