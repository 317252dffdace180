import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `python3 -m http.server` serving a temporary directory on a random
/// loopback port: a server we did not write, for `uvcombine fetch`.
///
/// The port is the one Python reports ("Serving HTTP on 127.0.0.1 port
/// 43215"); the server is ready once a TCP connect succeeds; ``stop()``
/// ends it by PID and removes the directory.
final class PythonHTTPServer {
    let directory: TemporaryDirectory
    let port: Int
    private let process: Process

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `files` (relative path → contents) and starts the server.
    init(files: [String: Data]) throws {
        directory = try TemporaryDirectory()
        for (name, contents) in files {
            let file = directory.file(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let python = path.split(separator: ":").map({ "\($0)/python3" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw Failure(description: "python3 not found") }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.url.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process

        var text = ""
        var found: Int?
        while found == nil {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"port (\d+)"#, options: .regularExpression) {
                found = Int(text[range].dropFirst(5))
            }
        }
        guard let found, Self.waitUntilAccepting(port: found) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "python3 -m http.server did not start: \(text)")
        }
        port = found
    }

    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Ends the server by PID (SIGKILL: the child inherits the test
    /// thread's signal mask, in which SIGTERM may be blocked).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
    }

    /// Polls a TCP connect to 127.0.0.1:`port` for up to 10 s.
    private static func waitUntilAccepting(port: Int) -> Bool {
        for _ in 0..<1000 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return false }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if status == 0 { return true }
            usleep(10_000)
        }
        return false
    }
}
