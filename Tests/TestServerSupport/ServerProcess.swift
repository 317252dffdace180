import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A server the tests start as a child process (python3, nginx, openssl
/// s_server): the one launcher behind the test targets' servers.
///
/// Standard input is empty; standard output goes to a pipe the test reads
/// (``readOutput(until:)``, ``readPort(matching:)``) or is discarded;
/// standard error goes to a file of the caller's or is discarded. ``stop()``
/// ends the process by PID with SIGKILL: the child inherits the test
/// thread's signal mask, in which SIGTERM may be blocked. Nothing stops it
/// implicitly: the owning server's `stop()` (or `deinit`) does.
///
/// Threading: one owner; ``output`` may be handed to a reader thread once
/// the port is known.
///
/// ```swift
/// guard let python = ServerProcess.executable(named: "python3") else { return }
/// let server = try ServerProcess(executable: python, arguments: ["-u", "-c", script])
/// guard let port = server.readPort().port else { server.stop(); throw failure }
/// defer { server.stop() }
/// ```
public final class ServerProcess {
    /// The running process.
    public let process: Process
    /// The reading end of standard output, or `nil` when it is discarded.
    public let output: FileHandle?

    /// Starts `executable` (a path) with `arguments`, in `directory` when
    /// given. `captureOutput: false` discards standard output;
    /// `standardError` receives standard error (discarded when `nil`).
    public init(executable: String, arguments: [String], directory: URL? = nil, captureOutput: Bool = true,
                standardError: FileHandle? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if captureOutput {
            let pipe = Pipe()
            process.standardOutput = pipe
            output = pipe.fileHandleForReading
        } else {
            process.standardOutput = FileHandle.nullDevice
            output = nil
        }
        process.standardError = standardError ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// Reads standard output until `find` recognises what it waits for in
    /// everything read so far, or the output ends (the process exited).
    /// Returns what `find` gave (`nil` at the end) and the text read.
    public func readOutput<T>(until find: (String) -> T?) -> (found: T?, text: String) {
        guard let output else { return (nil, "") }
        var text = ""
        while true {
            let data = output.availableData
            if data.isEmpty { return (nil, text) }
            text += String(decoding: data, as: UTF8.self)
            if let found = find(text) { return (found, text) }
        }
    }

    /// Reads standard output until `pattern` (a regular expression whose
    /// first group is the port) matches, as ``readOutput(until:)``. The
    /// default, `port (\d+)\s`, wants the whitespace after the number so a
    /// read that ends inside it is not taken for the port.
    public func readPort(matching pattern: String = #"port (\d+)\s"#) -> (port: Int?, text: String) {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return (nil, "") }
        let result = readOutput { text -> Int? in
            let range = NSRange(text.startIndex..., in: text)
            guard let match = expression.firstMatch(in: text, range: range),
                  let portRange = Range(match.range(at: 1), in: text) else { return nil }
            return Int(text[portRange])
        }
        return (result.found, result.text)
    }

    /// Ends the process by PID (SIGKILL) and waits for it, if it still
    /// runs. Idempotent.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The first `name` on `PATH` that is executable, as a path.
    public static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// The loopback checks the test servers share.
///
/// ```swift
/// let port = try Loopback.freePort()
/// guard Loopback.waitUntilAccepting(port: port, while: server) else { throw notReady }
/// ```
public enum Loopback {
    /// Why ``freePort()`` failed.
    public struct NoFreePort: Error, CustomStringConvertible {
        /// "no free port".
        public var description: String { "no free port" }
    }

    /// A port the kernel just handed out on 127.0.0.1 (bound, then
    /// closed): nobody listens on it right now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NoFreePort() }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw NoFreePort() }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Polls a TCP connect to 127.0.0.1:`port` every 10 ms, `attempts`
    /// times at most (10 s by default), and while `server` (when given)
    /// runs. Whether a connect succeeded.
    public static func waitUntilAccepting(port: Int, attempts: Int = 1000, while server: ServerProcess? = nil) -> Bool {
        for _ in 0..<attempts {
            if let server, !server.isRunning { return false }
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
