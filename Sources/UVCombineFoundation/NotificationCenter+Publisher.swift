import Foundation
import Synchronization
import UVCombineCore

extension NotificationCenter {
    /// A publisher that emits elements when broadcasting notifications.
    ///
    /// Each subscription adds one observer to the center when the
    /// subscriber attaches; `cancel()` removes it. Notifications that
    /// arrive while the subscriber has no outstanding demand are dropped.
    /// The publisher never completes.
    ///
    /// Threading: values arrive on the thread that posts the notification;
    /// deliveries to one subscriber are serialised, and once its
    /// `cancel()` has returned no notification reaches it. The observed
    /// `object` is not retained by the subscription (Foundation's observer
    /// holds it weakly); once it is gone, nothing matches it any more.
    ///
    /// ```swift
    /// var storage = Set<AnyCancellable>()
    /// NotificationCenter.default.publisher(for: .NSSystemClockDidChange)
    ///     .sink { _ in print("the clock changed") }
    ///     .store(in: &storage)
    /// ```
    public struct Publisher: UVCombineCore.Publisher {
        /// Notifications.
        public typealias Output = Notification
        /// It never fails.
        public typealias Failure = Never

        /// The notification center this publisher uses as a source.
        public let center: NotificationCenter
        /// The name of notifications published by this publisher.
        public let name: Notification.Name
        /// The object posting the named notification, or `nil` for any.
        public let object: AnyObject?

        /// Creates a publisher that emits elements when broadcasting
        /// notifications.
        ///
        /// ```swift
        /// let p = NotificationCenter.Publisher(center: .default, name: .init("Saved"))
        /// ```
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Adds an observer for the subscriber and hands it the subscription.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            let subscription = NotificationSubscription(downstream: subscriber, name: name)
            subscription.observe(center: center, name: name, object: object)
            subscriber.receive(subscription: subscription)
        }
    }

    /// Returns a publisher that emits events when broadcasting
    /// notifications.
    ///
    /// ```swift
    /// NotificationCenter.default.publisher(for: .init("Saved"), object: document)
    ///     .sink { print($0.name) }
    ///     .store(in: &storage)
    /// ```
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }
}

extension NotificationCenter.Publisher: Equatable {
    /// Same center, same name, and the identical object (or both `nil`).
    ///
    /// ```swift
    /// center.publisher(for: name) == center.publisher(for: name) // true
    /// ```
    public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}

/// One subscriber's observer on a notification center.
///
/// A notification takes the state lock to count demand and is delivered
/// outside it, holding a re-entrant delivery gate; `cancel()` takes the
/// same gate, so it waits for a delivery in flight on another thread.
/// What a notification observer calls: the non-generic face of
/// `NotificationSubscription`.
internal class NotificationReceiver: @unchecked Sendable {
    func receive(_ notification: Notification) {}
}

internal final class NotificationSubscription<Downstream: Subscriber>: NotificationReceiver, Subscription,
    CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Notification, Downstream.Failure == Never
{
    // @unchecked Sendable: all mutable state is in `state`; the downstream
    // is called only under `gate`.
    private struct State {
        var downstream: Downstream?
        var demand: Subscribers.Demand = .none
        var center: NotificationCenter?
        var observer: (any NSObjectProtocol)?
    }

    private let state: Locked<State>
    private let gate = DownstreamGate()
    private let name: Notification.Name

    init(downstream: Downstream, name: Notification.Name) {
        state = Locked(State(downstream: downstream))
        self.name = name
        super.init()
    }

    /// Adds the observer (before the subscriber hears of the subscription,
    /// so that nothing posted after `subscribe` returns is missed once it
    /// requests).
    func observe(center: NotificationCenter, name: Notification.Name, object: AnyObject?) {
        // The observer block holds the subscription weakly, through its
        // non-generic base (a `@Sendable` block must not capture the
        // subscriber's type).
        let observer = center.addObserver(forName: name, object: object, queue: nil) {
            [weak receiver = self as NotificationReceiver] notification in
            receiver?.receive(notification)
        }
        state.withLock {
            $0.center = center
            $0.observer = observer
        }
    }

    override func receive(_ notification: Notification) {
        withGate {
            let target = state.withLock { s -> Downstream? in
                guard s.demand > 0, let downstream = s.downstream else { return nil }
                s.demand -= 1
                return downstream
            }
            guard let downstream = target else { return }
            let more = downstream.receive(notification)
            if more > 0 {
                state.withLock { s in
                    if s.downstream != nil { s.demand += more }
                }
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { s in
            if s.downstream != nil { s.demand += demand }
        }
    }

    func cancel() {
        var taken: State?
        withGate {
            taken = state.withLock { s -> State? in
                guard s.downstream != nil else { return nil }
                defer { s = State() }
                return s
            }
        }
        // The observer is removed and the subscriber released outside every
        // lock.
        if let old = taken, let center = old.center, let observer = old.observer {
            center.removeObserver(observer)
        }
    }

    private func withGate(_ body: () -> Void) {
        gate.withGate { _ in body() }
    }

    var description: String { "NotificationCenter Observer" }
    var customMirror: Mirror {
        let demand = state.withLock { $0.demand }
        return Mirror(self, children: ["name": name, "demand": demand])
    }
    var playgroundDescription: Any { description }
}
