import Testing
import UVCombineHTTPAuthentication

@Suite("Basic authentication (RFC 7617)")
struct BasicAuthenticationTests {
    @Test("RFC 7617's examples, and RFC 4648's base64 padding cases", arguments: [
        ("Aladdin", "open sesame", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("test", "123\u{A3}", "Basic dGVzdDoxMjPCow=="),
        ("", "", "Basic Og=="),
        ("f", "", "Basic Zjo="),
        ("fo", "", "Basic Zm86"),
        ("foo", "bar", "Basic Zm9vOmJhcg=="),
    ])
    func examples(_ user: String, _ password: String, _ expected: String) throws {
        #expect(try BasicAuthentication.authorization(username: user, password: password) == expected)
    }

    @Test("a colon in the user-id or a control character is refused; a colon in the password is fine")
    func refusals() throws {
        #expect(throws: BasicAuthentication.Problem.colonInUsername) {
            try BasicAuthentication.authorization(username: "a:b", password: "c")
        }
        #expect(throws: BasicAuthentication.Problem.controlCharacter) {
            try BasicAuthentication.authorization(username: "a\n", password: "c")
        }
        #expect(throws: BasicAuthentication.Problem.controlCharacter) {
            try BasicAuthentication.authorization(username: "a", password: "c\u{7F}")
        }
        #expect(try BasicAuthentication.authorization(username: "a", password: "b:c") == "Basic YTpiOmM=")
    }

    @Test("the realm of the first Basic challenge")
    func realm() throws {
        let challenges = try AuthenticationChallenge.parse(#"Digest realm="d", nonce="n", basic realm="b", Basic realm="c""#)
        #expect(BasicAuthentication.realm(in: challenges) == "b")
        #expect(BasicAuthentication.realm(in: try AuthenticationChallenge.parse("Basic")) == "")
        #expect(BasicAuthentication.realm(in: try AuthenticationChallenge.parse("Bearer")) == nil)
    }
}
