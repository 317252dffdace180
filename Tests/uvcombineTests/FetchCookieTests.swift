import Foundation
import Testing

/// `uvcombine fetch -b / -c / --cookie-jar` against curl: the same server
/// conversation (a redirect that sets a cookie, then steps that set,
/// update and delete cookies) run by each tool in its own directory, one
/// command after the other sharing the jar file; each step must send the
/// same cookies (the server echoes the `Cookie` field) and leave a jar
/// with the same lines (the expiry dates are fixed, so the lines do not
/// depend on the clock). Only the order may differ, after a jar was read
/// (``pairs(_:)``); a jar written from responses alone is byte-identical
/// (the first step, and CurlCookieJarTests).
@Suite("uvcombine fetch cookies against curl", .serialized,
       .enabled(if: curlExecutable != nil, "curl is not installed (apt-get install curl)"))
struct FetchCookieTests {
    struct Conversation {
        var outputs: [String] = []
        var statuses: [Int32] = []
        var jars: [String] = []
    }

    /// Runs each command line in one working directory, collecting
    /// standard output, the status and the jar after each.
    static func converse(_ executable: URL, _ prefix: [String], _ commands: [[String]]) async throws -> Conversation {
        let directory = try TemporaryDirectory()
        var conversation = Conversation()
        for command in commands {
            let result = try await runProcess(executable, prefix + command, timeout: 60, directory: directory.url)
            conversation.outputs.append(result.output)
            conversation.statuses.append(result.status)
            let jar = (try? String(contentsOf: directory.file("jar.txt"), encoding: .utf8)) ?? "(none)"
            conversation.jars.append(jar)
        }
        return conversation
    }

    /// The cookies of an echoed `cookie: a=1; b=2` line, as a set: the
    /// order of cookies with paths of one length differs (curl sorts them
    /// by name length, then by the order it read them, which a jar
    /// round trip reverses; RFC 6265 and we, by creation time).
    static func pairs(_ output: String) -> Set<String> {
        Set(output.dropFirst("cookie: ".count).split(separator: "; ").map {
            String($0).trimmingCharacters(in: .newlines)
        })
    }

    /// A jar's lines as a set (the header lines included): the same
    /// cookies, whatever their order.
    static func lines(_ jar: String) -> Set<String> {
        Set(jar.split(separator: "\n").map(String.init))
    }

    @Test("set through a redirect, update, delete: the same Cookie fields sent and the same jar files as curl")
    func conversation() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        let commands: [[String]] = [
            ["-s", "-L", "-c", "jar.txt", server.url("/cookies/start")],
            ["-s", "-b", "jar.txt", "-c", "jar.txt", server.url("/cookies/update")],
            ["-s", "-b", "jar.txt", "--cookie-jar", "jar.txt", server.url("/cookies/set")],
            ["-s", "-b", "jar.txt", "-b", "extra=x", "-c", "jar.txt", server.url("/cookies/clear")],
            ["-s", "-b", "jar.txt", "-c", "jar.txt", server.url("/cookies/clear2")],
            ["-s", "-b", "jar.txt", server.url("/cookies/echo")],
            // Without -b FILE or -c no cookie engine: nothing sent but -b's string.
            ["-s", "-L", "-b", "only=this", server.url("/cookies/start")],
        ]
        let curl = try await Self.converse(curlExecutable!, [], commands)
        let fetch = try await Self.converse(toolURL(), ["fetch"], commands)
        #expect(fetch.statuses == curl.statuses)
        for index in commands.indices {
            #expect(Self.pairs(fetch.outputs[index]) == Self.pairs(curl.outputs[index]),
                    "\(commands[index]): sent \(fetch.outputs[index]) vs \(curl.outputs[index])")
            #expect(Self.lines(fetch.jars[index]) == Self.lines(curl.jars[index]),
                    "\(commands[index]): jar \(fetch.jars[index]) vs \(curl.jars[index])")
        }
        // The conversation did what it says.
        #expect(curl.outputs[0] == "cookie: hop=1\n")
        #expect(fetch.jars[0] == curl.jars[0], "no jar read yet: the same bytes")
        #expect(curl.jars[1].contains("a\tchanged") && !curl.jars[1].contains("\tb\t2"))
        #expect(!curl.jars[3].contains("\thop\t") && !curl.jars[4].contains("\tc\t3"))
        #expect(curl.outputs[6] == "cookie: only=this\n")
    }

    @Test("-c - writes the jar to standard output; -b with a missing file loads nothing")
    func jarToStandardOutputAndMissingFile() async throws {
        let server = try OracleHTTPServer()
        defer { server.stop() }
        for arguments in [
            ["-s", "-o", "/dev/null", "-c", "-", server.url("/cookies/set")],
            ["-s", "-b", "no-such-file", server.url("/cookies/echo")],
            ["-s", "-b", "", "-c", "jar.txt", server.url("/cookies/echo")],
        ] {
            try await FetchCurlOracleTests.expectSame(arguments)
        }
    }
}
