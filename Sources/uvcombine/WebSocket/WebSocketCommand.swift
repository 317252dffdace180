import Foundation
import HTTPTypes
import UVCombine
#if canImport(Glibc)
import Glibc
#endif

/// `uvcombine ws [--cacert FILE] [-k] [-H header] URL`: a WebSocket client
/// for scripts, as websocat is used. Lines from standard input go out as
/// text messages; each incoming message is printed on its own line. At the
/// end of standard input it closes with 1000 and exits once the close
/// handshake ends; a close from the server ends it too. permessage-deflate
/// is offered and used when the server agrees.
///
/// Exit status: 0 after a close with 1000; code − 1000 for 1001-1015 (2 for
/// a protocol error, 6 for a connection that ended without a close frame);
/// code − 3900 for 4000-4099 (100-199, so a server chooses a script's
/// status); 99 for any other code; 16 when the connection could not be
/// opened (connect, TLS, handshake); 2 for a usage error.
struct WebSocketCommand {
    static let usage = """
        usage: uvcombine ws [--cacert FILE] [-k] [-H 'Name: value']... URL

          Connects to URL (ws:// or wss://), sends each line of standard input
          as a text message and prints each message received on its own line.
          At the end of input it closes with 1000 and exits when the server
          answered; when the server closes first, it exits too.
            --cacert FILE  trust the certificates in FILE (PEM) for wss
            -k, --insecure do not verify the server's certificate
            -H HEADER      send HEADER with the handshake (repeatable)
          exit status: 0 after a close with 1000, code - 1000 for 1001-1015,
          code - 3900 for 4000-4099, 99 for other codes, 16 when the
          connection could not be opened, 2 for usage errors
        """

    var caFile: String?
    var insecure = false
    var headers: [(String, String)] = []
    var url: URL?

    /// Parses the options; nil after printing a usage error (or the help).
    static func parse(_ arguments: [String]) -> (command: WebSocketCommand?, status: Int32) {
        var command = WebSocketCommand()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "-h", "--help":
                print(usage)
                return (nil, 0)
            case "-k", "--insecure":
                command.insecure = true
            case "--cacert", "-H", "--header":
                guard index < arguments.count else {
                    printError("uvcombine ws: \(argument) needs a value\n\n\(usage)")
                    return (nil, 2)
                }
                let value = arguments[index]
                index += 1
                if argument == "--cacert" {
                    command.caFile = value
                } else {
                    guard let colon = value.firstIndex(of: ":") else {
                        printError("uvcombine ws: header \"\(value)\" has no colon")
                        return (nil, 2)
                    }
                    command.headers.append((String(value[..<colon]),
                                            value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
            default:
                guard command.url == nil, !argument.hasPrefix("-"), let url = URL(string: argument) else {
                    printError("uvcombine ws: unexpected argument \(argument)\n\n\(usage)")
                    return (nil, 2)
                }
                command.url = url
            }
        }
        guard command.url != nil else {
            printError("uvcombine ws: no URL\n\n\(usage)")
            return (nil, 2)
        }
        return (command, 0)
    }

    /// Runs the exchange on a loop of its own; returns the exit status.
    func run() -> Int32 {
        guard let url, let scheme = url.scheme, let host = url.host(percentEncoded: false) else { return 2 }
        var configuration = UVURLSession.Configuration()
        if let caFile { configuration.tls.trustRoots = .pemFile(caFile) }
        if insecure { configuration.tls.certificateVerification = .disabledInsecure }
        let loop: UVLoop
        do {
            loop = try UVLoop()
        } catch {
            printError("uvcombine ws: \(error)")
            return 16
        }
        var request = HTTPRequest(method: .get, scheme: scheme,
                                  authority: (host.contains(":") ? "[\(host)]" : host) + (url.port.map { ":\($0)" } ?? ""),
                                  path: url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
                                      + (url.query(percentEncoded: true).map { "?\($0)" } ?? ""))
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else {
                printError("uvcombine ws: \"\(name)\" is not a header name")
                return 2
            }
            request.headerFields.append(HTTPField(name: fieldName, value: value))
        }
        let outcome = Outcome()
        var cancellables: [AnyCancellable] = []
        do {
            let session = UVURLSession(loop: loop, configuration: configuration)
            let task = session.webSocketTask(with: request)
            task.maximumMessageSize = 64 << 20
            task.messages
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion { outcome.failure = error }
                }, receiveValue: { message in
                    switch message {
                    case .string(let text): Self.write(Data(text.utf8))
                    case .data(let data): Self.write(data)
                    }
                })
                .store(in: &cancellables)
            // Lines from a thread that blocks on standard input; the
            // buffer keeps lines typed faster than they are sent.
            let lines = PassthroughSubject<UVWebSocketTask.Message, Never>()
            task.sendPublisher(lines.buffer(size: Int.max, prefetch: .keepFull, whenFull: .dropNewest))
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion, outcome.failure == nil { outcome.failure = error }
                }, receiveValue: { _ in })
                .store(in: &cancellables)
            let reader = Thread {
                while let line = readLine(strippingNewline: true) {
                    lines.send(.string(line))
                }
                lines.send(completion: .finished)
            }
            reader.start()
            loop.run()
            outcome.closeCode = task.closeCode
            cancellables = []
        }
        loop.run()
        try? loop.close()
        return Self.exitStatus(closeCode: outcome.closeCode, failure: outcome.failure)
    }

    /// The exit status for how the connection ended (see the type's comment).
    static func exitStatus(closeCode: WebSocketCloseCode, failure: WebSocketError?) -> Int32 {
        if let failure {
            switch failure.reason {
            case .transport, .handshake, .cancelled, .timedOut:
                if closeCode == .invalid {
                    printError("uvcombine ws: \(failure)")
                    return 16
                }
            case .protocolViolation, .abnormalClosure, .closed:
                printError("uvcombine ws: \(failure)")
            }
        }
        switch closeCode.rawValue {
        case 1000: return 0
        case 1001...1015: return Int32(closeCode.rawValue - 1000)
        case 4000...4099: return Int32(closeCode.rawValue - 3900)
        case 0: return 16
        default: return 99
        }
    }

    /// Writes `data` and a newline to standard output, flushed.
    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// The loop-thread results.
    final class Outcome: @unchecked Sendable {
        var failure: WebSocketError?
        var closeCode = WebSocketCloseCode.invalid
    }
}
