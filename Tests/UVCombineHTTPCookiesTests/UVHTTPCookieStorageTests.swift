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

    @Test("isEmpty follows every change without the lock: receive, expiry, withStore, removeAll, a loaded store")
    func isEmptyWithoutLock() {
        let storage = UVHTTPCookieStorage()
        let url = CookieRequestURL(scheme: "https", host: "example.com", path: "/")
        #expect(storage.isEmpty)
        storage.receive(setCookie: "a=1", from: url, now: now)
        #expect(!storage.isEmpty)
        storage.removeAll()
        #expect(storage.isEmpty)
        storage.receive(setCookie: "b=2; Max-Age=10", from: url, now: now)
        #expect(!storage.isEmpty)
        // Reading the Cookie field after the expiry removes the cookie.
        #expect(storage.cookieHeader(for: url, now: now + 20) == nil)
        #expect(storage.isEmpty)
        storage.withStore { _ = $0.receive(setCookie: "c=3", from: url, now: now) }
        #expect(!storage.isEmpty)
        storage.withStore { $0.removeAll() }
        #expect(storage.isEmpty)
        var store = CookieStore()
        store.receive(setCookie: "d=4", from: url, now: now)
        #expect(!UVHTTPCookieStorage(store).isEmpty)
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
        #expect(!storage.isEmpty)
    }
}
