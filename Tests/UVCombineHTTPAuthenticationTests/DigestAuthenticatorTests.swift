import HTTPTypes
import Testing
import UVCombineHTTPAuthentication

/// Expected responses not taken from an RFC were computed with python's
/// hashlib from RFC 7616 section 3.4's formulas, independently of this code.
@Suite("Digest authentication (RFC 7616)")
struct DigestAuthenticatorTests {
    static func challenge(_ text: String) throws -> DigestChallenge {
        try DigestChallenge(try #require(try AuthenticationChallenge.parse(text).first))
    }

    static func rfc7616Challenge(_ algorithm: String) -> String {
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm="# + algorithm
            + #", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
    }

    @Test("RFC 7616 section 3.9.1, MD5 and SHA-256: the same Authorization value as the RFC")
    func rfc7616() throws {
        for (algorithm, response) in [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")] {
            let text = Self.rfc7616Challenge(algorithm)
            var digest = DigestAuthenticator(username: "Mufasa", password: "Circle of Life", challenge: try Self.challenge(text))
            let value = digest.authorization(method: "GET", uri: "/dir/index.html",
                                             cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            #expect(value == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\", "
                + "algorithm=\(algorithm), nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", nc=00000001, "
                + "cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", qop=auth, response=\"\(response)\", "
                + "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"")
        }
    }

    @Test("RFC 2617 section 3.5: MD5 with no algorithm named")
    func rfc2617() throws {
        let challenge = try Self.challenge(#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)
        var digest = DigestAuthenticator(username: "Mufasa", password: "Circle Of Life", challenge: challenge)
        #expect(digest.authorization(method: "GET", uri: "/dir/index.html", cnonce: "0a4f113b")
            == "Digest username=\"Mufasa\", realm=\"testrealm@host.com\", uri=\"/dir/index.html\", "
            + "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", nc=00000001, cnonce=\"0a4f113b\", qop=auth, "
            + "response=\"6629fae49393a05397450978507c4ef1\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"")
    }

    @Test("the nonce count grows per answer and restarts with a new nonce (stale)")
    func nonceCount() throws {
        var digest = DigestAuthenticator(username: "u", password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth""#))
        _ = digest.authorization(method: "GET", uri: "/x", cnonce: "c")
        let second = digest.authorization(method: "GET", uri: "/x", cnonce: "c")
        #expect(second.contains("nc=00000002,"))
        #expect(digest.nonceCount == 2)
        digest.accept(try Self.challenge(#"Digest realm="r", nonce="n", qop="auth""#))
        #expect(digest.nonceCount == 2)
        let stale = try Self.challenge(#"Digest realm="r", nonce="n2", qop="auth", stale=true"#)
        #expect(stale.isStale)
        digest.accept(stale)
        #expect(digest.authorization(method: "GET", uri: "/x", cnonce: "c").contains("nc=00000001,"))
    }

    @Test("auth-int: chosen when it is the only qop, or preferred and the body is known")
    func authInt() throws {
        var only = DigestAuthenticator(username: "u", password: "p",
                                       challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth-int""#))
        #expect(only.authorization(method: "POST", uri: "/x", body: Array("hello".utf8), cnonce: "c")
            == "Digest username=\"u\", realm=\"r\", uri=\"/x\", nonce=\"n\", nc=00000001, cnonce=\"c\", qop=auth-int, "
            + "response=\"9f4e354afb1ee977b2654d956e3f6e35\"")
        var both = DigestAuthenticator(username: "u", password: "p",
                                       challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth,auth-int""#))
        #expect(both.authorization(method: "POST", uri: "/x", body: Array("hello".utf8), cnonce: "c").contains("qop=auth,"))
        both.prefersIntegrity = true
        #expect(both.authorization(method: "POST", uri: "/x", body: Array("hello".utf8), cnonce: "c").contains("qop=auth-int,"))
        #expect(both.authorization(method: "POST", uri: "/x", cnonce: "c").contains("qop=auth,"))
    }

    @Test("no qop: the RFC 2069 form, without nc, cnonce and qop")
    func noQop() throws {
        var digest = DigestAuthenticator(username: "u", password: "p", challenge: try Self.challenge(#"Digest realm="r", nonce="n""#))
        #expect(digest.authorization(method: "GET", uri: "/x", cnonce: "c")
            == #"Digest username="u", realm="r", uri="/x", nonce="n", response="3042aef13752cb1d63f6787a080ffdfc""#)
    }

    @Test("-sess algorithms and SHA-512-256")
    func sessionAndSHA512() throws {
        var md5 = DigestAuthenticator(username: "u", password: "p",
                                      challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth", algorithm=md5-sess"#))
        #expect(md5.authorization(method: "GET", uri: "/x", cnonce: "c").contains(#"algorithm=MD5-sess, nonce="n", nc=00000001, cnonce="c", qop=auth, response="0223f74a821f39096c53860f14848b13""#))
        var sha = DigestAuthenticator(username: "u", password: "p",
                                      challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth", algorithm=SHA-256-sess"#))
        #expect(sha.authorization(method: "GET", uri: "/x", cnonce: "c").contains(#"response="203435f0e3f59800bcc823a3cc777e26d10adbdb6e4ebef111fe48f2fdcdc0cf""#))
        var sha512 = DigestAuthenticator(username: "u", password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth", algorithm=SHA-512-256, userhash=true"#))
        _ = sha512.authorization(method: "GET", uri: "/x", cnonce: "c")
        #expect(sha512.authorization(method: "GET", uri: "/x", cnonce: "c")
            == "Digest username=\"c738f2ad401bc87a71fe78096015c97b9a26d55f15e9f50ac3a6de73ddcd3d08\", realm=\"r\", uri=\"/x\", "
            + "algorithm=SHA-512-256, nonce=\"n\", nc=00000002, cnonce=\"c\", qop=auth, "
            + "response=\"ca33aa04a4fc9f63ea9775b00273e9809c95062026eddf86672d313db9ff46e2\", userhash=true")
    }

    @Test("a non-ASCII user name goes as username* (RFC 8187); quotes in values are escaped")
    func usernameStar() throws {
        var digest = DigestAuthenticator(username: "J\u{E4}s\u{F8}n Doe", password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth", charset=UTF-8"#))
        #expect(digest.challenge.isUTF8)
        #expect(digest.authorization(method: "GET", uri: "/x", cnonce: "c")
            == "Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm=\"r\", uri=\"/x\", nonce=\"n\", nc=00000001, "
            + "cnonce=\"c\", qop=auth, response=\"5fbca1c01cf6bb59e2f0c194ced5bf17\"")
        var quoted = DigestAuthenticator(username: #"a"b\c"#, password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r\"q", nonce="n""#))
        #expect(quoted.authorization(method: "GET", uri: "/x").hasPrefix(#"Digest username="a\"b\\c", realm="r\"q", "#))
    }

    @Test("the field for a request: Authorization or Proxy-Authorization, the request's method and path")
    func field() throws {
        var digest = DigestAuthenticator(username: "u", password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r", nonce="n""#))
        let request = HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/x")
        let field = digest.authorizationField(for: request, target: .proxy)
        #expect(field.name == .proxyAuthorization)
        #expect(field.value == #"Digest username="u", realm="r", uri="/x", nonce="n", response="3042aef13752cb1d63f6787a080ffdfc""#)
        #expect(digest.authorizationField(for: request).name == .authorization)
        let connect = HTTPRequest(method: .connect, scheme: nil, authority: "origin.test:443", path: nil)
        #expect(digest.authorizationField(for: connect, target: .proxy).value.contains(#"uri="origin.test:443""#))
        let query = HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/a?b=1")
        #expect(digest.authorizationField(for: query).value.contains(#"uri="/a?b=1""#))
    }

    @Test("a random cnonce: 32 hex digits, different each time")
    func randomClientNonce() throws {
        var digest = DigestAuthenticator(username: "u", password: "p",
                                         challenge: try Self.challenge(#"Digest realm="r", nonce="n", qop="auth""#))
        let cnonce = { (value: String) -> Substring in
            let part = value.split(separator: ", ").first { $0.hasPrefix("cnonce=") }!
            return part.dropFirst(8).dropLast()
        }
        let first = cnonce(digest.authorization(method: "GET", uri: "/"))
        let second = cnonce(digest.authorization(method: "GET", uri: "/"))
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit))
        #expect(first != second)
    }
}

@Suite("Digest challenges")
struct DigestChallengeTests {
    @Test("parameters read: defaults, case, qop list, stale, userhash, charset, domain")
    func parameters() throws {
        let plain = try DigestAuthenticatorTests.challenge(#"Digest realm="r", nonce="n""#)
        #expect(plain.algorithm == .md5 && !plain.namesAlgorithm && plain.qualitiesOfProtection.isEmpty)
        #expect(!plain.isStale && !plain.userhash && !plain.isUTF8 && plain.opaque == nil && plain.domain.isEmpty)
        let full = try DigestAuthenticatorTests.challenge(
            #"digest Realm="r", NONCE="n", qop="auth-int, token, auth", Algorithm=sha-256, stale=TRUE, userhash=true, charset=utf-8, domain="/a /b", opaque=o"#)
        #expect(full.algorithm == .sha256 && full.namesAlgorithm)
        #expect(full.qualitiesOfProtection == [.authInt, .auth])
        #expect(full.isStale && full.userhash && full.isUTF8)
        #expect(full.domain == ["/a", "/b"])
        #expect(full.opaque == "o")
    }

    @Test("challenges that cannot be answered name why", arguments: [
        (#"Basic realm="r""#, DigestChallenge.Problem.notDigest("Basic")),
        (#"Digest nonce="n""#, DigestChallenge.Problem.missingParameter("realm")),
        (#"Digest realm="r""#, DigestChallenge.Problem.missingParameter("nonce")),
        (#"Digest realm="r", nonce="n", algorithm=SHA-1"#, DigestChallenge.Problem.unsupportedAlgorithm("SHA-1")),
        (#"Digest realm="r", nonce="n", qop="token""#, DigestChallenge.Problem.unsupportedQualityOfProtection("token")),
    ])
    func problems(_ text: String, _ problem: DigestChallenge.Problem) throws {
        let parsed = try #require(try AuthenticationChallenge.parse(text).first)
        #expect(throws: problem) { try DigestChallenge(parsed) }
    }

    @Test("first(in:) takes the first Digest challenge this client can answer")
    func first() throws {
        let challenges = try AuthenticationChallenge.parse(
            #"Basic realm="b", Digest realm="x", nonce="1", algorithm=SHA-1, Digest realm="y", nonce="2", algorithm=SHA-256, Digest realm="z", nonce="3""#)
        #expect(DigestChallenge.first(in: challenges)?.realm == "y")
        #expect(DigestChallenge.first(in: try AuthenticationChallenge.parse("Basic")) == nil)
    }

    @Test("algorithm names: every RFC 7616 spelling, any case; hashes of 'abc'")
    func algorithms() {
        #expect(DigestAlgorithm.allCases.map(\.name) == ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess"])
        #expect(DigestAlgorithm(name: "sha-512-256-SESS") == .sha512_256Session)
        #expect(DigestAlgorithm(name: "SHA-512") == nil)
        #expect(DigestAlgorithm.md5.hash("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(DigestAlgorithm.sha256.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(DigestAlgorithm.sha512_256.hash("abc") == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
    }
}
