/// Parses the command line and runs a subcommand; returns the exit status.
///
/// Hand-parsed rather than through swift-argument-parser: the root package
/// keeps no dependency beyond libuv and swift-http-types (a package
/// dependency reaches everyone who resolves the package, even when only
/// this executable uses it), and `fetch` reads its options the way curl
/// does (clusters such as `-iL`, attached values such as `-ofile`), which
/// the parser library does not spell.
enum CommandLineTool {
    static let usage = """
        usage: uvcombine demo [--fast]
               uvcombine fetch [options] URL      (uvcombine fetch --help for the options)
               uvcombine ws [--cacert FILE] [-k] [-H header] URL

          demo      start an embedded HTTP server on a loopback port and run the
                    five seed scenarios (connectable data task, autoconnect,
                    stopping a pipeline, data-task operators, timers) with real
                    timers and sockets; exit status 0 only if every scenario
                    produced what it should, 1 otherwise
            --fast  shrink the delays tenfold (for tests)
          fetch     curl's common command lines (-sSfL, -o, -O, -i, -I, -X, -H, -d,
                    -T, -u, -w, --retry, -m, -v ...) over HTTP/1.1 with the
                    data-task publishers: the same output and exit status
          ws        a WebSocket client for scripts: lines of standard input go out
                    as text messages, each message received is printed on its own
                    line; closes with 1000 at the end of input (uvcombine ws --help)
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 2
        }
        let options = Array(arguments.dropFirst())
        switch command {
        case "demo":
            var fast = false
            for option in options {
                switch option {
                case "--fast": fast = true
                case "-h", "--help":
                    print(usage)
                    return 0
                default:
                    printError("uvcombine demo: unknown option \(option)\n\n\(usage)")
                    return 2
                }
            }
            return DemoRunner(timeScale: fast ? 0.1 : 1).run() ? 0 : 1
        case "fetch":
            let parsed: FetchOptions
            do {
                parsed = try FetchOptions.parse(options)
            } catch {
                printError("uvcombine fetch: \(error)\nuvcombine fetch: try 'uvcombine fetch --help' for more information")
                return FetchExitCode.usage
            }
            if parsed.help {
                print(FetchOptions.usage)
                return 0
            }
            if parsed.version {
                print("uvcombine fetch (UVCombine) HTTP/1.1 http https")
                return 0
            }
            return FetchCommand(options: parsed).run()
        case "ws":
            let (command, status) = WebSocketCommand.parse(options)
            guard let command else { return status }
            return command.run()
        case "-h", "--help", "help":
            print(usage)
            return 0
        default:
            printError("uvcombine: unknown command \(command)\n\n\(usage)")
            return 2
        }
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    var stderr = StandardError()
    print(message, to: &stderr)
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        // write(2) on descriptor 2: no shared FILE* state to touch.
        var bytes = Array(string.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
