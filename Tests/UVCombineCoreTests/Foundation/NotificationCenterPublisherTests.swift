import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineTesting

private let ping = Notification.Name("UVCombineTests.ping")

@Suite("NotificationCenter.publisher(for:object:)")
struct NotificationCenterPublisherTests {
    @Test func deliversPostedNotificationsOnThePostingThread() {
        let center = NotificationCenter()
        let seen = Mutex<[String]>([])
        let c = center.publisher(for: ping).sink { note in
            seen.withLock { $0.append("\(note.userInfo?["n"] ?? "-") \(Thread.isMainThread)") }
        }
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        let main = Thread.isMainThread
        #expect(seen.withLock { $0 } == ["1 \(main)"])
        let done = DispatchSemaphore(value: 0)
        let box = UncheckedBoxForTests(center)
        Thread.detachNewThread {
            box.value.post(name: ping, object: nil, userInfo: ["n": 2])
            done.signal()
        }
        done.wait()
        #expect(seen.withLock { $0 } == ["1 \(main)", "2 false"])
        c.cancel()
    }

    @Test func filtersByObjectAndDoesNotRetainIt() {
        final class Sender {}
        let center = NotificationCenter()
        weak var weakSender: Sender?
        var count = 0
        var c: AnyCancellable?
        do {
            let sender = Sender()
            weakSender = sender
            c = center.publisher(for: ping, object: sender).sink { _ in count += 1 }
            center.post(name: ping, object: sender)
            center.post(name: ping, object: Sender())
            center.post(name: ping, object: nil)
        }
        #expect(count == 1)
        #expect(weakSender == nil)
        center.post(name: ping, object: nil)
        #expect(count == 1)
        c?.cancel()
    }

    @Test func dropsWithoutDemandAndCountsDemand() {
        let center = NotificationCenter()
        let tracker = TrackingSubscriber<Notification, Never>(initialDemand: .none)
        center.publisher(for: ping).subscribe(tracker)
        center.post(name: ping, object: nil)
        tracker.request(.max(2))
        #expect(tracker.values.isEmpty)
        for _ in 0..<3 { center.post(name: ping, object: nil) }
        #expect(tracker.values.count == 2)
        #expect(tracker.subscriptionNames == ["NotificationCenter Observer"])
        tracker.cancel()
    }

    @Test func cancelRemovesTheObserverAndReleasesTheSubscriber() {
        final class Witness {}
        let center = NotificationCenter()
        weak var weakWitness: Witness?
        var count = 0
        var c: AnyCancellable?
        do {
            let witness = Witness()
            weakWitness = witness
            c = center.publisher(for: ping).sink { _ in _ = witness; count += 1 }
        }
        center.post(name: ping, object: nil)
        #expect(count == 1)
        c?.cancel()
        #expect(weakWitness == nil)
        center.post(name: ping, object: nil)
        #expect(count == 1)
        c = nil
    }

    @Test func equalityComparesCenterNameAndObjectIdentity() {
        let center = NotificationCenter()
        let object = NSObject()
        #expect(center.publisher(for: ping) == NotificationCenter.Publisher(center: center, name: ping))
        #expect(center.publisher(for: ping, object: object) == center.publisher(for: ping, object: object))
        #expect(center.publisher(for: ping, object: object) != center.publisher(for: ping))
        #expect(center.publisher(for: ping) != NotificationCenter().publisher(for: ping))
    }
}
