#if OpenAPI
import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
@testable import UVCombineOpenAPI

/// How an operation's path and query join the server URL (as
/// swift-openapi-urlsession joins them), and each URL the session cannot
/// send, with its exact error.
@Suite("UVURLSessionTransport: server URL and operation path")
struct RequestTargetTests {
    private func joined(_ base: String, _ path: String?) throws -> String {
        try RequestTarget.joined(base, path)
    }

    @Test("the server URL's path, then the operation's path and query, as sent")
    func joining() throws {
        #expect(try joined("http://127.0.0.1:8080/api", "/pets/1?verbose=true")
            == "http://127.0.0.1:8080/api/pets/1?verbose=true")
        #expect(try joined("http://example.com", "/pets") == "http://example.com/pets")
        #expect(try joined("https://example.com/v1/api", "/pets") == "https://example.com/v1/api/pets")
        // Appended as they are: a trailing slash in the server URL stays.
        #expect(try joined("http://example.com/api/", "/pets") == "http://example.com/api//pets")
        // The server URL's query is the operation's; its fragment is never sent.
        #expect(try joined("http://example.com/api?key=1", "/pets") == "http://example.com/api/pets")
        #expect(try joined("http://example.com/api?key=1#top", "/pets?limit=2") == "http://example.com/api/pets?limit=2")
        // Percent-encoding is kept, not applied twice.
        #expect(try joined("http://example.com/a%20b", "/pets/x%2Fy?q=a%26b") == "http://example.com/a%20b/pets/x%2Fy?q=a%26b")
        #expect(try joined("http://[::1]:9000/api", "/pets") == "http://[::1]:9000/api/pets")
    }

    @Test("the request the session sends: method, scheme, authority, path, fields")
    func request() throws {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        let operation = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/pets?x=1", headerFields: fields)
        let sent = try RequestTarget.request(for: operation, baseURL: URL(string: "http://127.0.0.1:8080/api")!)
        #expect(sent.method == .post)
        #expect(sent.scheme == "http")
        #expect(sent.authority == "127.0.0.1:8080")
        #expect(sent.path == "/api/pets?x=1")
        #expect(sent.headerFields[.accept] == "application/json")
        let unix = try RequestTarget.request(
            for: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/status"),
            baseURL: URL(string: "http+unix://%2Ftmp%2Fapp.sock/api")!)
        #expect(unix.authority == "localhost")
        #expect(unix.path == "/api/status")
    }

    @Test("server URLs and paths the session cannot send fail with the exact UVURLError")
    func badURLs() {
        func failure(_ base: String, _ path: String? = "/pets") -> UVURLError? {
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
            do {
                _ = try RequestTarget.request(for: request, baseURL: URL(string: base)!)
                return nil
            } catch {
                return error
            }
        }
        let ftp = failure("ftp://example.com/api")
        #expect(ftp?.code == .unsupportedURL)
        #expect(ftp?.description == #"unsupported URL (scheme "ftp" is not http or https)"#)
        let relative = failure("/api")
        #expect(relative?.code == .badURL)
        #expect(relative?.detail == #"the server URL "/api" is not an absolute URL with a host"#)
        let credentials = failure("http://user:secret@example.com/api")
        #expect(credentials?.code == .badURL)
        let port = failure("http://example.com:70000/api")
        #expect(port?.code == .badURL)
        let noPath = failure("http://example.com/api", nil)
        #expect(noPath?.code == .badURL)
        #expect(noPath?.detail == "the operation's request has no path")
    }
}
#endif
