import Foundation
import HTTPTypes

/// `uvcombine fetch`'s command line, parsed the way curl reads its own:
/// options before or after the URL, short options clustered (`-iL`), a
/// short option's value attached or separate (`-ofile`, `-o file`), long
/// options with `--name value` or `--name=value`, and `--` ending options.
struct FetchOptions {
    var url: String = ""
    var output: String?
    var includeHead = false
    var method: String?
    var headers: [(name: String, value: String)] = []
    var data: String?
    var maxTime: Double?
    var followRedirects = false
    var failOnHTTPError = false
    var help = false

    /// A command-line mistake; exit status 2.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: uvcombine fetch [options] URL       (a URL without a scheme is http)

        Fetches URL over HTTP/1.1 with UVCombine's data-task publishers (the
        response streams through bytesPublisher, so -o never holds the whole
        body in memory) and writes the body to standard output or FILE.

          -o, --output FILE        write the body to FILE instead of standard output
                                   (- is standard output)
          -i, --include            write the status line and header fields before the body
          -X, --request METHOD     use METHOD (default GET, or POST with -d)
          -H, --header 'Name: value'
                                   add a header field (repeatable; replaces the default
                                   User-Agent, Accept or Content-Type of the same name)
          -d, --data DATA          send DATA as the body (implies POST and Content-Type
                                   application/x-www-form-urlencoded, like curl; repeated
                                   -d values are joined with '&')
          -m, --max-time SECONDS   fail with a timeout when the whole transfer takes longer
          -L, --location           follow redirects (up to 50); without it a 3xx response
                                   is the result, as with curl
          -f, --fail               exit with status 22 on an HTTP status of 400 or more,
                                   writing no body (without it, a 404 is a result: status 0)
          -h, --help               show this help

        A progress bar appears on standard error for downloads that take longer
        than half a second, when standard error is a terminal (and the body
        does not go to that terminal).

        Exit status (curl's numbers where curl has one):
           0  the transfer completed (whatever the HTTP status, unless --fail)
           1  unsupported URL scheme (https: TLS is not built yet), or another failure
           2  bad command line
           3  bad URL (no host, bad port, user info, control characters, ...)
           6  the host name did not resolve
           7  cannot connect to the host (refused, unreachable)
           8  the server's response is not valid HTTP/1.1
          22  HTTP status 400 or more, with --fail
          23  cannot write the output (FILE or standard output)
          28  timed out (--max-time, or the session's connect or idle-read timeout)
          43  the request cannot be sent (an invalid method or header field)
          47  too many redirects, or a redirect from https to http
          56  the connection was lost while receiving the response
          63  the response is larger than allowed
        On failure the typed error (UVURLError with its code) goes to standard error.
        """

    /// Short options that take a value.
    private static let shortWithValue: [Character: String] = [
        "o": "--output", "X": "--request", "H": "--header", "d": "--data", "m": "--max-time",
    ]
    /// Short flags.
    private static let shortFlags: [Character: String] = [
        "i": "--include", "L": "--location", "f": "--fail", "h": "--help",
    ]
    private static let longWithValue: Set<String> = ["--output", "--request", "--header", "--data", "--max-time"]
    private static let longFlags: Set<String> = ["--include", "--location", "--fail", "--help"]

    /// Parses the arguments after `fetch`.
    static func parse(_ arguments: [String]) throws(UsageError) -> FetchOptions {
        var options = FetchOptions()
        var urls: [String] = []
        var index = 0
        var optionsEnded = false

        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                urls.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    let name = String(argument[..<equals])
                    guard longWithValue.contains(name) else {
                        throw UsageError(description: "unknown option \(name)")
                    }
                    try options.apply(name, value: String(argument[argument.index(after: equals)...]))
                } else if longWithValue.contains(argument) {
                    try options.apply(argument, value: try value(for: argument))
                } else if longFlags.contains(argument) {
                    try options.apply(argument, value: nil)
                } else {
                    throw UsageError(description: "unknown option \(argument)")
                }
            } else {
                // A cluster of short options: flags, then at most one
                // option whose value is the rest or the next argument.
                var letters = argument.dropFirst()
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if let name = shortFlags[letter] {
                        try options.apply(name, value: nil)
                    } else if let name = shortWithValue[letter] {
                        let given = letters.isEmpty ? try value(for: "-\(letter)") : String(letters)
                        try options.apply(name, value: given)
                        break
                    } else {
                        throw UsageError(description: "unknown option -\(letter)")
                    }
                }
            }
            index += 1
        }
        if options.help { return options }
        guard urls.count == 1 else {
            throw UsageError(description: urls.isEmpty ? "no URL given" : "more than one URL given: \(urls.joined(separator: " "))")
        }
        options.url = urls[0]
        return options
    }

    private mutating func apply(_ option: String, value: String?) throws(UsageError) {
        switch option {
        case "--output":
            guard let value, !value.isEmpty else { throw UsageError(description: "--output needs a file name") }
            output = value == "-" ? nil : value
        case "--request":
            guard let value, HTTPRequest.Method(value) != nil else {
                throw UsageError(description: "--request: \(value.map { "\"\($0)\"" } ?? "") is not an HTTP method (a token such as GET or PUT)")
            }
            method = value
        case "--header":
            guard let value, let colon = value.firstIndex(of: ":") else {
                throw UsageError(description: "--header: expected 'Name: value', got \(value.map { "\"\($0)\"" } ?? "nothing")")
            }
            let name = String(value[..<colon]).trimmingCharacters(in: .whitespaces)
            guard HTTPField.Name(name) != nil else {
                throw UsageError(description: "--header: \"\(name)\" is not a valid header field name")
            }
            headers.append((name, String(value[value.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        case "--data":
            let value = value ?? ""
            data = data.map { $0 + "&" + value } ?? value
        case "--max-time":
            guard let value, let seconds = Double(value), seconds > 0, seconds.isFinite else {
                throw UsageError(description: "--max-time: expected a positive number of seconds, got \(value.map { "\"\($0)\"" } ?? "nothing")")
            }
            maxTime = seconds
        case "--include": includeHead = true
        case "--location": followRedirects = true
        case "--fail": failOnHTTPError = true
        case "--help": help = true
        default: throw UsageError(description: "unknown option \(option)")
        }
    }
}
