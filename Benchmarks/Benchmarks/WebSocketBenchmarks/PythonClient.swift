import Foundation

/// python's `websockets` client in its own process (python_client.py),
/// one per benchmark executable, commanded over a pipe: the measured region
/// is one command and its "ok" (a pipe round trip, tens of microseconds,
/// against thousands of messages). Its CPU is another process's, so only
/// its wall clock is comparable; its mallocs are not counted.
/// Nil when python3 or its websockets package is missing.
final class PythonClient: @unchecked Sendable {
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle

    static let shared: PythonClient? = start()

    private init(process: Process, input: FileHandle, output: FileHandle) {
        self.process = process
        self.input = input
        self.output = output
    }

    private static func start() -> PythonClient? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_client.py").path
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import websockets.asyncio.client"]
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return nil }
        check.waitUntilExit()
        guard check.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("WebSocketBenchmarks: python's websockets is missing (pip install websockets); its workloads are skipped\n".utf8))
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        do { try process.run() } catch { return nil }
        let client = PythonClient(process: process, input: stdin.fileHandleForWriting, output: stdout.fileHandleForReading)
        atexit { PythonClient.shared?.stop() }
        return client
    }

    /// Sends one command and waits for its "ok".
    func command(_ line: String) {
        input.write(Data((line + "\n").utf8))
        var answer = ""
        while !answer.hasSuffix("\n") {
            let chunk = output.availableData
            if chunk.isEmpty { fatalError("PythonClient: the client exited during \"\(line)\"") }
            answer += String(decoding: chunk, as: UTF8.self)
        }
        precondition(answer == "ok\n", "PythonClient: \(line) answered \(answer)")
    }

    /// Ends the client by its PID. Idempotent.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
