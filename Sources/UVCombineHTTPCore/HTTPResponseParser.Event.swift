import HTTPTypes

extension HTTPResponseParser {
    /// What the parser found in the bytes it was given.
    ///
    /// ```swift
    /// let (event, consumed) = try parser.next(chunk)
    /// if case .body(let slice) = event { body.append(contentsOf: slice) } // copy: it is the chunk's memory
    /// ```
    public enum Event {
        /// The final response head (interim 1xx heads are skipped).
        case head(HTTPResponse)
        /// A run of body bytes: a slice of the chunk passed to ``next(_:)``,
        /// valid as long as that chunk's memory is. Copy it to keep it.
        /// Never empty, so its `baseAddress` is never nil (the parser
        /// returns `.needMoreData` rather than an empty run).
        case body(UnsafeRawBufferPointer)
        /// The response is complete. `keepAlive` says whether the
        /// connection may carry another request: false when the response
        /// or the request said `Connection: close`, for HTTP/1.0 without
        /// `Connection: keep-alive`, and for close-delimited bodies.
        case end(keepAlive: Bool)
        /// Every byte given was consumed; feed the next chunk.
        case needMoreData
    }
}
