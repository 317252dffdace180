import Foundation
import HTTPTypes
import Testing
import UVCombineTesting

/// `uvcombine fetch` against `TestHTTPServer` (UVCombineTesting), which
/// records every request it parsed and misbehaves on demand.
@Suite("uvcombine fetch against TestHTTPServer")
struct FetchTests {
    static let payload = testBytes(200_000)

    static func makeServer() throws -> TestHTTPServer {
        try TestHTTPServer(routes: [
            "/data": TestHTTPServer.Response(headerFields: [.contentType: "application/octet-stream"], body: payload),
            "/hello": .text("hello\n"),
            "/echo": .text("echoed\n"),
            "/old": TestHTTPServer.Response(status: .found, headerFields: [.location: "/new"], body: Array("moved\n".utf8)),
            "/new": .text("the new place\n"),
            "/stall": .fault(.stall),
            "/cut": .fault(.closeMidBody, body: testBytes(10_000)),
            "/slow": .fault(.slowBody(chunks: 10, delay: .milliseconds(100)), body: testBytes(100_000)),
        ])
    }

    @Test func bodyBytesGoToStandardOutputUnchanged() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", server.url("/data").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(result.stdout) == Self.payload)
        #expect(result.stderr.isEmpty)
        #expect(server.requests.map(\.method) == ["GET"])
    }

    @Test func outputFileGetsTheBodyBytes() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let file = directory.file("data.bin")
        let result = try await runTool(["fetch", "-o", file.path, server.url("/data").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(Array(try Data(contentsOf: file)) == Self.payload)
    }

    @Test func schemelessURLIsHTTPAndDashIsStandardOutput() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-o", "-", "127.0.0.1:\(server.port)/hello"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == "hello\n")
    }

    @Test func includeWritesTheStatusLineAndHeaderFieldsBeforeTheBody() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-i", server.url("/hello").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.output
        #expect(output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(output.contains("Content-Type: text/plain; charset=utf-8\r\n"))
        #expect(output.contains("Content-Length: 6\r\n"))
        #expect(output.hasSuffix("\r\n\r\nhello\n"))
    }

    @Test func methodHeadersAndDataReachTheServer() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool([
            "fetch", "-X", "PUT", "-H", "X-Trace: abc 123", "-H", "Accept: application/json",
            "-H", "X-Trace: second", "-d", "a=1", "--data=b=2", server.url("/echo").absoluteString,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == "echoed\n")
        let requests = server.requests
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request.method == "PUT")
        #expect(request.path == "/echo")
        #expect(request.headerFields[values: HTTPField.Name("X-Trace")!] == ["abc 123", "second"])
        // -H replaces the default Accept; the other defaults stay.
        #expect(request.headerFields[values: .accept] == ["application/json"])
        #expect(request.headerFields[.userAgent] == "uvcombine-fetch/1")
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(request.body == Array("a=1&b=2".utf8))
    }

    @Test func dataImpliesPost() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-d", "name=uv", server.url("/echo").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.method) == ["POST"])
        #expect(server.requests.first?.body == Array("name=uv".utf8))
    }

    @Test func redirectsAreNotFollowedWithoutLocation() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-i", server.url("/old").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.hasPrefix("HTTP/1.1 302 Found\r\n"))
        #expect(result.output.contains("Location: /new\r\n"))
        #expect(result.output.hasSuffix("\r\n\r\nmoved\n"))
        #expect(server.requests.map(\.path) == ["/old"])
    }

    @Test func locationFollowsRedirects() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-L", server.url("/old").absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == "the new place\n")
        #expect(server.requests.map(\.path) == ["/old", "/new"])
    }

    @Test func maxTimeFailsWithTheTimeoutErrorAndStatus28() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "--max-time", "0.5", server.url("/stall").absoluteString], timeout: 60)
        #expect(result.status == 28)
        #expect(result.stderr.contains("UVURLError.timedOut: the request timed out (total timeout)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.seconds >= 0.45)
        #expect(result.seconds < 30)
    }

    @Test func badURLFailsWithBadURLAndStatus3() async throws {
        for url in ["http://exa mple.com/", "http:///path"] {
            let result = try await runTool(["fetch", url])
            #expect(result.status == 3, "\(url): \(result.stderr)")
            #expect(result.stderr.contains("(3) URL using bad/illegal format or missing URL"), "\(url): \(result.stderr)")
        }
    }

    @Test func unsupportedSchemeFailsWithStatus1() async throws {
        let result = try await runTool(["fetch", "ftp://127.0.0.1/file"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("UVURLError.unsupportedURL"), "\(result.stderr)")
    }

    @Test func refusedConnectionFailsWithStatus7() async throws {
        let server = try TestHTTPServer(fault: .refuse)
        defer { server.shutdown() }
        let result = try await runTool(["fetch", server.url("/").absoluteString])
        #expect(result.status == 7)
        #expect(result.stderr.contains("UVURLError.cannotConnectToHost"), "\(result.stderr)")
        #expect(result.stderr.contains("[UV_ECONNREFUSED]"))
    }

    @Test func connectionLostMidBodyFailsWithStatus56() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", server.url("/cut").absoluteString])
        #expect(result.status == 56)
        #expect(result.stderr.contains("UVURLError.networkConnectionLost"), "\(result.stderr)")
    }

    @Test func notFoundIsAResultUnlessFail() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let url = server.url("/missing").absoluteString
        let plain = try await runTool(["fetch", url])
        #expect(plain.status == 0)
        #expect(plain.output == "not found")
        let failing = try await runTool(["fetch", "--fail", url])
        #expect(failing.status == 22)
        #expect(failing.stdout.isEmpty)
        #expect(failing.stderr.contains("(22) The requested URL returned error: 404"))
    }

    @Test func unwritableOutputFailsWithStatus23() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let result = try await runTool(["fetch", "-o", "/nonexistent-directory/file", server.url("/hello").absoluteString])
        #expect(result.status == 23)
        #expect(result.stderr.contains("cannot create /nonexistent-directory/file"), "\(result.stderr)")
    }

    @Test func progressBarOnlyWhenStandardErrorIsATerminal() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let directory = try TemporaryDirectory()
        let url = server.url("/slow").absoluteString

        // Not a terminal: nothing on standard error.
        let quiet = try await runTool(["fetch", "-o", directory.file("quiet.bin").path, url])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty)
        #expect(Array(try Data(contentsOf: directory.file("quiet.bin"))) == testBytes(100_000))

        // A pseudo-terminal from script(1): the download takes about a
        // second, longer than the bar's half-second delay.
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "script(1) (bsdutils) is needed")
        let command = "\(toolURL().path) fetch -o \(directory.file("tty.bin").path) \(url)"
        let terminal = try await runProcess(script, ["-qec", command, "/dev/null"])
        #expect(terminal.status == 0, "\(terminal.output)")
        #expect(terminal.output.contains("] 100%  97.7 KiB of 97.7 KiB"), "\(terminal.output)")
        #expect(terminal.output.contains("["))
        #expect(Array(try Data(contentsOf: directory.file("tty.bin"))) == testBytes(100_000))
    }

    @Test func commandLineMistakesExitTwo() async throws {
        let cases: [([String], String)] = [
            (["fetch"], "no URL specified!"),
            (["fetch", "-I", "-d", "x", "http://a/"], "You can only select one HTTP request method!"),
            (["fetch", "--bogus", "http://a/"], "option --bogus: is unknown"),
            (["fetch", "-Z9", "http://a/"], "option -Z9: is unknown"),
            (["fetch", "--max-time", "soon", "http://a/"], "option --max-time: expected a proper numerical parameter"),
            (["fetch", "-o"], "option -o: requires parameter"),
            (["fetch", "--location=yes", "http://a/"], "option --location=yes: is unknown"),
        ]
        for (arguments, message) in cases {
            let result = try await runTool(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// curl's rules for error messages: shown by default, hidden by -s,
    /// shown again by -S.
    @Test func silentHidesErrorMessagesAndShowErrorBringsThemBack() async throws {
        let server = try TestHTTPServer(fault: .refuse)
        defer { server.shutdown() }
        let url = server.url("/").absoluteString
        for (flags, shown) in [([String](), true), (["-s"], false), (["-sS"], true), (["-S"], true), (["--silent", "--show-error"], true)] {
            let result = try await runTool(["fetch"] + flags + [url])
            #expect(result.status == 7, "\(flags)")
            #expect(result.stderr.contains("(7) Failed to connect to 127.0.0.1 port") == shown, "\(flags): \(result.stderr)")
        }
    }

    @Test func curlOptionsNotImplementedExitFour() async throws {
        for arguments in [["fetch", "-j", "-b", "cookies.txt", "http://a/"], ["fetch", "--http3", "http://a/"],
                          ["fetch", "-x", "socks5://proxy:1080", "http://a/"]] {
            let result = try await runTool(arguments)
            #expect(result.status == 4, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("(4) option"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func invalidMethodOrFieldNameIsAnInvalidRequest() async throws {
        for arguments in [["fetch", "-X", "GE T", "http://127.0.0.1:1/"], ["fetch", "-H", "Bad Name: x", "http://127.0.0.1:1/"]] {
            let result = try await runTool(arguments)
            #expect(result.status == 43, "\(arguments): \(result.stderr)")
        }
    }

    @Test func helpListsOptionsAndExitCodes() async throws {
        let result = try await runTool(["fetch", "--help"])
        #expect(result.status == 0)
        for text in ["-o, --output FILE", "-L, --location", "-m, --max-time", "-f, --fail", "--retry N", "-w, --write-out", "28 timed out"] {
            #expect(result.output.contains(text), "\(text)")
        }
    }
}
