import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The session's cookie store on real sockets: a server that sets,
/// updates and deletes cookies (one through a redirect) and answers with
/// the `Cookie` field it received.
@Suite("UVURLSession cookies")
struct SessionCookieTests {
    /// `/login` redirects to `/home` setting `sid`; `/home` sets `theme`;
    /// `/update` changes `theme` and deletes `sid`; every answer's body is
    /// the request's `Cookie` field lines joined by `|` (or `-`).
    static func server() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            let sent = request.headerFields[values: .cookie]
            let body = Array((sent.isEmpty ? "-" : sent.joined(separator: "|")).utf8)
            var fields = HTTPFields()
            switch request.path {
            case "/login":
                fields.append(HTTPField(name: .setCookie, value: "sid=1; Path=/; HttpOnly"))
                fields[.location] = "/home"
                return TestHTTPServer.Response(status: .found, headerFields: fields, body: body)
            case "/home":
                fields.append(HTTPField(name: .setCookie, value: "theme=dark; Path=/"))
            case "/update":
                fields.append(HTTPField(name: .setCookie, value: "theme=light; Path=/"))
                fields.append(HTTPField(name: .setCookie, value: "sid=; Path=/; Max-Age=0"))
            default:
                break
            }
            return TestHTTPServer.Response(status: .ok, headerFields: fields, body: body)
        }
    }

    @Test("set across a redirect, sent on the next hop and the next request, updated, deleted; one Cookie line")
    func conversation() throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let storage = UVHTTPCookieStorage()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.httpCookieStorage = storage
            let session = UVURLSession(loop: loop, configuration: configuration)
            // The redirect's Set-Cookie is stored before the next hop goes.
            #expect(fetch(session.dataTaskPublisher(for: server.url("/login")), on: loop)?.text == "sid=1")
            #expect(storage.cookies.map(\.name) == ["sid", "theme"])
            #expect(fetch(session.dataTaskPublisher(for: server.url("/update")), on: loop)?.text == "sid=1; theme=dark")
            #expect(storage.cookies.map { "\($0.name)=\($0.value)" } == ["theme=light"])
            #expect(fetch(session.dataTaskPublisher(for: server.url("/echo")), on: loop)?.text == "theme=light")
        }
    }

    @Test("switched off (nil storage): nothing sent, nothing stored")
    func switchedOff() throws {
        let server = try Self.server()
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.httpCookieStorage = nil
            #expect(configuration != UVURLSession.Configuration())
            let session = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/login")), on: loop)?.text == "-")
            #expect(fetch(session.dataTaskPublisher(for: server.url("/echo")), on: loop)?.text == "-")
        }
    }

    @Test("on by default, in the shared storage, as URLSession's default configuration")
    func onByDefault() throws {
        #expect(UVURLSession.Configuration().httpCookieStorage === UVURLSession.sharedCookieStorage)
        #expect(UVURLSession.Configuration() == UVURLSession.Configuration.default)
        let server = try Self.server()
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/login")), on: loop)?.text == "sid=1")
        }
        let url = CookieRequestURL(scheme: "http", host: "127.0.0.1", path: "/")
        #expect(UVURLSession.sharedCookieStorage.cookieHeader(for: url, now: Int64(Date().timeIntervalSince1970))?
            .contains("theme=dark") == true)
        UVURLSession.sharedCookieStorage.removeAll()
    }

    @Test("a request's own Cookie field is sent as it is, not merged")
    func ownCookieFieldWins() throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let storage = UVHTTPCookieStorage()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.httpCookieStorage = storage
            let session = UVURLSession(loop: loop, configuration: configuration)
            _ = fetch(session.dataTaskPublisher(for: server.url("/home")), on: loop)
            var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/echo")
            request.headerFields.append(HTTPField(name: .cookie, value: "mine=1"))
            #expect(fetch(session.dataTaskPublisher(for: request), on: loop)?.text == "mine=1")
        }
    }
}
