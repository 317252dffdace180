import BenchmarkSupport
import Foundation
import LoopSupport
import UVCombine

/// Runs data tasks on a ``UVURLSession`` as a user writes them: one
/// publisher made once, subscribed with `sink` for every request, the
/// `AnyCancellable` kept until the task ends. `width` tasks are in flight at
/// a time; each completion starts the next task from inside its
/// `receiveCompletion`, on the loop's thread, until `total` have run.
///
/// Loop thread: the calling thread runs the loop (``makeLoop()``).
final class SessionRunner {
    let loop: UVLoop
    let session: UVURLSession
    let publisher: UVURLSession.DataTaskPublisher
    let accumulator = Accumulator()
    private var slots: [Slot] = []
    private var toStart = 0
    private var toFinish = 0
    private(set) var failure: UVURLError?

    init(url: URL, maximumConnectionsPerHost: Int) {
        loop = makeLoop()
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = maximumConnectionsPerHost
        session = UVURLSession(loop: loop, configuration: configuration)
        publisher = session.dataTaskPublisher(for: url)
    }

    /// Runs `total` tasks, `width` at a time; returns when all finished.
    func run(total: Int, width: Int) {
        precondition(total >= width, "SessionRunner: fewer tasks than slots")
        while slots.count < width { slots.append(Slot(runner: self)) }
        toStart = total
        toFinish = total
        for slot in slots.prefix(width) { start(slot) }
        loop.run()
        if let failure { fatalError("SessionRunner: a data task failed: \(failure)") }
        precondition(toFinish == 0, "SessionRunner: \(toFinish) tasks did not finish")
    }

    fileprivate func start(_ slot: Slot) {
        toStart -= 1
        // Closures capturing one object allocate no context.
        slot.cancellable = publisher.sink(receiveCompletion: { slot.finished($0) },
                                          receiveValue: { slot.received($0.data) })
    }

    fileprivate func finished(_ slot: Slot, _ completion: Subscribers.Completion<UVURLError>) {
        if case .failure(let error) = completion, failure == nil { failure = error }
        toFinish -= 1
        if toStart > 0 && failure == nil {
            start(slot)
        } else if toFinish == 0 || failure != nil {
            loop.stop()
        }
    }

    /// Ends the session, lets its connections close, closes the loop.
    func close() {
        for slot in slots { slot.cancellable = nil }
        slots = []
        session.invalidateAndCancel()
        finish(loop)
    }

    /// One request in flight at a time.
    fileprivate final class Slot {
        unowned let runner: SessionRunner
        var cancellable: AnyCancellable?

        init(runner: SessionRunner) {
            self.runner = runner
        }

        func received(_ data: Data) {
            runner.accumulator.add(data.count)
        }

        func finished(_ completion: Subscribers.Completion<UVURLError>) {
            runner.finished(self, completion)
        }
    }
}

/// Streams one response through `bytesPublisher(for:)`, counting the body's
/// bytes as the parts arrive (the sink keeps none of them).
final class StreamRunner {
    let loop: UVLoop
    let session: UVURLSession
    let publisher: UVURLSession.BytesPublisher
    private(set) var bytes = 0
    private var cancellable: AnyCancellable?
    private var failure: UVURLError?

    init(url: URL) {
        loop = makeLoop()
        session = UVURLSession(loop: loop)
        publisher = session.bytesPublisher(for: url)
    }

    /// Fetches the URL once; returns the body's length.
    func run() -> Int {
        bytes = 0
        cancellable = publisher.sink(receiveCompletion: { [unowned self] completion in
            if case .failure(let error) = completion { self.failure = error }
            self.loop.stop()
        }, receiveValue: { [unowned self] part in
            if case .body(let data) = part { self.bytes += data.count }
        })
        loop.run()
        if let failure { fatalError("StreamRunner: the task failed: \(failure)") }
        cancellable = nil
        return bytes
    }

    func close() {
        session.invalidateAndCancel()
        finish(loop)
    }
}
