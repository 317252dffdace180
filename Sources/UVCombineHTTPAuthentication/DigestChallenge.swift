/// A Digest challenge (RFC 7616 section 3.3) read from an
/// ``AuthenticationChallenge``: what the client needs to answer it.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let challenge = try DigestChallenge(try AuthenticationChallenge.parse(
///     #"Digest realm="api", nonce="abc", qop="auth,auth-int", algorithm=SHA-256, stale=TRUE"#)[0])
/// print(challenge.algorithm.name, challenge.qualitiesOfProtection.map(\.name), challenge.isStale)
/// // Prints: "SHA-256 ["auth", "auth-int"] true"
/// ```
public struct DigestChallenge: Sendable, Hashable {
    /// Why a challenge cannot be answered with Digest.
    public enum Problem: Error, Sendable, Hashable {
        /// The challenge's scheme is not `Digest` (the scheme given).
        case notDigest(String)
        /// A required parameter (`realm` or `nonce`) is missing.
        case missingParameter(String)
        /// The `algorithm` is none this client knows (the value given).
        case unsupportedAlgorithm(String)
        /// `qop` is present but names neither `auth` nor `auth-int`.
        case unsupportedQualityOfProtection(String)
    }

    /// The protection levels of RFC 7616's `qop`.
    public enum QualityOfProtection: Sendable, Hashable {
        /// `auth`: authentication only.
        case auth
        /// `auth-int`: also the request body's hash.
        case authInt

        /// `auth` or `auth-int`.
        public var name: String { self == .auth ? "auth" : "auth-int" }
    }

    /// The protection space.
    public var realm: String
    /// The server's nonce.
    public var nonce: String
    /// Returned unchanged in the response, if given.
    public var opaque: String?
    /// The hash (`MD5` when the challenge names none).
    public var algorithm: DigestAlgorithm
    /// Whether the challenge named its algorithm (the response then names
    /// it too, as curl does; RFC 2069 servers never name one).
    public var namesAlgorithm: Bool
    /// The protection levels offered, in the server's order; empty for an
    /// RFC 2069 challenge without `qop`.
    public var qualitiesOfProtection: [QualityOfProtection]
    /// `stale=true`: the nonce expired but the credentials were right, so
    /// retry with the new nonce without asking the user again.
    public var isStale: Bool
    /// `userhash=true`: send the user name hashed.
    public var userhash: Bool
    /// `charset=UTF-8` was given.
    public var isUTF8: Bool
    /// The `domain` URIs of the protection space (split at spaces).
    public var domain: [String]

    /// Reads a parsed challenge.
    ///
    /// - Throws: ``Problem`` for a scheme other than Digest, a missing
    ///   `realm` or `nonce`, an unknown `algorithm`, or a `qop` with
    ///   neither `auth` nor `auth-int`. Unknown parameters are ignored,
    ///   as are unknown `qop` entries next to a known one.
    public init(_ challenge: AuthenticationChallenge) throws(Problem) {
        guard challenge.hasScheme("Digest") else { throw .notDigest(challenge.scheme) }
        guard let realm = challenge.parameter("realm") else { throw .missingParameter("realm") }
        guard let nonce = challenge.parameter("nonce") else { throw .missingParameter("nonce") }
        self.realm = realm
        self.nonce = nonce
        opaque = challenge.parameter("opaque")
        if let name = challenge.parameter("algorithm") {
            guard let algorithm = DigestAlgorithm(name: name) else { throw .unsupportedAlgorithm(name) }
            self.algorithm = algorithm
            namesAlgorithm = true
        } else {
            algorithm = .md5
            namesAlgorithm = false
        }
        qualitiesOfProtection = []
        if let qop = challenge.parameter("qop") {
            for entry in qop.utf8.split(separator: UInt8(ascii: ",")) {
                switch AuthenticationASCII.lowercased(String(decoding: entry.filter { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)) {
                case "auth": qualitiesOfProtection.append(.auth)
                case "auth-int": qualitiesOfProtection.append(.authInt)
                default: break
                }
            }
            guard !qualitiesOfProtection.isEmpty else { throw .unsupportedQualityOfProtection(qop) }
        }
        isStale = challenge.parameter("stale").map { AuthenticationASCII.lowercased($0) == "true" } ?? false
        userhash = challenge.parameter("userhash").map { AuthenticationASCII.lowercased($0) == "true" } ?? false
        isUTF8 = challenge.parameter("charset").map { AuthenticationASCII.lowercased($0) == "utf-8" } ?? false
        domain = challenge.parameter("domain").map { $0.split(separator: " ").map(String.init) } ?? []
    }

    /// The first Digest challenge in `challenges` this client can answer
    /// (servers list their preferred first, RFC 7616 section 3.7), or
    /// `nil`.
    ///
    /// ```swift
    /// let digest = DigestChallenge.first(in: AuthenticationChallenge.challenges(in: fields, for: .server))
    /// ```
    public static func first(in challenges: [AuthenticationChallenge]) -> DigestChallenge? {
        for challenge in challenges {
            if let digest = try? DigestChallenge(challenge) { return digest }
        }
        return nil
    }
}
