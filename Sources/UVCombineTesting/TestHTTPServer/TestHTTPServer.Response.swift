import HTTPTypes

extension TestHTTPServer {
    /// What the server answers to one request: a status, header fields and
    /// a body, or a ``Fault``.
    ///
    /// The server adds `Content-Length` (unless the fields carry
    /// `Content-Length` or `Transfer-Encoding`) and `Connection: close` when
    /// it closes the connection after the response. A `HEAD` request gets
    /// the head only.
    ///
    /// Threading: a value type; use it anywhere.
    ///
    /// ```swift
    /// let created = TestHTTPServer.Response(status: .created,
    ///                                       headerFields: [.contentType: "application/json"],
    ///                                       body: Array(#"{"id":1}"#.utf8))
    /// let missing = TestHTTPServer.Response.notFound
    /// let broken = TestHTTPServer.Response.fault(.closeMidBody)
    /// ```
    public struct Response: Sendable, Hashable {
        /// The status; its reason phrase goes on the status line.
        public var status: HTTPResponse.Status
        /// The header fields, in order.
        public var headerFields: HTTPFields
        /// The body.
        public var body: [UInt8]
        /// How to misbehave instead of answering normally, or `nil`.
        public var fault: Fault?

        /// A response.
        public init(status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: [UInt8] = [],
                    fault: Fault? = nil) {
            self.status = status
            self.headerFields = headerFields
            self.body = body
            self.fault = fault
        }

        /// A `text/plain; charset=utf-8` response.
        ///
        /// ```swift
        /// let hello = TestHTTPServer.Response.text("hello")
        /// ```
        public static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
            Response(status: status, headerFields: [.contentType: "text/plain; charset=utf-8"], body: Array(text.utf8))
        }

        /// A response that misbehaves as `fault` says, with `body` for the
        /// faults that send one (1 KiB of `a` by default).
        ///
        /// ```swift
        /// let cut = TestHTTPServer.Response.fault(.closeMidBody)
        /// ```
        public static func fault(_ fault: Fault, body: [UInt8] = Response.defaultFaultBody) -> Response {
            Response(status: .ok, body: body, fault: fault)
        }

        /// `404 Not Found`, with a short text body.
        public static var notFound: Response { .text("not found", status: .notFound) }

        /// The body `fault(_:)` sends by default: 1 KiB of `a`.
        public static var defaultFaultBody: [UInt8] { [UInt8](repeating: UInt8(ascii: "a"), count: 1024) }

        /// Whether the fields frame the body themselves.
        internal var hasFraming: Bool {
            headerFields[.contentLength] != nil || headerFields[.transferEncoding] != nil
        }

        /// The status line and the fields, with `extra` fields appended,
        /// ending with the empty line.
        internal func head(adding extra: [(String, String)]) -> [UInt8] {
            var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
            for field in headerFields {
                text += "\(field.name.rawName): \(field.value)\r\n"
            }
            for (name, value) in extra {
                text += "\(name): \(value)\r\n"
            }
            text += "\r\n"
            return Array(text.utf8)
        }
    }
}
