import Testing
import UVCombineCore
import UVCombineTesting

/// The transport error of the stand-in data task.
private struct StandInURLError: Error, Equatable {}

/// A stand-in for `URLSession.DataTaskPublisher`, with the behaviour
/// `UVURLSession.DataTaskPublisher` has (docs/url-session.md): every
/// subscription is a new request, started on
/// the first demand (not on subscribe); it emits one `(data, response)` and
/// finishes, or fails. With `respondsAtOnce: false` the response waits for
/// `respond()`, as a real network would.
private final class StandInDataTask: Publisher {
    typealias Output = (data: [UInt8], response: Int)
    typealias Failure = StandInURLError

    final class Request: Subscription {
        let task: StandInDataTask
        let send: (Output) -> Void
        let complete: (Subscribers.Completion<StandInURLError>) -> Void
        var started = false
        var done = false

        init(task: StandInDataTask, send: @escaping (Output) -> Void,
             complete: @escaping (Subscribers.Completion<StandInURLError>) -> Void) {
            self.task = task
            self.send = send
            self.complete = complete
        }

        func request(_ demand: Subscribers.Demand) {
            guard !started, !done else { return }
            started = true
            task.requestsStarted += 1
            if task.respondsAtOnce { respond() }
        }

        func respond() {
            guard started, !done else { return }
            done = true
            switch task.result {
            case .success(let data):
                send((data: data, response: 200))
                complete(.finished)
            case .failure(let error):
                complete(.failure(error))
            }
        }

        func cancel() {
            guard !done else { return }
            done = true
            task.cancelCount += 1
        }
    }

    let result: Result<[UInt8], StandInURLError>
    let respondsAtOnce: Bool
    private(set) var subscriptions = 0
    private(set) var requestsStarted = 0
    private(set) var cancelCount = 0
    private var requests: [Request] = []

    init(result: Result<[UInt8], StandInURLError>, respondsAtOnce: Bool = true) {
        self.result = result
        self.respondsAtOnce = respondsAtOnce
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriptions += 1
        let request = Request(task: self,
                              send: { _ = subscriber.receive($0) },
                              complete: { subscriber.receive(completion: $0) })
        requests.append(request)
        subscriber.receive(subscription: request)
    }

    /// Delivers the pending responses.
    func respond() {
        for request in requests { request.respond() }
    }
}

/// The five scenarios the project was specified from (the demo's, see
/// `uvcombine demo`), written against UVCombine's API.
@Suite("Seed scenarios")
struct SeedTests {
    // MARK: Controlling Publishing with Connectable Publishers

    @Test func connectablePublisherHoldsTheDataTaskUntilConnect() {
        let task = StandInDataTask(result: .success(Array(repeating: 0x2A, count: 1_256)))
        var log: [String] = []
        let connectable = task
            .map { $0.data }
            .catch { _ in Just([UInt8]()) }
            .share()
            .makeConnectable()

        let cancellable1 = connectable
            .sink(receiveCompletion: { log.append("Received completion 1: \($0).") },
                  receiveValue: { log.append("Received data 1: \($0.count) bytes.") })
        // Attaching a sink would start a plain data task; here nothing starts.
        #expect(task.subscriptions == 0)

        let cancellable2 = connectable
            .sink(receiveCompletion: { log.append("Received completion 2: \($0).") },
                  receiveValue: { log.append("Received data 2: \($0.count) bytes.") })
        #expect(log == [])
        #expect(task.subscriptions == 0)
        #expect(task.requestsStarted == 0)

        let connection = connectable.connect()
        #expect(task.subscriptions == 1)
        #expect(task.requestsStarted == 1)
        #expect(log == [
            "Received data 1: 1256 bytes.",
            "Received data 2: 1256 bytes.",
            "Received completion 1: finished.",
            "Received completion 2: finished.",
        ])
        _ = (cancellable1, cancellable2, connection)
    }

    @Test func connectablePublisherFailedDataTaskIsCaughtForBothSubscribers() {
        let task = StandInDataTask(result: .failure(StandInURLError()))
        var log: [String] = []
        let connectable = task
            .map { $0.data }
            .catch { _ in Just([UInt8]()) }
            .share()
            .makeConnectable()
        let cancellable1 = connectable
            .sink(receiveCompletion: { log.append("Received completion 1: \($0).") },
                  receiveValue: { log.append("Received data 1: \($0.count) bytes.") })
        let cancellable2 = connectable
            .sink(receiveCompletion: { log.append("Received completion 2: \($0).") },
                  receiveValue: { log.append("Received data 2: \($0.count) bytes.") })
        let connection = connectable.connect()
        #expect(log == [
            "Received data 1: 0 bytes.",
            "Received data 2: 0 bytes.",
            "Received completion 1: finished.",
            "Received completion 2: finished.",
        ])
        #expect(task.subscriptions == 1)
        _ = (cancellable1, cancellable2, connection)
    }

    @Test func withoutMakeConnectableTheSecondSubscriberMissesTheData() {
        // The race the article describes: the first sink starts the task,
        // which completes before the second sink attaches.
        let task = StandInDataTask(result: .success([1, 2, 3]))
        var log: [String] = []
        let shared = task.map { $0.data }.catch { _ in Just([UInt8]()) }.share()
        let cancellable1 = shared
            .sink(receiveCompletion: { log.append("Received completion 1: \($0).") },
                  receiveValue: { log.append("Received data 1: \($0.count) bytes.") })
        let cancellable2 = shared
            .sink(receiveCompletion: { log.append("Received completion 2: \($0).") },
                  receiveValue: { log.append("Received data 2: \($0.count) bytes.") })
        #expect(log == [
            "Received data 1: 3 bytes.",
            "Received completion 1: finished.",
            "Received completion 2: finished.",
        ])
        #expect(task.subscriptions == 1)
        _ = (cancellable1, cancellable2)
    }

    @Test func cancellingTheRetainedConnectionCancelsThePendingDataTask() {
        let task = StandInDataTask(result: .success([1]), respondsAtOnce: false)
        var log: [String] = []
        let connectable = task.map { $0.data }.catch { _ in Just([UInt8]()) }.share().makeConnectable()
        let cancellable1 = connectable
            .sink(receiveCompletion: { log.append("Received completion 1: \($0).") },
                  receiveValue: { log.append("Received data 1: \($0.count) bytes.") })
        var connection: (any Cancellable)? = connectable.connect()
        #expect(task.requestsStarted == 1)
        connection?.cancel()
        #expect(task.cancelCount == 1)
        task.respond()
        #expect(log == [])
        connection = nil

        // Releasing the connection (an AnyCancellable) cancels just the same.
        let task2 = StandInDataTask(result: .success([1]), respondsAtOnce: false)
        let connectable2 = task2.map { $0.data }.catch { _ in Just([UInt8]()) }.share().makeConnectable()
        let cancellable2 = connectable2.sink { log.append("Received data 2: \($0.count) bytes.") }
        do {
            let released = connectable2.connect()
            #expect(task2.requestsStarted == 1)
            _ = released
        }
        #expect(task2.cancelCount == 1)
        task2.respond()
        #expect(log == [])
        _ = (cancellable1, cancellable2)
    }

    @Test func autoconnectConnectsOnTheFirstSubscriber() {
        // The article's timer example, with a subject for the timer.
        let ticks = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let cancellable = ticks
            .makeConnectable()
            .autoconnect()
            .sink { log.append("Date now: \($0)") }
        ticks.send(1)
        ticks.send(2)
        #expect(log == ["Date now: 1", "Date now: 2"])
        cancellable.cancel()
        ticks.send(3)
        #expect(log == ["Date now: 1", "Date now: 2"])
    }

    // MARK: Understanding Combine — Stopping a Pipeline

    @Test func cancellingTheStoredAnyCancellableStopsThePublisher() {
        let notifications = TestPublisher<String, Never>()
        var storage = Set<AnyCancellable>()
        var log: [String] = []
        notifications
            .map { $0 }
            .filter { _ in true }
            .sink { _ in log.append("we're going into the background!") }
            .store(in: &storage)
        notifications.send("didEnterBackground")
        storage.first?.cancel()
        // The cancel percolated up through the operators to the publisher.
        #expect(notifications.subscription?.isCancelled == true)
        notifications.send("didEnterBackground")
        #expect(log == ["we're going into the background!"])
        #expect(storage.count == 1)
    }

    @Test func removingTheAnyCancellableFromTheSetCancels() {
        let notifications = TestPublisher<String, Never>()
        var storage = Set<AnyCancellable>()
        var log: [String] = []
        notifications
            .sink { _ in log.append("we're going into the background!") }
            .store(in: &storage)
        notifications.send("didEnterBackground")
        storage.removeFirst()
        #expect(notifications.subscription?.isCancelled == true)
        notifications.send("didEnterBackground")
        #expect(log == ["we're going into the background!"])
        #expect(storage.isEmpty)
    }

    @Test func releasingTheOwnerCancelsEveryStoredPipeline() {
        final class ViewController {
            var storage = Set<AnyCancellable>()
            var log: [String] = []
        }
        let notifications = TestPublisher<String, Never>()
        let images = StandInDataTask(result: .success([9, 9]), respondsAtOnce: false)
        var controller: ViewController? = ViewController()
        weak let weakController = controller
        notifications
            .sink { [unowned controller = controller!] _ in controller.log.append("background") }
            .store(in: &controller!.storage)
        images
            .map { $0.data.count }
            .sink(receiveCompletion: { _ in }, receiveValue: { [unowned controller = controller!] in
                controller.log.append("image of \($0) bytes")
            })
            .store(in: &controller!.storage)
        #expect(images.requestsStarted == 1)
        controller = nil
        #expect(weakController == nil)
        #expect(notifications.subscription?.isCancelled == true)
        #expect(images.cancelCount == 1)
    }

    @Test func completionTerminatesThePipelineAndALaterCancelDoesNothing() {
        let task = StandInDataTask(result: .success([1, 2, 3, 4]))
        var storage = Set<AnyCancellable>()
        var log: [String] = []
        task
            .map { $0.data.count }
            .sink(receiveCompletion: { log.append("completion: \($0)") },
                  receiveValue: { log.append("image of \($0) bytes") })
            .store(in: &storage)
        #expect(log == ["image of 4 bytes", "completion: finished"])
        storage.first?.cancel()
        #expect(task.cancelCount == 0)
        #expect(task.subscriptions == 1)
        #expect(log == ["image of 4 bytes", "completion: finished"])
    }

    @Test func failureAlsoTerminatesThePipeline() {
        let task = StandInDataTask(result: .failure(StandInURLError()))
        var storage = Set<AnyCancellable>()
        var log: [String] = []
        task
            .map { $0.data.count }
            .sink(receiveCompletion: { completion in
                if case .failure = completion { log.append("failed") } else { log.append("finished") }
            }, receiveValue: { log.append("image of \($0) bytes") })
            .store(in: &storage)
        storage.removeAll()
        #expect(log == ["failed"])
        #expect(task.cancelCount == 0)
    }
}
