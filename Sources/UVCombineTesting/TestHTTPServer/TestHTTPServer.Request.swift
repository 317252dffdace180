import HTTPTypes

extension TestHTTPServer {
    /// A request as the server received it: the request line's parts as
    /// sent, the header fields in order, and the body (`Content-Length`).
    ///
    /// Threading: a value type; use it anywhere.
    ///
    /// ```swift
    /// let request = server.requests[0]
    /// #expect(request.method == "GET")
    /// #expect(request.path == "/items")
    /// #expect(request.headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(server.port)")
    /// ```
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        /// The method, e.g. `GET`.
        public let method: String
        /// The request target as sent, e.g. `/items?page=2`.
        public let target: String
        /// The protocol version, e.g. `HTTP/1.1`.
        public let version: String
        /// The header fields, in the order received.
        public let headerFields: HTTPFields
        /// The body (empty without `Content-Length`).
        public let body: [UInt8]
        /// Which of the server's connections carried it: 0 for the first
        /// accepted, 1 for the next, ... (equal numbers: a reused
        /// keep-alive connection).
        public let connectionNumber: Int

        /// A request, as the server records it.
        public init(method: String, target: String, version: String, headerFields: HTTPFields, body: [UInt8],
                    connectionNumber: Int) {
            self.method = method
            self.target = target
            self.version = version
            self.headerFields = headerFields
            self.body = body
            self.connectionNumber = connectionNumber
        }

        /// The target without its query: `/items` for `/items?page=2`.
        public var path: String {
            guard let mark = target.firstIndex(of: "?") else { return target }
            return String(target[..<mark])
        }

        /// The query without the `?`, or `nil`.
        public var query: String? {
            guard let mark = target.firstIndex(of: "?") else { return nil }
            return String(target[target.index(after: mark)...])
        }

        /// Whether the client asked to keep the connection open: HTTP/1.1
        /// without `Connection: close`, or HTTP/1.0 with
        /// `Connection: keep-alive`.
        public var wantsKeepAlive: Bool {
            let tokens = headerFields[values: .connection]
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: " \t").lowercased() }
            if version == "HTTP/1.0" { return tokens.contains("keep-alive") }
            return !tokens.contains("close")
        }

        /// The request line: `GET /items HTTP/1.1`.
        public var description: String { "\(method) \(target) \(version)" }
    }
}

extension StringProtocol {
    /// Without leading and trailing characters from `set`.
    internal func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
