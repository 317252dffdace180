import Foundation
import Testing

/// Runs the `uvcombine` executable that `swift test` built next to the test
/// bundle.
func runTool(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
    var directory = bundle.deletingLastPathComponent()
    // The test binary lives in `<build>/<Package>PackageTests.xctest` (a
    // file on Linux); the tool sits beside it.
    if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("uvcombine").path) {
        directory = directory.deletingLastPathComponent()
    }
    let process = Process()
    process.executableURL = directory.appendingPathComponent("uvcombine")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite("uvcombine demo")
struct DemoTests {
    @Test func demoFastRunsEveryScenarioAndExitsZero() throws {
        let (status, output) = try runTool(["demo", "--fast"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("All 4 scenarios behaved as the seeds describe."))
        #expect(output.contains("Received data 2: 1256 bytes."))
        #expect(output.contains("self.timerCancellable.removeAll(): the timer stops"))
    }

    @Test func unknownCommandExitsTwoWithUsage() throws {
        let (status, output) = try runTool(["frobnicate"])
        #expect(status == 2)
        #expect(output.contains("usage: uvcombine demo"))
    }
}
