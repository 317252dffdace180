public import HTTPTypes

/// Answers Digest challenges (RFC 7616, and RFC 2617/2069 servers) for one
/// user: builds the `Authorization` or `Proxy-Authorization` value with a
/// client nonce and a nonce count that grows with each request on the
/// same server nonce.
///
/// The quality of protection is `auth` when offered (as curl and browsers
/// choose), `auth-int` when it is the only one or ``prefersIntegrity`` is
/// set and the body is known; with no `qop` the RFC 2069 form is sent.
/// With `userhash=true` the user name is sent hashed; a user name that is
/// not plain ASCII goes as `username*` (RFC 8187) otherwise. A1 always
/// uses the plain user name, as curl does.
///
/// `Authentication-Info` (`rspauth`, `nextnonce`) is read by
/// ``receiveAuthenticationInfo(_:responseBody:)``. What is not here (the
/// session's job, docs/authentication.md): sending the request again after
/// a 401 or 407, giving up when a non-stale challenge follows an answer
/// (wrong credentials).
///
/// Threading: a value type; the nonce count makes it stateful, so keep one
/// per protection space and serialise its use.
///
/// ```swift
/// let challenge = DigestChallenge.first(in: AuthenticationChallenge.challenges(in: response.headerFields, for: .server))!
/// var digest = DigestAuthenticator(username: "Mufasa", password: "Circle of Life", challenge: challenge)
/// request.headerFields[.authorization] = digest.authorization(method: "GET", uri: "/dir/index.html")
/// ```
public struct DigestAuthenticator: Sendable {
    /// The user name.
    public var username: String
    /// The password.
    public var password: String
    /// Whether to choose `auth-int` over `auth` when both are offered and
    /// the body is given.
    public var prefersIntegrity = false
    /// The challenge being answered.
    public private(set) var challenge: DigestChallenge
    /// How many answers were built on ``challenge``'s nonce.
    public private(set) var nonceCount: UInt32 = 0
    /// What the last answer used, for checking `rspauth`
    /// (``receiveAuthenticationInfo(_:responseBody:)``).
    internal var lastAnswer: LastAnswer?

    /// The parts of the last answer that `rspauth` depends on.
    internal struct LastAnswer: Sendable {
        internal var uri: String
        internal var nonce: String
        internal var cnonce: String
        internal var nc: String
        internal var qop: DigestChallenge.QualityOfProtection?
        internal var ha1: String
    }

    /// An authenticator for `username` and `password` answering `challenge`.
    public init(username: String, password: String, challenge: DigestChallenge) {
        self.username = username
        self.password = password
        self.challenge = challenge
    }

    /// Takes a newer challenge (after a 401 with `stale=true`, or a new
    /// nonce in `Authentication-Info`): the nonce count restarts when the
    /// nonce changed.
    public mutating func accept(_ challenge: DigestChallenge) {
        if challenge.nonce != self.challenge.nonce { nonceCount = 0 }
        self.challenge = challenge
    }

    /// The field value answering the challenge for a request with `method`
    /// and request target `uri` (as sent on the request line), and the
    /// next nonce count. `body` is hashed for `auth-int` (empty when nil).
    /// `cnonce` is the client nonce; by default 16 random bytes in hex.
    ///
    /// ```swift
    /// let value = digest.authorization(method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
    /// ```
    public mutating func authorization(method: String, uri: String, body: [UInt8]? = nil,
                                       cnonce: String? = nil) -> String {
        nonceCount &+= 1
        let cnonce = cnonce ?? Self.randomClientNonce()
        let hash = challenge.algorithm
        let qop = chooseProtection(bodyKnown: body != nil)
        let nc = Self.eightHexDigits(nonceCount)

        var ha1 = hash.hash("\(username):\(challenge.realm):\(password)")
        if hash.isSession { ha1 = hash.hash("\(ha1):\(challenge.nonce):\(cnonce)") }
        let a2 = qop == .authInt ? "\(method):\(uri):\(hash.hash(bytes: body ?? []))" : "\(method):\(uri)"
        let ha2 = hash.hash(a2)
        let response = if let qop {
            hash.hash("\(ha1):\(challenge.nonce):\(nc):\(cnonce):\(qop.name):\(ha2)")
        } else {
            hash.hash("\(ha1):\(challenge.nonce):\(ha2)")
        }

        lastAnswer = LastAnswer(uri: uri, nonce: challenge.nonce, cnonce: cnonce, nc: nc, qop: qop, ha1: ha1)
        var parts: [String] = []
        if challenge.userhash {
            parts.append("username=" + AuthenticationASCII.quoted(hash.hash("\(username):\(challenge.realm)")))
        } else if username.utf8.contains(where: { $0 >= 0x80 || $0 < 0x20 || $0 == 0x7F }) {
            parts.append("username*=UTF-8''" + Self.percentEncoded(username))
        } else {
            parts.append("username=" + AuthenticationASCII.quoted(username))
        }
        parts.append("realm=" + AuthenticationASCII.quoted(challenge.realm))
        parts.append("uri=" + AuthenticationASCII.quoted(uri))
        if challenge.namesAlgorithm { parts.append("algorithm=" + hash.name) }
        parts.append("nonce=" + AuthenticationASCII.quoted(challenge.nonce))
        if let qop {
            parts.append("nc=" + nc)
            parts.append("cnonce=" + AuthenticationASCII.quoted(cnonce))
            parts.append("qop=" + qop.name)
        } else if hash.isSession {
            // A -sess A1 without qop still used the cnonce: send it.
            parts.append("cnonce=" + AuthenticationASCII.quoted(cnonce))
        }
        parts.append("response=" + AuthenticationASCII.quoted(response))
        if let opaque = challenge.opaque { parts.append("opaque=" + AuthenticationASCII.quoted(opaque)) }
        if challenge.userhash { parts.append("userhash=true") }
        var text = "Digest "
        for (index, part) in parts.enumerated() {
            if index > 0 { text += ", " }
            text += part
        }
        return text
    }

    /// The `Authorization` (for `target == .server`) or
    /// `Proxy-Authorization` field answering the challenge for `request`.
    /// The `uri` is the request's path (with its query), also for a proxy
    /// receiving the absolute form, and `host:port` for `CONNECT`: what
    /// curl sends.
    ///
    /// ```swift
    /// request.headerFields.append(digest.authorizationField(for: request, target: .proxy))
    /// ```
    public mutating func authorizationField(for request: HTTPRequest, target: AuthenticationTarget = .server,
                                            body: [UInt8]? = nil, cnonce: String? = nil) -> HTTPField {
        let uri = request.method == .connect ? (request.authority ?? "") : (request.path ?? "/")
        let value = authorization(method: request.method.rawValue, uri: uri, body: body, cnonce: cnonce)
        return HTTPField(name: target.authorizationFieldName, value: value)
    }

    private func chooseProtection(bodyKnown: Bool) -> DigestChallenge.QualityOfProtection? {
        let offered = challenge.qualitiesOfProtection
        if offered.contains(.authInt) && (!offered.contains(.auth) || (prefersIntegrity && bodyKnown)) { return .authInt }
        return offered.contains(.auth) ? .auth : nil
    }

    /// `count` as eight lowercase hex digits.
    internal static func eightHexDigits(_ count: UInt32) -> String {
        let digits = String(count, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// 16 random bytes in hex, from the system generator.
    internal static func randomClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return AuthenticationASCII.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// RFC 8187's value-chars: attr-char kept, every other byte as `%XX`.
    internal static func percentEncoded(_ text: String) -> String {
        let kept = Set("!#$&+-.^_`|~".utf8)
        var out = ""
        for byte in text.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlphanumeric || kept.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }
}
