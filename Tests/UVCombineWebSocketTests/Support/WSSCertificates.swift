import Foundation
import TestServerSupport

/// A test CA and a server certificate for `localhost` and `127.0.0.1`
/// signed by it, made with the `openssl` command line in a temporary
/// directory (EC P-256: milliseconds).
final class WSSCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var certificate: String { directory.appendingPathComponent("server.pem").path }
    var key: String { directory.appendingPathComponent("server.key").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-wss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\n".utf8).write(to: directory.appendingPathComponent("ext.cnf"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=UVCombine WS Test CA",
                                         "-addext", "basicConstraints=critical,CA:TRUE",
                                         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try run(["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try run(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf"])
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func run(_ arguments: [String]) throws {
        guard let openssl = ServerProcess.executable(named: "openssl") else {
            throw EchoServer.Failure(description: "openssl not found")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw EchoServer.Failure(description: "openssl \(arguments.first ?? "") failed")
        }
    }
}
