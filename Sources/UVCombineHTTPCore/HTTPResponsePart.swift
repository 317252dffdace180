import HTTPTypes

/// One element of a streamed response: first the head, then the body
/// in parts as they arrive.
///
/// ```swift
/// switch part {
/// case .head(let response): print(response.status.code) // Prints: "200"
/// case .body(let chunk): file.write(chunk)
/// }
/// ```
///
/// The protocol core's form of a streamed part, in bytes: the exchange
/// state machine holds the part a subscriber had no demand for
/// (``HTTPExchangeStateMachine/heldPart``). The session's API has its own
/// `UVURLSession.ResponsePart`, whose body is `Data`.
///
/// Threading: a value type; `Sendable`.
public enum HTTPResponsePart: Sendable {
    /// The final response head (redirects already followed). Always the
    /// first element.
    case head(HTTPResponse)
    /// A run of body bytes, in order; never empty. How the body is cut
    /// into parts depends on how it arrived.
    case body([UInt8])

    /// The head, for `.head`.
    public var response: HTTPResponse? {
        if case .head(let response) = self { return response }
        return nil
    }

    /// The bytes, for `.body`.
    public var bytes: [UInt8]? {
        if case .body(let bytes) = self { return bytes }
        return nil
    }
}
