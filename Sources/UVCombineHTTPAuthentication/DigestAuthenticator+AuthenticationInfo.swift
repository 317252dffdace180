extension DigestAuthenticator {
    /// Why an `Authentication-Info` field was not accepted.
    public enum AuthenticationInfoProblem: Error, Sendable, Hashable {
        /// The field is not an auth-param list.
        case malformed(AuthenticationChallenge.ParseError)
        /// No answer was built yet, so there is nothing to verify.
        case noAnswerSent
        /// `qop`, `cnonce` or `nc` differ from the last answer's (the name).
        case mismatch(String)
        /// `rspauth` is not the digest the server must have computed: the
        /// server does not know the password (or the response was altered).
        case wrongResponseDigest
    }

    /// Reads an `Authentication-Info` (or `Proxy-Authentication-Info`)
    /// field of the response to the last answer (RFC 7616 section 3.5):
    /// checks `rspauth` when present (the same digest as the answer's,
    /// with A2 = `:uri`, or `:uri:H(body)` for `auth-int` with the
    /// response body) and takes `nextnonce` (the nonce count restarts).
    ///
    /// ```swift
    /// if let info = response.headerFields[.init("Authentication-Info")!] {
    ///     try digest.receiveAuthenticationInfo(info)
    /// }
    /// ```
    ///
    /// - Throws: ``AuthenticationInfoProblem``; on any, nothing changes.
    public mutating func receiveAuthenticationInfo(_ value: String, responseBody: [UInt8]? = nil) throws(AuthenticationInfoProblem) {
        let parameters: [(name: String, value: String)]
        do {
            parameters = try AuthenticationChallenge.parseParameters(value)
        } catch {
            throw .malformed(error)
        }
        let find = { (name: String) in parameters.first { $0.name == name }?.value }
        if let rspauth = find("rspauth") {
            guard let last = lastAnswer else { throw .noAnswerSent }
            if let qop = find("qop"), AuthenticationASCII.lowercased(qop) != (last.qop?.name ?? "") { throw .mismatch("qop") }
            if let cnonce = find("cnonce"), cnonce != last.cnonce { throw .mismatch("cnonce") }
            if let nc = find("nc"), AuthenticationASCII.lowercased(nc) != last.nc { throw .mismatch("nc") }
            let hash = challenge.algorithm
            let a2 = last.qop == .authInt ? ":\(last.uri):\(hash.hash(bytes: responseBody ?? []))" : ":\(last.uri)"
            let expected = if let qop = last.qop {
                hash.hash("\(last.ha1):\(last.nonce):\(last.nc):\(last.cnonce):\(qop.name):\(hash.hash(a2))")
            } else {
                hash.hash("\(last.ha1):\(last.nonce):\(hash.hash(a2))")
            }
            guard AuthenticationASCII.lowercased(rspauth) == expected else { throw .wrongResponseDigest }
        }
        if let nextNonce = find("nextnonce"), nextNonce != challenge.nonce {
            var next = challenge
            next.nonce = nextNonce
            accept(next)
        }
    }
}
