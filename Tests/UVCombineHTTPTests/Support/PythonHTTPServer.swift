import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `python3 -m http.server` serving a temporary directory on a random
/// loopback port, for interoperability tests against a server we did not
/// write.
///
/// Started with Foundation's `Process`; the port is the one Python reports
/// ("Serving HTTP on 127.0.0.1 port 43215"); ready once a TCP connect to
/// it succeeds; stopped by PID.
final class PythonHTTPServer {
    let directory: URL
    let port: Int
    private let process: Process

    enum Failure: Error, CustomStringConvertible {
        case noPython
        case noPort(String)
        case notReady

        var description: String {
            switch self {
            case .noPython: "python3 not found"
            case .noPort(let output): "python did not report a port: \(output)"
            case .notReady: "python's server never accepted a connection"
            }
        }
    }

    /// Creates the directory with `files` (name → contents) and starts the
    /// server on it.
    init(files: [String: Data]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-http-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in files {
            try contents.write(to: directory.appendingPathComponent(name))
        }

        guard let python = Self.findPython() else { throw Failure.noPython }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process

        // "Serving HTTP on 127.0.0.1 port 43215 (http://127.0.0.1:43215/) ..."
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
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure.noPort(text)
        }
        port = found
        guard Self.waitUntilAccepting(port: found) else {
            stop()
            throw Failure.notReady
        }
    }

    /// Stops the server by PID and removes the directory. SIGKILL: the
    /// child inherits the test thread's signal mask, in which SIGTERM may
    /// be blocked.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func findPython() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
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
