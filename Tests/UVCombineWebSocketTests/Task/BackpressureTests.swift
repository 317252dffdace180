import Foundation
import Testing
import TestServerSupport
import UVCombineCore
import UVCombineHTTP
import UVCombineLoop
import UVCombineWebSocket

/// No demand, no read: a subscriber that takes one message and asks for no
/// more stops the socket read, and the server's sends block.
@Suite("WebSocket backpressure", .enabled(if: ServerProcess.executable(named: "python3") != nil, "python3 not found"))
struct BackpressureTests {
    final class Collector: Subscriber, @unchecked Sendable {
        typealias Input = UVWebSocketTask.Message
        typealias Failure = WebSocketError
        var subscription: (any Subscription)?
        var count = 0
        var bytes = 0
        var completion: Subscribers.Completion<WebSocketError>?

        func receive(subscription: any Subscription) {
            self.subscription = subscription
            subscription.request(.max(1))
        }

        func receive(_ input: UVWebSocketTask.Message) -> Subscribers.Demand {
            count += 1
            if case .data(let data) = input { bytes += data.count }
            return .none
        }

        func receive(completion: Subscribers.Completion<WebSocketError>) {
            self.completion = completion
        }
    }

    @Test("one message taken, no more demand: the loop goes idle, the server blocks, and every message arrives once demand returns")
    func noDemandNoRead() throws {
        let server = try HostileServerTests.Server()
        let collector = Collector()
        let loop = try UVLoop()
        do {
            let session = UVURLSession(loop: loop)
            var options = UVWebSocketTask.Options()
            options.compression = nil
            let task = session.webSocketTask(with: URL(string: "ws://127.0.0.1:\(server.port)/flood")!, options: options)
            task.messages.subscribe(collector)
            // Runs until the first message arrived and reading stopped: a
            // socket that is not read keeps no loop alive.
            loop.run()
            #expect(collector.count == 1)
            // The server reports that its sends block (the client reads nothing).
            let report = server.process.readOutput { $0.contains("blocked after") ? $0 : nil }.found
            let blockedAfter = report.flatMap { text in
                text.split(separator: "\n").first { $0.hasPrefix("blocked after") }
                    .flatMap { Int($0.split(separator: " ")[2]) }
            }
            let total = 1024 * (65_535 + 4)
            #expect(blockedAfter != nil && blockedAfter! < total / 2, "\(String(describing: report))")
            #expect(collector.count == 1)
            collector.subscription?.request(.unlimited)
            loop.run()
        }
        loop.run()
        #expect(throws: Never.self) { try loop.close() }
        #expect(collector.count == 1024)
        #expect(collector.bytes == 1024 * 65_535)
        #expect(collector.completion == .finished)
    }
}
