import Foundation
import Testing
import UVCombineShim

// Code as it is written for Apple's Combine, with `import Combine` replaced
// by `import UVCombineShim` and nothing else: it must compile against the
// shim alone (no UVCombine import here) and behave as Combine.

private final class Counter: ObservableObject {
    @Published var count = 0
    @Published var label = ""
}

private extension Notification.Name {
    static let shimTestDidFire = Notification.Name("ShimTests.didFire")
}

@Suite("UVCombineShim: Combine code with only the import changed")
struct ShimTests {
    @Test func publishedAndObservableObjectAsInCombine() {
        let counter = Counter()
        var seen: [Int] = []
        var changes = 0
        var cancellables = Set<AnyCancellable>()
        counter.$count.sink { seen.append($0) }.store(in: &cancellables)
        counter.objectWillChange.sink { changes += 1 }.store(in: &cancellables)
        counter.count = 1
        counter.label = "a"
        counter.count = 2
        #expect(seen == [0, 1, 2], "the current value first, then each new one")
        #expect(changes == 3, "once per change of any @Published property")
    }

    @Test func notificationCenterPipeline() {
        let center = NotificationCenter()
        var names: [String] = []
        let cancellable = center.publisher(for: .shimTestDidFire)
            .map { $0.name.rawValue }
            .sink { names.append($0) }
        center.post(name: .shimTestDidFire, object: nil)
        cancellable.cancel()
        center.post(name: .shimTestDidFire, object: nil)
        #expect(names == ["ShimTests.didFire"])
    }

    @Test func subjectsOperatorsAndShare() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.map { $0 * 10 }.share()
        var a: [Int] = []
        var b: [Int] = []
        let ca = shared.sink { a.append($0) }
        let cb = shared.filter { $0 > 10 }.sink { b.append($0) }
        subject.send(1)
        subject.send(2)
        ca.cancel()
        cb.cancel()
        #expect(a == [10, 20])
        #expect(b == [20])
        #expect(Just(1).map { $0 + 1 }.collect().first() is Just<[Int]>, "Combine's specialised return types")
    }

    @Test func timerPublishOnARunLoop() {
        // Seed 004's shape: Timer.publish(every:on:in:) + connect(), run by
        // RunLoop.current.run(until:).
        var ticks = 0
        var cancellables = Set<AnyCancellable>()
        Timer.publish(every: 0.01, on: .current, in: .common)
            .sink { _ in ticks += 1 }
            .store(in: &cancellables)
        let connection = Timer.publish(every: 0.01, on: .current, in: .common)
            .autoconnect()
            .prefix(3)
            .sink { _ in ticks += 1 }
        let deadline = Date().addingTimeInterval(5)
        while ticks < 3 && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        connection.cancel()
        #expect(ticks == 3, "the unconnected publisher sends nothing; the autoconnected one three ticks")
    }
}
