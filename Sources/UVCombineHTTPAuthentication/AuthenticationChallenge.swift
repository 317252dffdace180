public import HTTPTypes

/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field
/// (RFC 9110 section 11.6.1): a scheme and either a token68 or a list of
/// parameters. A field can hold several challenges, and a response several
/// fields: ``parse(_:)`` and ``challenges(in:for:)`` read them all.
///
/// Parameter names are lowercased (they are case-insensitive); values
/// are unquoted (`\"` becomes `"`), otherwise kept as sent.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let all = try AuthenticationChallenge.parse(#"Basic realm="a", Digest realm="b", nonce="n""#)
/// print(all.map(\.scheme)) // Prints: "["Basic", "Digest"]"
/// print(all[1].parameter("NONCE")!) // Prints: "n"
/// ```
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme as sent (`Digest`, `Basic`, ...); compare it with
    /// ``hasScheme(_:)``, which ignores case.
    public var scheme: String
    /// The token68 after the scheme, if that is the challenge's form.
    public var token68: String?
    /// The parameters in order, names lowercased, values unquoted.
    public var parameters: [(name: String, value: String)]

    /// A challenge with the given parts.
    public init(scheme: String, token68: String? = nil, parameters: [(name: String, value: String)] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// Whether the scheme is `name`, ignoring ASCII case.
    public func hasScheme(_ name: String) -> Bool {
        AuthenticationASCII.lowercased(scheme) == AuthenticationASCII.lowercased(name)
    }

    /// The value of the first parameter named `name` (any case), if any.
    public func parameter(_ name: String) -> String? {
        let key = AuthenticationASCII.lowercased(name)
        return parameters.first { $0.name == key }?.value
    }

    /// Every challenge in the `WWW-Authenticate` (for ``AuthenticationTarget/server``)
    /// or `Proxy-Authenticate` (for ``AuthenticationTarget/proxy``) fields
    /// of a response, in order; a field that does not parse is skipped.
    ///
    /// ```swift
    /// let challenges = AuthenticationChallenge.challenges(in: response.headerFields, for: .server)
    /// ```
    public static func challenges(in fields: HTTPFields, for target: AuthenticationTarget) -> [AuthenticationChallenge] {
        fields[values: target.challengeFieldName].flatMap { (try? parse($0)) ?? [] }
    }

    /// Equal when scheme, token68 and the parameters in order are equal
    /// (tuples are not Equatable, so this is written out).
    public static func == (left: Self, right: Self) -> Bool {
        left.scheme == right.scheme && left.token68 == right.token68
            && left.parameters.elementsEqual(right.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(token68)
        for parameter in parameters {
            hasher.combine(parameter.name)
            hasher.combine(parameter.value)
        }
    }
}

/// Whom credentials are for: the origin server (`WWW-Authenticate`,
/// `Authorization`, status 401) or a proxy (`Proxy-Authenticate`,
/// `Proxy-Authorization`, status 407).
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// print(AuthenticationTarget.proxy.authorizationFieldName) // Prints: "Proxy-Authorization"
/// ```
public enum AuthenticationTarget: Sendable, Hashable {
    /// The origin server.
    case server
    /// An HTTP proxy.
    case proxy

    /// `WWW-Authenticate` or `Proxy-Authenticate`.
    public var challengeFieldName: HTTPField.Name {
        self == .server ? .wwwAuthenticate : .proxyAuthenticate
    }

    /// `Authorization` or `Proxy-Authorization`.
    public var authorizationFieldName: HTTPField.Name {
        self == .server ? .authorization : .proxyAuthorization
    }
}
