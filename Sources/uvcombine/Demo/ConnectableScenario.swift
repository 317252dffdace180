import Foundation
import UVCombine

/// "Controlling Publishing with Connectable Publishers" (Apple): the second
/// subscriber attaches after 1 s and `connect()` comes after 2 s, so both
/// receive the data.
///
/// The download here is a stand-in that takes a while on the loop and counts
/// how often it starts; the data-task version replaces it once the HTTP
/// module can serve the demo from an embedded server.
struct ConnectableScenario: DemoScenario {
    let title = "Connectable publishers: share().makeConnectable(), second subscriber after 1 s, connect() after 2 s"

    func run(on loop: UVLoop, scale: Double, log: DemoLog) -> [String] {
        var downloadsStarted = 0
        let payload = Data(repeating: 0x2A, count: 1_256)
        let download = Deferred {
            Future<Data, URLError> { promise in
                downloadsStarted += 1
                log("download started")
                loop.after(0.3 * scale) { promise(.success(payload)) }
            }
        }
        let connectable = download
            .map { $0 }
            .catch { _ in Just(Data()) }
            .share()
            .makeConnectable()

        var received: [String] = []
        var cancellable1: AnyCancellable?
        var cancellable2: AnyCancellable?
        var connection: (any Cancellable)?

        log("the first subscriber attaches: nothing is fetched before connect()")
        cancellable1 = connectable
            .sink(receiveCompletion: { received.append("completion 1"); log("Received completion 1: \($0).") },
                  receiveValue: { received.append("data 1"); log("Received data 1: \($0.count) bytes.") })
        loop.after(1 * scale) {
            log("the second subscriber attaches")
            cancellable2 = connectable
                .sink(receiveCompletion: { received.append("completion 2"); log("Received completion 2: \($0).") },
                      receiveValue: { received.append("data 2"); log("Received data 2: \($0.count) bytes.") })
        }
        loop.after(2 * scale) {
            log("connect()")
            connection = connectable.connect()
        }
        loop.run()
        connection?.cancel()
        _ = (cancellable1, cancellable2)

        var problems: [String] = []
        if downloadsStarted != 1 { problems.append("expected one download, saw \(downloadsStarted)") }
        if Set(received) != ["data 1", "data 2", "completion 1", "completion 2"] || received.count != 4 {
            problems.append("expected data and completion for both subscribers, saw \(received)")
        }
        return problems
    }
}
