import Foundation
import Testing

/// `uvcombine demo --fast`: the five seed scenarios, with real timers and
/// sockets against the embedded server, must all pass (exit 0) and print
/// what the seeds print.
@Suite("uvcombine demo")
struct DemoTests {
    @Test func demoFastRunsEveryScenarioAndExitsZero() async throws {
        let result = try await runTool(["demo", "--fast"])
        let output = result.output
        #expect(result.status == 0, "\(output)\n\(result.stderr)")
        #expect(output.contains("All 5 scenarios behaved as the seeds describe."))
        #expect(output.components(separatedBy: "   ✓ ").count - 1 == 5)
        #expect(!output.contains("✗"))

        let keyLines = [
            // 1. Connectable publishers: both subscribers get the data of
            // the one request made after connect().
            "asyncAfter(.now() + 2): self.connection = connectable.connect()",
            "Received data 1: 1024 bytes.",
            "Received data 2: 1024 bytes.",
            "Received completion 2: finished.",
            "The server saw 1 request for the page, 0 before connect().",
            // 2. Autoconnect.
            "Date now: ",
            "cancellable.cancel(): autoconnect disconnects, the timer stops",
            // 3. Stopping a pipeline.
            "we're going into the background!",
            "self.storage.first?.cancel()",
            "self.storage.removeFirst(): the AnyCancellable goes out of existence and cancels itself",
            "the cancel message percolated up the pipeline: the publisher stops publishing",
            "self.iv.image = PNG image, 64×48",
            "self.storage.first?.cancel() after the completion: the pipeline has already been torn down",
            // 4. Data tasks.
            "Received user: User(name: \"Ada Lovelace\", userID: \"ada\").",
            "Received completion: failure(URLError(.badServerResponse)).",
            "requests: 2 to /flaky, 0 to /fallback",
            "requests: 2 to /down, 1 to /fallback",
            "requests: 3 to /down (the fallback included)",
            "(on the main loop: true)",
            "Received id: ada.",
            "Received HTTP status: 200.",
            "The server saw 1 request for both subscribers.",
            // 5. Timer publisher.
            "checkFraction() #3",
            "self.timerCancellable.removeAll(): the timer stops",
            "storage.removeAll(): the subscriber leaves, autoconnect disconnects",
        ]
        for line in keyLines {
            #expect(output.contains(line), "missing: \(line)")
        }
        // Three firings each for the autoconnected timer and the scan.
        #expect(output.components(separatedBy: "Date now: ").count - 1 == 3)
        #expect(!output.contains("checkFraction() #4"))
        // share(): the print() before share() saw one value.
        #expect(output.components(separatedBy: "data task: receive value:").count - 1 == 1)
    }

    @Test func unknownCommandExitsTwoWithUsage() async throws {
        let result = try await runTool(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: uvcombine demo"))
        #expect(result.stderr.contains("uvcombine fetch"))
    }

    @Test func unknownDemoOptionExitsTwo() async throws {
        let result = try await runTool(["demo", "--slow"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option --slow"))
    }
}
