import Foundation
import TestServerSupport

/// A certificate authority and server certificates made at test time with
/// the `openssl` command line, in a temporary directory:
///
/// | file | certificate |
/// | --- | --- |
/// | `ca.pem` | the test CA (self-signed, `CA:TRUE`) |
/// | `localhost.pem` | for `localhost` and `127.0.0.1`, valid now, signed by the CA |
/// | `wronghost.pem` | for `wrong.example` only, valid now |
/// | `expired.pem` | for `localhost` and `127.0.0.1`, valid 2020-01-01 to 2020-01-02 |
/// | `notyet.pem` | for `localhost` and `127.0.0.1`, valid from 2099 |
/// | `server.key` | the one key of every server certificate |
///
/// The server certificates are issued with `openssl ca`, whose
/// `-startdate`/`-enddate` set any validity period (no clock tricks).
/// EC P-256 keys: generating them takes milliseconds.
final class TestCertificates {
    let directory: URL

    var caFile: String { path("ca.pem") }
    var keyFile: String { path("server.key") }
    var localhost: String { path("localhost.pem") }
    var wrongHost: String { path("wronghost.pem") }
    var expired: String { path("expired.pem") }
    var notYetValid: String { path("notyet.pem") }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-tls-\(UUID().uuidString)", isDirectory: true)
        let database = directory.appendingPathComponent("db", isDirectory: true)
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        try Data().write(to: database.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: database.appendingPathComponent("serial"))
        try Data(Self.caConfiguration.utf8).write(to: directory.appendingPathComponent("ca.cnf"))

        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509"] + ec + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "3", "-subj", "/CN=UVCombine Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try run(["req", "-new"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try issue("localhost.pem", section: "local", dates: ["-days", "2"])
        try issue("wronghost.pem", section: "wrong", dates: ["-days", "2"])
        try issue("expired.pem", section: "local", dates: ["-startdate", "20200101000000Z", "-enddate", "20200102000000Z"])
        try issue("notyet.pem", section: "local", dates: ["-startdate", "20990101000000Z", "-enddate", "20990102000000Z"])
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    private func issue(_ name: String, section: String, dates: [String]) throws {
        try run(["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key",
                 "-in", "server.csr", "-out", name, "-extensions", section, "-notext"] + dates)
    }

    /// Runs `openssl arguments` in the directory; throws with its output
    /// when it fails.
    private func run(_ arguments: [String]) throws {
        guard let openssl = findExecutable("openssl") else { throw Failure(description: "openssl not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }

    /// A minimal `openssl ca` setup: any subject, no extensions copied from
    /// the request, one extension section per kind of certificate.
    private static let caConfiguration = """
        [ca]
        default_ca = test_ca
        [test_ca]
        database = db/index.txt
        new_certs_dir = db
        serial = db/serial
        default_md = sha256
        policy = any
        unique_subject = no
        copy_extensions = none
        [any]
        commonName = supplied
        [local]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost,IP:127.0.0.1
        [wrong]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:wrong.example

        """
}

/// The first `name` on `PATH` that is executable (the shared launcher's
/// lookup; the servers added since keep calling it by this name).
func findExecutable(_ name: String) -> String? {
    ServerProcess.executable(named: name)
}
