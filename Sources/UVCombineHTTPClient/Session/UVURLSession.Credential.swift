extension UVURLSession {
    /// A user name and password the session answers an authentication
    /// challenge with: a server's `401` (``Configuration/credential``, or
    /// one request's ``RequestOptions/credential``) with Digest (RFC 7616)
    /// or Basic (RFC 7617), as `URLCredential` answers
    /// `NSURLAuthenticationMethodHTTPDigest` and `…HTTPBasic`.
    ///
    /// Nothing is sent before a challenge asks (curl's `--digest`, and
    /// URLSession's way); the answer goes once: a second `401` to the
    /// answered request is the response. A proxy's `407` is answered with
    /// the proxy's own user name and password (``Proxy``).
    ///
    /// Threading: a value type; `Sendable`.
    ///
    /// ```swift
    /// configuration.credential = UVURLSession.Credential(username: "alice", password: "secret")
    /// configuration.credential = .init(username: "alice", password: "secret", schemes: .digest)
    /// ```
    public struct Credential: Sendable, Hashable, CustomStringConvertible {
        /// Which challenges a credential answers.
        public struct Schemes: OptionSet, Sendable, Hashable {
            public let rawValue: UInt8
            /// Creates a set of schemes from its raw bits.
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            /// `Basic`: the password in base64 (only over TLS, sensibly).
            public static let basic = Schemes(rawValue: 1)
            /// `Digest`: MD5, SHA-256 or SHA-512/256, `qop=auth` or `auth-int`.
            public static let digest = Schemes(rawValue: 2)
        }

        /// The user name.
        public var username: String
        /// The password.
        public var password: String
        /// The schemes it answers; Digest is chosen when both are offered.
        /// Default: both.
        public var schemes: Schemes

        /// A credential answering `schemes` (both by default).
        ///
        /// ```swift
        /// let digestOnly = UVURLSession.Credential(username: "u", password: "p", schemes: .digest)
        /// ```
        public init(username: String, password: String, schemes: Schemes = [.basic, .digest]) {
            self.username = username
            self.password = password
            self.schemes = schemes
        }

        /// `Credential(alice, basic digest)`: the password is not shown.
        public var description: String {
            var names: [String] = []
            if schemes.contains(.basic) { names.append("basic") }
            if schemes.contains(.digest) { names.append("digest") }
            return "Credential(\(username), \(names.joined(separator: " ")))"
        }
    }
}
