import Foundation
import TestServerSupport

/// `python3 -m http.server` serving a temporary directory on a random
/// loopback port, for interoperability tests against a server we did not
/// write.
///
/// Started with the shared ``ServerProcess``; the port is the one Python
/// reports ("Serving HTTP on 127.0.0.1 port 43215"); ready once a TCP
/// connect to it succeeds; stopped by PID.
final class PythonHTTPServer {
    let directory: URL
    let port: Int
    private let server: ServerProcess

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

        guard let python = ServerProcess.executable(named: "python3") else { throw Failure.noPython }
        let server = try ServerProcess(
            executable: python,
            arguments: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]
        )
        self.server = server
        // "Serving HTTP on 127.0.0.1 port 43215 (http://127.0.0.1:43215/) ..."
        let (found, text) = server.readPort()
        guard let found else {
            server.stop()
            throw Failure.noPort(text)
        }
        port = found
        guard Loopback.waitUntilAccepting(port: found) else {
            stop()
            throw Failure.notReady
        }
    }

    /// Stops the server by PID and removes the directory. SIGKILL: the
    /// child inherits the test thread's signal mask, in which SIGTERM may
    /// be blocked.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
