import Foundation
import UVCombine

/// "Controlling Publishing with Connectable Publishers" (Apple), with a
/// real data task against the embedded server.
///
/// First the problem the article opens with: behind a plain `share()`, the
/// first sink starts the data task at once, and a second sink attaching a
/// second later may find the download done and see only the completion.
/// Then the article's fix, as its code reads: `makeConnectable()`, the
/// second sink after 1 s, `connect()` after 2 s; the one request goes out
/// only then, and both sinks receive the data.
struct ConnectableScenario: DemoScenario {
    let title = "Connectable publishers: a shared data task, a second subscriber after 1 s, connect() after 2 s"
    let source = "Apple, \"Controlling Publishing with Connectable Publishers\""
    let verdict = "connect() started the one data task after both subscribers attached; both received the data"

    /// What one sink saw.
    struct Received {
        var byteCounts: [Int] = []
        var completion: String?
    }

    func run(_ demo: DemoContext) -> [String] {
        let log = demo.log
        let session = UVURLSession(loop: demo.loop)
        let url = demo.server.url("/")
        var problems: [String] = []

        // The race, without a connectable publisher.
        log("Without makeConnectable(): cancellable1 = sink → the data task starts at once")
        let shared = session
            .dataTaskPublisher(for: url)
            .map() { $0.data }
            .catch() { _ in Just(Data()) }
            .share()
        var race1 = Received()
        var race2 = Received()
        var raceStorage = Set<AnyCancellable>()
        shared
            .sink(receiveCompletion: { race1.completion = "\($0)"; log("Received completion 1: \($0).") },
                  receiveValue: { race1.byteCounts.append($0.count); log("Received data 1: \($0.count) bytes.") })
            .store(in: &raceStorage)
        demo.after(1) {
            log("one second later: cancellable2 = sink")
            shared
                .sink(receiveCompletion: { race2.completion = "\($0)"; log("Received completion 2: \($0).") },
                      receiveValue: { race2.byteCounts.append($0.count); log("Received data 2: \($0.count) bytes.") })
                .store(in: &raceStorage)
        }
        demo.run()
        if race2.byteCounts.isEmpty {
            log("The data task completed before subscriber 2 attached: it missed the data and only saw the completion.")
        } else {
            log("This time the download took longer than a second, so subscriber 2 was in time: that is the race.")
        }
        if race1.byteCounts != [DemoRoutes.page.count] || race1.completion != "finished" {
            problems.append("without makeConnectable(), subscriber 1 saw \(race1.byteCounts) and \(race1.completion ?? "no completion")")
        }
        if race2.completion != "finished" {
            problems.append("without makeConnectable(), subscriber 2 never saw the completion")
        }
        raceStorage.removeAll()

        // The article's code.
        say("")
        log("With makeConnectable(): .map() { $0.data }.catch() { _ in Just(Data()) }.share().makeConnectable()")
        let requestsAtStart = demo.server.hits("/")
        var requestsBeforeConnect = -1
        let connectable = session
            .dataTaskPublisher(for: url)
            .map() { $0.data }
            .catch() { _ in Just(Data()) }
            .share()
            .makeConnectable()

        var received1 = Received()
        var received2 = Received()
        var cancellable1: AnyCancellable?
        var cancellable2: AnyCancellable?
        var connection: (any Cancellable)?

        log("cancellable1 = connectable.sink(…): nothing is fetched before connect()")
        cancellable1 = connectable
            .sink(receiveCompletion: { received1.completion = "\($0)"; log("Received completion 1: \($0).") },
                  receiveValue: { received1.byteCounts.append($0.count); log("Received data 1: \($0.count) bytes.") })

        demo.after(1) {
            log("asyncAfter(.now() + 1): cancellable2 = connectable.sink(…)")
            cancellable2 = connectable
                .sink(receiveCompletion: { received2.completion = "\($0)"; log("Received completion 2: \($0).") },
                      receiveValue: { received2.byteCounts.append($0.count); log("Received data 2: \($0.count) bytes.") })
        }

        demo.after(2) {
            requestsBeforeConnect = demo.server.hits("/") - requestsAtStart
            log("asyncAfter(.now() + 2): self.connection = connectable.connect()")
            connection = connectable.connect()
        }
        demo.run()
        // The sinks and the Cancellable from connect() had to be retained
        // until the work was done.
        cancellable1?.cancel()
        cancellable2?.cancel()
        connection?.cancel()

        let requests = demo.server.hits("/") - requestsAtStart
        log("The server saw \(requests) request\(requests == 1 ? "" : "s") for the page, \(requestsBeforeConnect) before connect().")
        if requestsBeforeConnect != 0 {
            problems.append("\(requestsBeforeConnect) request(s) went out before connect()")
        }
        if requests != 1 {
            problems.append("expected exactly one request after connect(), the server saw \(requests)")
        }
        for (number, received) in [(1, received1), (2, received2)] {
            if received.byteCounts != [DemoRoutes.page.count] {
                problems.append("subscriber \(number) received \(received.byteCounts) bytes, expected [\(DemoRoutes.page.count)]")
            }
            if received.completion != "finished" {
                problems.append("subscriber \(number) completed with \(received.completion ?? "nothing")")
            }
        }
        return problems
    }
}
