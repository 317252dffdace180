import UVCombine

/// "Stopping a Pipeline" (Understanding Combine): a pipeline stops by
/// cancellation (`storage.first?.cancel()`), by removing its AnyCancellable
/// from the set (`storage.removeFirst()`), or by completion, after which a
/// cancel does nothing.
struct StoppingAPipelineScenario: DemoScenario {
    let title = "Stopping a pipeline: cancel, removal from the set, completion"

    func run(on loop: UVLoop, scale: Double, log: DemoLog) -> [String] {
        let tick = 0.2 * scale
        var problems: [String] = []

        // 1. Cancellation through the stored AnyCancellable.
        var storage = Set<AnyCancellable>()
        var cancelledValues: [Int] = []
        let notifications = PassthroughSubject<Int, Never>()
        notifications
            .handleEvents(receiveCancel: { log("cancel percolated up to the publisher") })
            .sink { cancelledValues.append($0); log("notification \($0)") }
            .store(in: &storage)
        loop.after(tick) { notifications.send(1) }
        loop.after(tick * 2) {
            log("self.storage.first?.cancel()")
            storage.first?.cancel()
        }
        loop.after(tick * 3) { notifications.send(2) }

        // 2. Removing the AnyCancellable from the set.
        var removedValues: [Int] = []
        let other = PassthroughSubject<Int, Never>()
        var otherStorage = Set<AnyCancellable>()
        other.sink { removedValues.append($0); log("second pipeline got \($0)") }
            .store(in: &otherStorage)
        loop.after(tick * 4) { other.send(1) }
        loop.after(tick * 5) {
            log("self.storage.removeFirst(): the AnyCancellable goes out of existence and cancels")
            otherStorage.removeFirst()
        }
        loop.after(tick * 6) { other.send(2) }

        // 3. Completion: a finite publisher finishes; a later cancel does nothing.
        var completions = 0
        var finiteStorage = Set<AnyCancellable>()
        loop.after(tick * 7) {
            let downloads = PassthroughSubject<String, Never>()
            downloads
                .sink(receiveCompletion: { _ in completions += 1; log("received completion: finished") },
                      receiveValue: { log("received \($0)") })
                .store(in: &finiteStorage)
            downloads.send("image data")
            downloads.send(completion: .finished)
            log("finiteStorage.first?.cancel() after completion: nothing left to tear down")
            finiteStorage.first?.cancel()
        }
        loop.run()

        if cancelledValues != [1] { problems.append("cancel: expected [1], saw \(cancelledValues)") }
        if removedValues != [1] { problems.append("removeFirst: expected [1], saw \(removedValues)") }
        if completions != 1 { problems.append("completion: expected one completion, saw \(completions)") }
        _ = storage
        return problems
    }
}
