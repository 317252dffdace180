import FoundationEssentials
import HTTPTypes

extension UVURLSession {
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
    /// Threading: a value type; `Sendable`.
    public enum ResponsePart: Sendable {
        /// The final response head (redirects already followed). Always the
        /// first element.
        case head(HTTPResponse)
        /// A run of body bytes, in order; never empty. How the body is cut
        /// into parts depends on how it arrived.
        case body(Data)

        /// The head, for `.head`.
        public var response: HTTPResponse? {
            if case .head(let response) = self { return response }
            return nil
        }

        /// The bytes, for `.body`.
        public var data: Data? {
            if case .body(let data) = self { return data }
            return nil
        }
    }
}
