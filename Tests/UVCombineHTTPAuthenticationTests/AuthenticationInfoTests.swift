import Testing
import UVCombineHTTPAuthentication

/// `rspauth` values computed with python's hashlib from RFC 7616
/// section 3.5's formula (A2 = ":" uri), independently of this code.
@Suite("Authentication-Info (RFC 7616 3.5)")
struct AuthenticationInfoTests {
    static func rfc2617Authenticator() throws -> DigestAuthenticator {
        let challenge = try DigestAuthenticatorTests.challenge(#"Digest realm="testrealm@host.com", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#)
        return DigestAuthenticator(username: "Mufasa", password: "Circle Of Life", challenge: challenge)
    }

    @Test("a bare parameter list parses; empty is empty; errors carry offsets")
    func parameterList() throws {
        let list = try AuthenticationChallenge.parseParameters(#" qop=auth, rspauth="ab\"c" ,, nc=00000001 "#)
        #expect(list.map(\.name) == ["qop", "rspauth", "nc"])
        #expect(list[1].value == #"ab"c"#)
        #expect(try AuthenticationChallenge.parseParameters("").isEmpty)
        #expect(throws: AuthenticationChallenge.ParseError(.expectedParameter, at: 15)) {
            try AuthenticationChallenge.parseParameters("qop=auth, token")
        }
        #expect(throws: AuthenticationChallenge.ParseError(.expectedComma, at: 9)) {
            try AuthenticationChallenge.parseParameters("qop=auth x=y")
        }
    }

    @Test("rspauth checked for auth; nextnonce taken and the count restarts")
    func verifiesAndTakesNextNonce() throws {
        var digest = try Self.rfc2617Authenticator()
        _ = digest.authorization(method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
        try digest.receiveAuthenticationInfo(#"rspauth="376602cfd2f4e8e5e78b948a85263e85", qop=auth, cnonce="0a4f113b", nc=00000001, nextnonce="fresh""#)
        #expect(digest.challenge.nonce == "fresh")
        #expect(digest.nonceCount == 0)
        #expect(digest.authorization(method: "GET", uri: "/", cnonce: "x").contains(#"nonce="fresh", nc=00000001"#))
    }

    @Test("auth-int with the response body, and the RFC 2069 form")
    func authIntAndNoQop() throws {
        var authInt = DigestAuthenticator(username: "u", password: "p",
                                          challenge: try DigestAuthenticatorTests.challenge(#"Digest realm="r", nonce="n", qop="auth-int""#))
        _ = authInt.authorization(method: "GET", uri: "/x", body: [], cnonce: "c")
        try authInt.receiveAuthenticationInfo(#"rspauth="94217c796a0080909e3da1e807d7263a""#, responseBody: Array("resp".utf8))
        var plain = DigestAuthenticator(username: "u", password: "p",
                                        challenge: try DigestAuthenticatorTests.challenge(#"Digest realm="r", nonce="n""#))
        _ = plain.authorization(method: "GET", uri: "/x")
        try plain.receiveAuthenticationInfo(#"rspauth="0742e7b736297966cffa4ee08126c679""#)
    }

    @Test("problems: malformed, nothing sent, mismatched fields, a wrong digest; nothing changes")
    func problems() throws {
        var fresh = try Self.rfc2617Authenticator()
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.noAnswerSent) {
            try fresh.receiveAuthenticationInfo(#"rspauth="x""#)
        }
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.malformed(.init(.unterminatedQuotedString, at: 8))) {
            try fresh.receiveAuthenticationInfo(#"rspauth="x"#)
        }
        var digest = try Self.rfc2617Authenticator()
        _ = digest.authorization(method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
        let good = "rspauth=\"376602cfd2f4e8e5e78b948a85263e85\""
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.mismatch("qop")) {
            try digest.receiveAuthenticationInfo(good + ", qop=auth-int")
        }
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.mismatch("cnonce")) {
            try digest.receiveAuthenticationInfo(good + ", cnonce=\"other\"")
        }
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.mismatch("nc")) {
            try digest.receiveAuthenticationInfo(good + ", nc=00000002")
        }
        #expect(throws: DigestAuthenticator.AuthenticationInfoProblem.wrongResponseDigest) {
            try digest.receiveAuthenticationInfo(#"rspauth="00000000000000000000000000000000", nextnonce="n2""#)
        }
        #expect(digest.challenge.nonce == "dcd98b7102dd2f0e8b11d0f600bfb0c093")
        #expect(digest.nonceCount == 1)
        // Only nextnonce, no rspauth: taken without a check.
        try fresh.receiveAuthenticationInfo(#"nextnonce="n3""#)
        #expect(fresh.challenge.nonce == "n3")
    }
}
