import Foundation
import TestServerSupport

/// A python3 HTTP server on 127.0.0.1 (port 0) for the curl comparisons:
/// each path answers with its `Set-Cookie` lines and echoes the request's
/// `Cookie` field as the body. Stopped by PID.
final class CookieOracleServer {
    let process: ServerProcess
    let port: Int

    static let script = #"""
        import sys, json, http.server
        routes = json.loads(sys.argv[1])
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = (self.headers.get('Cookie') or '').encode()
                self.send_response(200)
                for line in routes.get(self.path.split('?')[0], []):
                    self.send_header('Set-Cookie', line)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
        print('port %d ' % server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts the server with `routes` (path to Set-Cookie lines), or
    /// returns nil when python3 is missing.
    init?(routes: [String: [String]]) throws {
        guard let python = ServerProcess.executable(named: "python3") else { return nil }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: routes), as: UTF8.self)
        process = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script, json])
        guard let port = process.readPort().port, Loopback.waitUntilAccepting(port: port, while: process) else {
            process.stop()
            throw CocoaError(.fileReadUnknown)
        }
        self.port = port
    }

    func stop() { process.stop() }

    deinit { process.stop() }
}

/// Runs curl with `arguments`; returns its exit status and standard output.
func runCurl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uvc-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputFile = directory.appendingPathComponent("out")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ServerProcess.executable(named: "curl") ?? "/usr/bin/curl")
    // -q first: no ~/.curlrc; --noproxy: no proxy from the environment.
    process.arguments = ["-q", "-s", "--noproxy", "*", "-o", outputFile.path] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let (status, _) = try await process.runUntilExit(timeout: 30)
    let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    return (status, output)
}
