import Foundation
import HTTPTypes
import Synchronization
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

/// A value shared between the test thread and the loop thread, behind a
/// mutex.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value lives inside the mutex.
    private let storage: Mutex<Value>
    init(_ value: sending Value) { storage = Mutex(value) }
    func withLock<R>(_ body: (inout sending Value) -> sending R) -> sending R { storage.withLock(body) }
}

extension Locked where Value: Sendable {
    var value: Value { storage.withLock { $0 } }
}

/// Hands a non-Sendable value to the loop thread in tests where the test
/// orders every access (it waits for the loop to finish with it).
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` on the loop's thread and waits for it.
func onLoop<R>(_ loop: UVLoop, _ body: @escaping () -> R) -> R {
    let result = Locked<R?>(nil)
    let done = DispatchSemaphore(value: 0)
    let job = Handoff(body)
    loop.schedule {
        let value = job.value()
        let box = Handoff(value)
        result.withLock { $0 = box.value }
        done.signal()
    }
    done.wait()
    return result.withLock { value in
        let taken = value
        value = nil
        return Handoff(taken!)
    }.value
}

func currentThread() -> UInt { UInt(pthread_self()) }

/// Subscribing, requesting and cancelling from other threads; delivery on
/// the loop thread; strict cancel.
@Suite("UVURLSession threading")
struct SessionThreadingTests {
    @Test("subscribe and request from another thread; the value arrives on the loop thread")
    func crossThreadSubscribe() throws {
        let background = try UVLoopThread()
        let fake = Handoff(FakeTransport())
        do {
            let session = UVURLSession(loop: background.loop, configuration: .init(), transport: fake.value)
            let loopThread = onLoop(background.loop) { currentThread() }
            #expect(loopThread != currentThread())
            let deliveredOn = Locked<[UInt]>([])
            let done = DispatchSemaphore(value: 0)
            let cancellable = session.dataTaskPublisher(for: exampleURL)
                .sink(receiveCompletion: { _ in done.signal() },
                      receiveValue: { _ in deliveredOn.withLock { $0.append(currentThread()) } })
            // The start hops to the loop; once it ran, the fake has a connection.
            onLoop(background.loop) {
                fake.value.last.accept()
                fake.value.last.respond(response(body: "hi"))
            }
            done.wait()
            #expect(deliveredOn.value == [loopThread])
            cancellable.cancel()
        }
        try background.shutdown()
    }

    @Test("cancel from another thread is strict: nothing arrives after cancel() returned")
    func strictCancelFromAnotherThread() throws {
        let background = try UVLoopThread()
        let fake = Handoff(FakeTransport())
        do {
            let session = UVURLSession(loop: background.loop, configuration: .init(), transport: fake.value)
            let lateValues = Locked(0)
            let delivered = Locked(0)
            for round in 0..<200 {
                let cancelled = Locked(false)
                let subscriber = DataTaskTracker(initialDemand: .none, onValue: { _ in
                    if cancelled.value { lateValues.withLock { $0 += 1 } }
                    delivered.withLock { $0 += 1 }
                })
                session.dataTaskPublisher(for: URL(string: "http://example.com/\(round)")!).subscribe(subscriber)
                subscriber.request(.max(1))
                onLoop(background.loop) {
                    let connection = fake.value.last
                    if connection.state == .connecting { connection.accept() }
                }
                // The response is read on the loop thread while this thread cancels.
                background.loop.schedule { fake.value.last.respond(response(body: "x")) }
                if round % 3 != 0 { sched_yield() }
                subscriber.cancel()
                cancelled.withLock { $0 = true }
                // Let the loop settle before the next round.
                _ = onLoop(background.loop) { 0 }
            }
            #expect(lateValues.value == 0)
            #expect(delivered.value <= 200)
        }
        try background.shutdown()
    }

    @Test("the session and its subscriptions work from many threads at once")
    func manyThreads() throws {
        let background = try UVLoopThread()
        let fake = Handoff(FakeTransport())
        do {
            var configuration = UVURLSession.Configuration()
            configuration.maximumConnectionsPerHost = 4
            let session = UVURLSession(loop: background.loop, configuration: configuration, transport: fake.value)
            let finished = Locked(0)
            let group = DispatchGroup()
            let cancellables = Locked<[AnyCancellable]>([])
            for index in 0..<8 {
                group.enter()
                DispatchQueue.global().async {
                    let cancellable = session.dataTaskPublisher(for: URL(string: "http://example.com/\(index)")!)
                        .sink(receiveCompletion: { _ in
                            finished.withLock { $0 += 1 }
                        }, receiveValue: { _ in })
                    cancellables.withLock { $0.append(cancellable) }
                    group.leave()
                }
            }
            group.wait()
            // Serve every request as it arrives, on the loop thread.
            while finished.value < 8 {
                onLoop(background.loop) {
                    for connection in fake.value.connections where !connection.isClosed {
                        if connection.state == .connecting { connection.accept() }
                        if connection.pendingWrites > 0 { connection.respond(response(body: "ok")) }
                    }
                }
            }
            #expect(onLoop(background.loop) { fake.value.connections.count } <= 4)
            #expect(onLoop(background.loop) { fake.value.requestLines.count } == 8)
        }
        try background.shutdown()
    }
}
