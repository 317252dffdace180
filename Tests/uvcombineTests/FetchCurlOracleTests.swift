import Foundation
import Testing

/// curl, if installed (CI installs it: .ci/run).
let curlExecutable = findExecutable("curl")

/// `uvcombine fetch` is a drop-in for curl's common command lines: each
/// case runs the same arguments with `curl` and with `uvcombine fetch`
/// against the same server, each in its own empty working directory, and
/// compares standard output byte for byte, the exit status, and the files
/// each left behind (`-o`, `-O`). Standard error is not compared (progress
/// meters and messages differ), except `-v`'s `>`/`<` lines.
///
/// The server (``OracleHTTPServer``) answers identically every time (fixed
/// `Date`), and its `/echo` route prints the request it received, so
/// comparing output compares what the two tools sent.
///
/// Serialized: each case starts processes and several wait on real time
/// (`-m`, `--retry`); one at a time keeps the machine's load, and the
/// timing of the other suites, reasonable.
@Suite("uvcombine fetch against curl as the oracle", .serialized,
       .enabled(if: curlExecutable != nil, "curl is not installed (apt-get install curl)"))
struct FetchCurlOracleTests {
    struct Run {
        let result: ToolResult
        let files: [String: Data]
    }

    /// Runs `arguments` with curl and with `uvcombine fetch`.
    static func run(_ arguments: [String], timeout: Double = 60) async throws -> (curl: Run, fetch: Run) {
        func one(_ executable: URL, _ prefix: [String]) async throws -> Run {
            let directory = try TemporaryDirectory()
            let result = try await runProcess(executable, prefix + arguments, timeout: timeout, directory: directory.url)
            var files: [String: Data] = [:]
            for name in FileManager.default.subpaths(atPath: directory.url.path) ?? [] {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: directory.file(name).path, isDirectory: &isDirectory)
                files[name] = isDirectory.boolValue ? Data("(directory)".utf8) : try Data(contentsOf: directory.file(name))
            }
            return Run(result: result, files: files)
        }
        return (try await one(curlExecutable!, []), try await one(toolURL(), ["fetch"]))
    }

    /// `Date: ...` lines blanked (a server whose clock shows through).
    static func withoutDates(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        // HTTP/2 heads spell field names in lowercase ("date:").
        return Data(text.replacing(/\b([Dd]ate): [^\r\n]*/, with: { "\($0.output.1): (any)" }).utf8)
    }

    /// Expects the same standard output, exit status and files; with
    /// `ignoringDates`, `Date` field lines may differ.
    static func expectSame(_ arguments: [String], timeout: Double = 60, ignoringDates: Bool = false,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (curl, fetch) = try await run(arguments, timeout: timeout)
        #expect(fetch.result.status == curl.result.status,
                "\(arguments): curl exited \(curl.result.status), fetch \(fetch.result.status): \(fetch.result.stderr)",
                sourceLocation: sourceLocation)
        let stdout = ignoringDates ? (withoutDates(curl.result.stdout), withoutDates(fetch.result.stdout))
            : (curl.result.stdout, fetch.result.stdout)
        #expect(stdout.1 == stdout.0,
                "\(arguments): curl printed \(curl.result.output.debugDescription), fetch \(fetch.result.output.debugDescription)",
                sourceLocation: sourceLocation)
        #expect(fetch.files == curl.files, "\(arguments): files \(curl.files.keys.sorted()) vs \(fetch.files.keys.sorted())",
                sourceLocation: sourceLocation)
    }

    @Test func bodiesAndSilentFlags() async throws {
        let server = try OracleHTTPServer(files: ["data.bin": Data(testBytes(300_000, seed: 3))])
        defer { server.stop() }
        for arguments in [
            [server.url("/echo")],
            ["-s", server.url("/echo")],
            ["-sS", server.url("/files/data.bin")],
            ["-sSL", server.url("/chunked")],
            ["-s", server.url("/http10/echo")],
            ["-s", server.url("/status/404")],
            ["-s", "127.0.0.1:\(server.port)/echo"],
            ["--silent", "--show-error", "--url", server.url("/echo")],
            [server.url("/echo"), "-s"],
            ["-s", "--", server.url("/echo")],
            // Dot segments resolved as curl does (unless --path-as-is).
            ["-s", server.url("/a/./b/../../echo?x=/../y")],
            ["-s", server.url("/../echo")],
            ["-s", "--path-as-is", server.url("/a/../echo")],
            ["-s", server.url("/echo#fragment")],
            // Several URLs: each in turn, the n-th -o/-O with the n-th URL,
            // the status the last one's.
            ["-s", "-w", "[%{http_code} %{url}]\\n", server.url("/status/200"), "http://127.0.0.1:1/", server.url("/status/201")],
            ["-sf", server.url("/status/404"), server.url("/status/200")],
            ["-sf", server.url("/status/200"), server.url("/status/404")],
            ["-s", server.url("/status/201"), "-o", "one", "-O", server.url("/status/200")],
            ["-s", "--remote-name-all", server.url("/status/200"), server.url("/status/201")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    @Test func headsAsReceived() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let upload = directory.file("upload.txt")
        try Data("line one\nline two\n".utf8).write(to: upload)
        for arguments in [
            ["-si", server.url("/echo")],
            ["-sI", server.url("/echo")],
            ["-si", server.url("/http10/status/200")],
            ["-sI", server.url("/http10/echo")],
            ["-si", server.url("/chunked")],
            ["-siL", server.url("/redirect/302?to=/status/201")],
            ["-sIL", server.url("/redirect/301?to=/echo")],
            ["-si", server.url("/redirect/302?to=/echo")],
            ["-sfi", server.url("/status/404")],
            // curl sends Expect: 100-continue with -T; the server's
            // interim 100 head is printed too.
            ["-si", "-T", upload.path, server.url("/status/201")],
            ["--include", "--silent", server.url("/status/204")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    /// A reader that goes away (`| head -c 10`): curl exits 23, and so
    /// does fetch (SIGPIPE is ignored; the failed write is the error).
    @Test func closedStandardOutputExits23() async throws {
        let server = try OracleHTTPServer(files: ["big.bin": Data(testBytes(2_000_000, seed: 4))])
        defer { server.stop() }
        guard let bash = findExecutable("bash") else { return }
        for tool in [curlExecutable!.path, toolURL().path + " fetch"] {
            let result = try await runProcess(bash, ["-c", "\(tool) -s \(server.url("/files/big.bin")) | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}"])
            #expect(result.status == 23, "\(tool): \(result.stderr)")
        }
    }

    @Test func failAndOutputFiles() async throws {
        let server = try OracleHTTPServer(files: ["data.bin": Data(testBytes(100_000, seed: 5))])
        defer { server.stop() }
        for arguments in [
            ["-sf", server.url("/status/404")],
            ["-f", server.url("/status/500")],
            ["-sSf", server.url("/status/200")],
            ["-s", "--fail-with-body", server.url("/status/403")],
            ["-s", "-o", "out.bin", server.url("/files/data.bin")],
            ["-so", "out.bin", server.url("/files/data.bin")],
            ["-s", "-o", "-", server.url("/echo")],
            ["-sO", server.url("/files/data.bin")],
            ["-s", "-O", server.url("/")],
            ["-sf", "-o", "absent.txt", server.url("/status/404")],
            ["-s", "-o", "empty.txt", server.url("/status/204")],
            ["-s", "-o", "/nonexistent-directory/out.txt", server.url("/echo")],
            ["-s", "-o", "a/b/c.txt", server.url("/echo")],
            ["-s", "--create-dirs", "-o", "a/b/c.txt", server.url("/echo")],
            ["-s", "--output-dir", "d", "-O", server.url("/files/data.bin")],
            ["-s", "--output-dir", "d", "--create-dirs", "-O", server.url("/files/data.bin")],
            ["-s", "-D", "-", "-L", server.url("/redirect/302?to=/status/200")],
            ["-s", "-D", "heads.txt", "-o", "body.txt", "-L", server.url("/redirect/301?to=/echo")],
            ["-s", "-i", "-D", "-", server.url("/status/201")],
            ["-s", "-r", "0-9", server.url("/echo")],
            ["-s", "--max-filesize", "10", server.url("/echo")],
            ["-s", "--max-filesize", "1000", server.url("/echo")],
            ["-s", "--max-filesize", "5", server.url("/chunked")],
            ["-sf", "--remove-on-error", "-i", "-o", "gone.txt", server.url("/status/404")],
            ["-sf", "--fail-early", server.url("/status/404"), server.url("/status/200")],
            // gzip: as sent without --compressed, decoded with it.
            ["-s", server.url("/gzip")],
            ["-s", "--compressed", server.url("/gzip")],
            ["-si", "--compressed", "-o", "gz.txt", server.url("/gzip")],
            // size_download counts the body as sent, before decoding.
            ["-s", "--compressed", "-o", "/dev/null", "-w", "%{size_download} %{size_header}\\n", server.url("/gzip")],
            ["-s", "--compressed", "-o", "/dev/null", "-w", "%{size_download}\\n", server.url("/chunked")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    @Test func whatIsSent() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let form = directory.file("form.txt")
        try Data("a=1\nb=2\r\n".utf8).write(to: form)
        let headers = directory.file("headers.txt")
        try Data("X-From-File: one\r\n\nX-Second: two\nAccept:\n".utf8).write(to: headers)
        for arguments in [
            ["-s", "-X", "DELETE", server.url("/echo")],
            ["-s", "-H", "X-One: 1", "-H", "X-Two: two words", server.url("/echo")],
            ["-s", "-H", "Accept:", "-H", "X-Empty;", server.url("/echo")],
            ["-s", "-H", "Accept: application/json", server.url("/echo")],
            ["-s", "-H", "@\(headers.path)", server.url("/echo")],
            ["-s", "-H", "@\(directory.file("missing.txt").path)", server.url("/echo")],
            ["-s", "-A", "", server.url("/echo")],
            ["-s", "-e", "http://example.com/from", server.url("/echo")],
            ["-s", "--oauth2-bearer", "token", server.url("/echo")],
            ["-q", "-sN", "--no-keepalive", "--tcp-fastopen", server.url("/echo")],
            ["-s", "-u", "user:secret", server.url("/auth")],
            ["-s", "-u", "user:wrong", server.url("/auth")],
            ["-s", "http://user:secret@127.0.0.1:\(server.port)/auth"],
            ["-s", "-d", "a=1", "-d", "b=2", server.url("/echo")],
            ["-s", "-d", "@\(form.path)", server.url("/echo")],
            ["-s", "--data-binary", "@\(form.path)", server.url("/echo")],
            ["-s", "--data-raw", "@not-a-file", server.url("/echo")],
            ["-s", "--data-urlencode", "q=a b&c/d", "--data-urlencode", "plain", server.url("/echo")],
            ["-s", "-d", "x=1", "-H", "Content-Type: application/json", server.url("/echo")],
            ["-s", "-G", "-d", "q=1", "-d", "r=2", server.url("/echo?p=0")],
            ["-s", "-d", "", server.url("/echo")],
            ["-s", "-T", form.path, server.url("/echo")],
            ["-s", "-T", form.path, server.url("/")],
            ["-s", "-X", "PATCH", "--data-binary", "@\(form.path)", server.url("/echo")],
            ["-s", "-T", directory.file("missing.txt").path, server.url("/echo")],
            ["-s", "--json", #"{"a":1}"#, server.url("/echo")],
            ["-s", "-F", "a=1", "-F", "f=@\(form.path)", "-F", "g=<\(form.path)", server.url("/echo")],
            ["-s", "-F", "h=@\(form.path);type=text/x-mine;filename=other.name", "--form-string", "s=@literal", server.url("/echo")],
            ["-s", "-F", "f=@\(directory.file("missing.txt").path)", server.url("/echo")],
            ["-s", "-F", "a=1", "-d", "b=2", server.url("/echo")],
            ["-s", "-b", "a=1; b=2", server.url("/echo")],
            ["-s", "-d", "@-", server.url("/echo")],
            ["-s", "-d", "@\(directory.file("missing.txt").path)", server.url("/echo")],
            ["-s", "-I", "-d", "x", server.url("/echo")],
            ["-s", "-G", "-I", "-d", "a=1", server.url("/echo")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    @Test func redirects() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let elsewhere = "http://localhost:\(server.port)/echo"
        for arguments in [
            ["-s", server.url("/redirect/302?to=/echo")],
            ["-sL", server.url("/redirect/302?to=/echo")],
            ["-sL", "-d", "x=1", server.url("/redirect/301?to=/echo")],
            ["-sL", "-d", "x=1", server.url("/redirect/302?to=/echo")],
            ["-sL", "-d", "x=1", server.url("/redirect/303?to=/echo")],
            ["-sL", "-d", "x=1", server.url("/redirect/307?to=/echo")],
            ["-sL", "-d", "x=1", server.url("/redirect/308?to=/echo")],
            ["-sL", "-X", "DELETE", server.url("/redirect/303?to=/echo")],
            // --proto and --proto-redir (rustup's --proto '=https').
            ["-sS", "--proto", "=https", "--tlsv1.2", server.url("/echo")],
            ["-s", "--proto", "-all,+http", server.url("/echo")],
            ["-s", "--proto", "https", server.url("/echo")],
            ["-s", "--proto", "-http", server.url("/echo")],
            ["-s", "--proto", "=bogus", server.url("/echo")],
            ["-sL", "--proto-redir", "=https", server.url("/redirect/302?to=/echo")],
            ["-s", "--proto-redir", "=https", server.url("/redirect/302?to=/echo")],
            ["-sL", server.url("/redirect/302?to=/redirect/301?to=/status/404")],
            ["-sLf", server.url("/redirect/302?to=/status/404")],
            ["-sL", "--max-redirs", "1", server.url("/redirect/302?to=/redirect/302?to=/echo")],
            ["-sL", "--max-redirs", "0", server.url("/redirect/302?to=/echo")],
            ["-sL", server.url("/redirect/300?to=/echo")],
            // Credentials stay with the first host unless trusted.
            ["-sL", "-u", "user:secret", server.url("/redirect/302?to=\(elsewhere)")],
            ["-s", "--location-trusted", "-u", "user:secret", server.url("/redirect/302?to=\(elsewhere)")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    @Test func writeOut() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let formatDirectory = try TemporaryDirectory()
        let formatFile = formatDirectory.file("format.txt")
        try Data("code=%{http_code}\\n\r\nsize=%{size_download}\n".utf8).write(to: formatFile)
        let format = "%{http_code} %{response_code} %{size_download} %{num_redirects} %{url_effective} "
            + "%{content_type} %{http_version} %{method} %{scheme} %{exitcode} %{redirect_url} %% \\t.\\n"
        for arguments in [
            ["-s", "-o", "/dev/null", "-w", format, server.url("/echo")],
            ["-s", "-w", format, "-L", server.url("/redirect/302?to=/status/404")],
            ["-s", "-w", format, server.url("/redirect/301?to=/echo")],
            ["-s", "-w", format, server.url("/http10/status/200")],
            ["-sf", "-w", format, server.url("/status/500")],
            ["-s", "-w", "%{http_code} %{exitcode}\\n", "http://127.0.0.1:1/"],
            ["-s", "-I", "-w", "%header{content-type}|%{size_upload}\\n", server.url("/echo")],
            ["-s", "-A", "same", "-d", "abc", "-w", "%{size_upload} %{size_request}\\n", "-o", "/dev/null", server.url("/status/200")],
            ["-s", "-w", "before %{onerror}after\\n", server.url("/echo")],
            ["-s", "-w", "%{stderr}to standard error", server.url("/echo")],
            ["-s", "-w", "@\(formatFile.path)", "-o", "/dev/null", server.url("/status/201")],
            ["-s", "--noproxy", "*", "-x", "", server.url("/echo")],
        ] {
            try await Self.expectSame(arguments)
        }
        // time_total: seconds with six decimals.
        let timed = try await runTool(["fetch", "-s", "-o", "/dev/null", "-w", "%{time_total}|%{time_starttransfer}", server.url("/echo")])
        #expect(timed.output.wholeMatch(of: /\d+\.\d{6}\|\d+\.\d{6}/) != nil, "\(timed.output)")
    }

    @Test func failuresExitAsCurl() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        for arguments in [
            ["-s", "http://127.0.0.1:1/"],
            ["-sS", "http://127.0.0.1:1/"],
            ["-s", "http://no-such-host.invalid/"],
            ["-s", "--bogus", server.url("/echo")],
            ["-s", "-Z9", server.url("/echo")],
            ["-s", "-Q", "NOOP", server.url("/echo")],
            ["-s", "-o"],
            ["-s"],
            [],
            ["-s", "--max-time", "soon", server.url("/echo")],
            ["-s", "--retry", "x", server.url("/echo")],
            ["-s", "-m", "0.5", server.url("/slow?s=3")],
            ["-s", "--connect-timeout", "5", server.url("/echo")],
            // A connect that hangs: 28 from --connect-timeout and from -m.
            ["-s", "--connect-timeout", "0.5", "http://127.0.0.1:\(server.blackholePort)/"],
            ["-s", "-m", "0.5", "http://127.0.0.1:\(server.blackholePort)/"],
            ["-s", "http://[::1/"],
            ["-s", "http://127.0.0.1:99999/"],
            ["-s", "http://127.0.0.1:\(server.port)/a b"],
            ["-s", server.url("/empty")],
            // A gzip body that does not decode: 61.
            ["-s", "--compressed", server.url("/gzip-corrupt")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    @Test func retriesOnlyTransientFailures() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        // curl waits 1 s before the first retry; these cases retry once.
        for arguments in [
            ["-s", "--retry", "2", server.url("/flaky?key=a&fails=1")],
            ["-sf", "--retry", "1", server.url("/flaky?key=b&fails=3")],
            ["-s", "--retry", "2", server.url("/flaky?key=c&fails=1&code=404")],
            ["-s", "--retry", "1", "--retry-delay", "1", "-o", "out.txt", server.url("/flaky?key=d&fails=1&code=429")],
            ["-s", "--retry", "3", "http://127.0.0.1:1/"],
            ["-s", "--retry", "1", "--retry-connrefused", "--retry-delay", "1", "http://127.0.0.1:1/"],
            // A timeout is transient: retried, and here timed out again.
            ["-s", "-m", "0.3", "--retry", "1", server.url("/slow?s=2")],
            // Retry-After: 1 (curl's wait for the first retry anyway).
            ["-s", "--retry", "1", "-w", "%{http_code}\\n", server.url("/flaky?key=e&fails=1&after=1")],
        ] {
            try await Self.expectSame(arguments)
        }
    }

    /// `-v`: the `>` and `<` lines are curl's, except `User-Agent` (each
    /// tool names itself) and the place of `Content-Length` (the session
    /// writes it after the fields; curl before `Content-Type`).
    @Test func verboseTraceLines() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        for arguments in [
            ["-s", "-v", server.url("/echo")],
            ["-s", "-v", "-d", "a=1", "-H", "X-Trace: 1", server.url("/echo")],
            ["-s", "-v", "-L", server.url("/redirect/302?to=/http10/status/200")],
        ] {
            let (curl, fetch) = try await Self.run(arguments)
            func traced(_ run: Run) -> [String] {
                // "\r\n" is one Character: split the scalars.
                run.result.stderr.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
                    .filter { ($0.hasPrefix("> ") || $0.hasPrefix("< ")) && !$0.contains("User-Agent:") && !$0.contains("Content-Length:") }
                    .map(String.init)
            }
            #expect(!traced(curl).isEmpty)
            #expect(traced(fetch) == traced(curl), "\(arguments)")
            #expect(fetch.result.stdout == curl.result.stdout, "\(arguments)")
            #expect(fetch.result.status == curl.result.status, "\(arguments)")
        }
    }

    /// nginx, a server we did not write: static files (gzip on for text,
    /// sent only when asked), basic auth, directory redirects, and https
    /// with a certificate made for this run.
    @Test(.enabled(if: NginxServer.executable != nil, "nginx is not installed"))
    func nginx() async throws {
        let certificate = try await FetchTLSTests.SelfSigned()
        let text = Data(String(repeating: "nginx serves this line.\n", count: 400).utf8)
        let server = try await NginxServer(
            files: ["text.txt": text, "data.bin": Data(testBytes(200_000, seed: 9)), "dir/index.html": Data("<p>index</p>\n".utf8),
                    "private/secret.txt": Data("the secret\n".utf8)],
            tls: (certificate.certificate, certificate.key))
        defer { server.stop() }
        let https = "https://localhost:\(server.tlsPort!)"
        for arguments in [
            ["-s", server.url("/text.txt")],
            ["-sO", server.url("/data.bin")],
            ["-si", server.url("/text.txt")],
            ["-sI", server.url("/data.bin")],
            // gzip, not decoded: the bytes nginx sent.
            ["-s", "-H", "Accept-Encoding: gzip", server.url("/text.txt")],
            ["-s", "--compressed", server.url("/text.txt")],
            // gzip and chunked: the encoded bytes without the framing.
            ["-s", "--compressed", "-o", "/dev/null", "-w", "%{size_download}\\n", server.url("/text.txt")],
            ["-s", "--compressed", "-w", "%{http_code}\\n", server.url("/data.bin")],
            ["-si", "--compressed", server.url("/text.txt")],
            ["-s", "--compressed", "-H", "Accept-Encoding: gzip", server.url("/text.txt")],
            // --unix-socket: the URL gives Host and the target.
            ["-s", "--unix-socket", server.socketPath, "http://localhost/text.txt"],
            ["-si", "--unix-socket", server.socketPath, "http://localhost/data.bin"],
            ["-s", "--unix-socket", server.directory.file("absent.sock").path, "http://localhost/text.txt"],
            ["-si", server.url("/dir")],
            ["-sL", server.url("/dir")],
            ["-siL", server.url("/dir")],
            ["-s", "-u", "user:secret", server.url("/private/secret.txt")],
            ["-si", "-u", "user:wrong", server.url("/private/secret.txt")],
            ["-sf", server.url("/private/secret.txt")],
            ["-s", "-w", "%{http_code} %{size_download} %{content_type}\\n", "-o", "/dev/null", server.url("/data.bin")],
            ["-s", "-X", "POST", "-d", "x", server.url("/text.txt")],
            ["-s", "--cacert", certificate.certificate, "\(https)/text.txt"],
            // rustup's install line, with our CA.
            ["--proto", "=https", "--tlsv1.2", "-sSf", "--cacert", certificate.certificate, "\(https)/text.txt"],
            ["-sI", "--cacert", certificate.certificate, "\(https)/data.bin"],
            ["-s", "\(https)/text.txt"],
            ["-sk", "\(https)/data.bin"],
            ["-s", "--cacert", certificate.directory.file("absent.pem").path, "\(https)/text.txt"],
            ["-sk", "-w", "%{scheme} %{http_code}\\n", "-o", "/dev/null", "\(https)/data.bin"],
            ["-sR", "-O", server.url("/data.bin")],
        ] {
            try await Self.expectSame(arguments, ignoringDates: true)
        }
        // -R: the file gets nginx's Last-Modified (the served file's time).
        let directory = try TemporaryDirectory()
        let fetched = directory.file("data.bin")
        let result = try await runTool(["fetch", "-sR", "-o", fetched.path, server.url("/data.bin")])
        #expect(result.status == 0)
        let served = try FileManager.default.attributesOfItem(atPath: server.directory.file("www/data.bin").path)
        let written = try FileManager.default.attributesOfItem(atPath: fetched.path)
        let servedTime = (served[.modificationDate] as? Date)?.timeIntervalSince1970.rounded(.down)
        #expect(servedTime != nil && (written[.modificationDate] as? Date)?.timeIntervalSince1970 == servedTime)
    }
}
