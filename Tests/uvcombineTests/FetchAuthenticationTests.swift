import Foundation
import Testing

/// `uvcombine fetch --digest -u` and `--basic` against curl, on a server
/// that checks RFC 7616 Digest answers (OracleHTTPServer's `/digest`,
/// with a fixed nonce so that both tools meet the same challenge): the
/// same body, status and `-w` fields, for the right and a wrong password.
@Suite("uvcombine fetch authentication against curl", .serialized,
       .enabled(if: curlExecutable != nil, "curl is not installed (apt-get install curl)"))
struct FetchAuthenticationTests {
    @Test("--digest -u answers the challenge once (MD5, SHA-256); a wrong password gets the 401; --basic as before")
    func digestAndBasic() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let format = "%{http_code} %{num_connects} %{size_download}\\n"
        for arguments in [
            ["-s", "--digest", "-u", "user:secret", "-w", format, server.url("/digest")],
            ["-s", "--digest", "-u", "user:secret", "-w", format, server.url("/digest?algorithm=SHA-256")],
            ["-s", "--digest", "-u", "user:wrong", "-w", format, server.url("/digest")],
            ["-s", "-w", format, server.url("/digest")],
            ["-s", "--basic", "-u", "user:secret", "-w", format, server.url("/auth")],
            ["-s", "--digest", "--basic", "-u", "user:secret", "-w", format, server.url("/auth")],
            ["-s", "--basic", "--digest", "-u", "user:secret", "-w", format, server.url("/digest")],
            ["-s", "-L", "--digest", "-u", "user:secret", "-w", format, server.url("/redirect/302?to=/digest")],
        ] {
            try await FetchCurlOracleTests.expectSame(arguments)
        }
        // The Digest answer is what the server checked: the body says so.
        let run = try await runTool(["fetch", "-s", "--digest", "-u", "user:secret", server.url("/digest")])
        #expect(run.output == "welcome MD5\n")
    }
}
