import HTTPTypes
import Testing
import UVCombineHTTPCookies

@Suite("UVHTTPCookieStorage (the locked session store)")
struct UVHTTPCookieStorageTests {
    let now: Int64 = 1_700_000_000

    @Test("forwards to the store: receive, Cookie field, cookies, removal, withStore")
    func forwards() {
        let storage = UVHTTPCookieStorage()
        let url = CookieRequestURL(scheme: "https", host: "example.com", path: "/")
        var fields = HTTPFields()
        fields.append(HTTPField(name: .setCookie, value: "a=1"))
        #expect(storage.receive(fields, from: url, now: now) == [.stored])
        #expect(storage.receive(setCookie: "b=2; Secure", from: url, now: now) == .stored)
        #expect(storage.cookieHeader(for: url, now: now) == "a=1; b=2")
        #expect(storage.cookies.map(\.name) == ["a", "b"])
        #expect(storage.withStore { $0.count } == 2)
        storage.removeAll()
        #expect(storage.cookies.isEmpty)
    }

    @Test("many tasks storing and reading at once lose nothing")
    func concurrent() async {
        let storage = UVHTTPCookieStorage()
        let now = self.now
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let url = CookieRequestURL(scheme: "http", host: "h\(task).example", path: "/")
                    for index in 0..<50 {
                        storage.receive(setCookie: "c\(index)=\(task)", from: url, now: now)
                        _ = storage.cookieHeader(for: url, now: now)
                    }
                }
            }
        }
        #expect(storage.withStore { $0.count } == 400)
    }
}
