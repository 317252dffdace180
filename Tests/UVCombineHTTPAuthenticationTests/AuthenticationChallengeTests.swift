import HTTPTypes
import Testing
import UVCombineHTTPAuthentication

@Suite("Authentication challenges (RFC 9110 11.6.1)")
struct AuthenticationChallengeTests {
    @Test("several challenges in one field: parameters, token68, a bare scheme")
    func several() throws {
        let challenges = try AuthenticationChallenge.parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", Bearer, Negotiate YII=="#)
        #expect(challenges == [
            AuthenticationChallenge(scheme: "Newauth", parameters: [("realm", "apps"), ("type", "1"), ("title", #"Login to "apps""#)]),
            AuthenticationChallenge(scheme: "Basic", parameters: [("realm", "simple")]),
            AuthenticationChallenge(scheme: "Bearer"),
            AuthenticationChallenge(scheme: "Negotiate", token68: "YII=="),
        ])
    }

    @Test("names are lowercased, white space around '=' and empty list elements are allowed")
    func leniency() throws {
        let challenges = try AuthenticationChallenge.parse(" ,Digest  REALM = \"r\" ,, Nonce=abc ,\tqop=\"auth\", ")
        #expect(challenges.count == 1)
        let digest = try #require(challenges.first)
        #expect(digest.hasScheme("DIGEST"))
        #expect(digest.parameters.map(\.name) == ["realm", "nonce", "qop"])
        #expect(digest.parameter("Nonce") == "abc")
    }

    @Test("a token68 alone, and one followed by another challenge; 'name=' alone is a token68")
    func token68() throws {
        #expect(try AuthenticationChallenge.parse("Digest realm=") == [AuthenticationChallenge(scheme: "Digest", token68: "realm=")])
        #expect(try AuthenticationChallenge.parse("Basic abc=") == [AuthenticationChallenge(scheme: "Basic", token68: "abc=")])
        #expect(try AuthenticationChallenge.parse("A a/b+c, B x=y") == [
            AuthenticationChallenge(scheme: "A", token68: "a/b+c"),
            AuthenticationChallenge(scheme: "B", parameters: [("x", "y")]),
        ])
    }

    @Test("malformed fields name the problem and its offset", arguments: [
        ("", AuthenticationChallenge.ParseError(.expectedScheme, at: 0)),
        (" , ", AuthenticationChallenge.ParseError(.expectedScheme, at: 0)),
        ("\"x\"", AuthenticationChallenge.ParseError(.expectedScheme, at: 0)),
        ("Basic\"x\"", AuthenticationChallenge.ParseError(.expectedSpace, at: 5)),
        ("Digest realm=\"open", AuthenticationChallenge.ParseError(.unterminatedQuotedString, at: 13)),
        ("Digest realm=;", AuthenticationChallenge.ParseError(.expectedParameter, at: 7)),
        ("Digest realm=\"a\" nonce=\"b\"", AuthenticationChallenge.ParseError(.expectedComma, at: 17)),
        // "nonce=" is not a parameter (no value), so "nonce" starts a challenge.
        ("Digest realm=\"a\", nonce=", AuthenticationChallenge.ParseError(.expectedSpace, at: 23)),
        ("Digest a b", AuthenticationChallenge.ParseError(.expectedParameter, at: 7)),
        ("Digest realm=a, x=y z", AuthenticationChallenge.ParseError(.expectedComma, at: 20)),
    ])
    func malformed(_ text: String, _ error: AuthenticationChallenge.ParseError) {
        #expect(throws: error) { try AuthenticationChallenge.parse(text) }
    }

    @Test("challenges(in:for:) reads every field of the target, skipping ones that do not parse")
    func fromFields() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: "Basic realm=\"a\""))
        fields.append(HTTPField(name: .proxyAuthenticate, value: "Digest realm=\"p\", nonce=\"n\""))
        fields.append(HTTPField(name: .wwwAuthenticate, value: "Digest realm=\"open"))
        fields.append(HTTPField(name: .wwwAuthenticate, value: "Bearer"))
        #expect(AuthenticationChallenge.challenges(in: fields, for: .server).map(\.scheme) == ["Basic", "Bearer"])
        #expect(AuthenticationChallenge.challenges(in: fields, for: .proxy).map(\.scheme) == ["Digest"])
        #expect(AuthenticationTarget.server.authorizationFieldName == .authorization)
        #expect(AuthenticationTarget.proxy.authorizationFieldName == .proxyAuthorization)
    }
}
