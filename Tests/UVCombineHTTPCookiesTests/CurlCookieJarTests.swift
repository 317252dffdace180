import Foundation
import Testing
import TestServerSupport
import UVCombineHTTPCookies

/// The same server conversation through curl 7.88 (`-c` / `-b`) and
/// through the store: the jars and the Cookie fields must agree.
///
/// Where curl 7.88 departs from RFC 6265 the conversation avoids it
/// (docs/cookies.md, "Differences from curl"): curl writes a `Domain`
/// attribute's letters as received (`.EXAMPLE.test`) and then mismatches
/// on replacement, and writes a `Path` that does not start with `/` as
/// received instead of the default path; and after reading a jar with
/// `-b`, a cookie deleted by `Max-Age=0` comes back in the jar it writes
/// when another `Set-Cookie` follows in the same response.
@Suite("Cookie jar against curl", .enabled(if: ServerProcess.executable(named: "curl") != nil))
struct CurlCookieJarTests {
    static let host = "www.example.test"

    static let routes: [String: [String]] = [
        "/step1": [
            "host=1",
            "dom=2; Domain=example.test; Path=/; Expires=Thu, 01 Jan 2099 00:00:00 GMT",
            "ho=3; HttpOnly; Path=/p/",
            "dotted=4; Domain=.example.test; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
            "sec=5; Secure",
            "bad=6; Domain=other.test",
            "tld=7; Domain=test",
            "ss=8; SameSite=Lax",
        ],
        "/step2": [
            "host=changed",
            "new=10; Path=/",
            // Last: curl 7.88, having read its cookies with -b, brings a
            // cookie deleted this way back into the jar it writes when
            // another Set-Cookie follows in the same response.
            "dom=; Max-Age=0; Domain=example.test; Path=/",
        ],
    ]

    /// What a jar holds, in an order-free form.
    static func lines(_ jar: String) -> [String] {
        jar.split(separator: "\n").filter { !$0.hasPrefix("# ") }.map(String.init).sorted()
    }

    @Test("cookies set, updated and deleted: curl's jars equal ours; curl reads our jar and sends the same Cookie field")
    func conversation() async throws {
        guard let server = try CookieOracleServer(routes: Self.routes) else { return }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uvc-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar1 = directory.appendingPathComponent("jar1").path
        let jar2 = directory.appendingPathComponent("jar2").path
        let ours = directory.appendingPathComponent("ours").path
        let resolve = ["--resolve", "\(Self.host):\(server.port):127.0.0.1"]
        let base = "http://\(Self.host):\(server.port)"
        let now = Int64(Date().timeIntervalSince1970)

        // Step 1: a fresh jar. Byte for byte the same file.
        let first = try await runCurl(resolve + ["-c", jar1, base + "/step1"])
        #expect(first.status == 0)
        var store = CookieStore()
        let url1 = CookieRequestURL(scheme: "http", host: Self.host, path: "/step1")
        let outcomes = store.receive(setCookieLines: Self.routes["/step1"]!, from: url1, now: now)
        #expect(outcomes.filter { if case .rejected = $0 { return true } else { return false } }.count == 3)
        let curlJar1 = try String(contentsOfFile: jar1, encoding: .utf8)
        #expect(curlJar1 == NetscapeCookieJar.serialize(store.cookies, now: now))

        // Step 2: curl sends what we would send, then updates and deletes.
        let url2 = CookieRequestURL(scheme: "http", host: Self.host, path: "/step2")
        let expectedCookie = store.cookieHeader(for: url2, now: now) ?? ""
        let second = try await runCurl(resolve + ["-b", jar1, "-c", jar2, base + "/step2"])
        #expect(second.status == 0)
        #expect(Set(second.output.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            == Set(expectedCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }))
        store.receive(setCookieLines: Self.routes["/step2"]!, from: url2, now: now)
        let curlJar2 = try String(contentsOfFile: jar2, encoding: .utf8)
        #expect(Self.lines(curlJar2) == Self.lines(NetscapeCookieJar.serialize(store.cookies, now: now)))
        let parsed = NetscapeCookieJar.parse(curlJar2, now: now)
        #expect(parsed.rejectedLines == [])
        // The jar has no SameSite column.
        let withoutSameSite = store.cookies.map { cookie in
            var copy = cookie
            copy.sameSite = nil
            return copy.description
        }
        #expect(Set(parsed.cookies.map(\.description)) == Set(withoutSameSite))

        // Step 3: curl reads a jar we wrote (with an expired and a Secure
        // cookie curl must not send over http) and sends what we send.
        var extra = store
        extra.insert(UVHTTPCookie(name: "old", value: "x", domain: Self.host, isHostOnly: true, path: "/",
                                  expires: 1000, creationTime: now), now: 0)
        extra.insert(UVHTTPCookie(name: "secure", value: "y", domain: "example.test", isHostOnly: false, path: "/",
                                  expires: nil, isSecure: true, creationTime: now), now: now)
        try NetscapeCookieJar.serialize(extra.cookies, now: 0).write(toFile: ours, atomically: true, encoding: .utf8)
        let url3 = CookieRequestURL(scheme: "http", host: Self.host, path: "/p/echo")
        let ourHeader = extra.cookieHeader(for: url3, now: now) ?? ""
        #expect(!ourHeader.contains("old=") && !ourHeader.contains("secure="))
        let third = try await runCurl(resolve + ["-b", ours, base + "/p/echo"])
        #expect(third.status == 0)
        #expect(third.output.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.sorted()
            == ourHeader.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.sorted())
        #expect(ourHeader.hasPrefix("ho=3; "))
    }
}

extension CookieStore {
    /// Receives Set-Cookie lines in order.
    @discardableResult
    mutating func receive(setCookieLines lines: [String], from url: CookieRequestURL, now: Int64) -> [Outcome] {
        lines.map { receive(setCookie: $0, from: url, now: now) }
    }
}
