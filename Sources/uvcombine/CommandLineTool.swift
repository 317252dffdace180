/// Parses the command line and runs a subcommand; returns the exit status.
///
/// Hand-parsed rather than through swift-argument-parser so the package keeps
/// no dependency beyond libuv and swift-http-types.
enum CommandLineTool {
    static let usage = """
        usage: uvcombine demo [--fast]

          demo      run the seed scenarios (timers, connectable publishers,
                    stopping a pipeline) on a libuv loop; exit status 0 only
                    if every scenario produced what it should
          --fast    shrink the delays (for tests)
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
                default:
                    printError("uvcombine demo: unknown option \(option)\n\n\(usage)")
                    return 2
                }
            }
            return DemoRunner(timeScale: fast ? 0.1 : 1).run() ? 0 : 1
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
