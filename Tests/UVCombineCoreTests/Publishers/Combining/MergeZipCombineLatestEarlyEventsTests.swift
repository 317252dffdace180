import Testing
import UVCombineCore
import UVCombineTesting

// What merge, zip and combineLatest do with a value or a completion that an
// input sends before its own subscription, before the downstream has asked
// for anything, and in which order the downstream and the inputs are
// subscribed. The rules are Combine's, as reconstructed from its 2023
// release (docs/combine-compatibility.md, "Combining operators").

/// One thing an ``EarlyPublisher`` does while being subscribed.
enum EarlyStep<Output, Failure: Error> {
    case value(Output)
    case subscription
    case completion(Subscribers.Completion<Failure>)
}

/// A hand-written publisher that runs `script` inside `receive(subscriber:)`
/// (values and completions may come before the subscription, as from a
/// misbehaving upstream) and keeps the subscriber so the test can send
/// more afterwards. Logs `name.subscribe` when subscribed, if given a log.
final class EarlyPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: single-threaded tests only.
    let script: [EarlyStep<Output, Failure>]
    let subscription: any Subscription
    private let name: String
    private let log: CmbEventLog?
    private var onSubscription: (() -> Void)?
    private var onValue: ((Output) -> Subscribers.Demand)?
    private var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    /// What the subscriber's `receive(_:)` returned, in order.
    private(set) var returned: [Subscribers.Demand] = []

    init(_ script: [EarlyStep<Output, Failure>], name: String = "input", log: CmbEventLog? = nil,
         subscription: (any Subscription)? = nil) {
        self.script = script
        self.name = name
        self.log = log
        self.subscription = subscription ?? CmbProbeSubscription()
    }

    /// The subscription as a probe (when the default one is used).
    var probe: CmbProbeSubscription { subscription as! CmbProbeSubscription }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        log?.append("\(name).subscribe")
        let subscription = self.subscription
        onSubscription = { subscriber.receive(subscription: subscription) }
        onValue = { subscriber.receive($0) }
        onCompletion = { subscriber.receive(completion: $0) }
        for step in script {
            switch step {
            case .value(let value): send(value)
            case .subscription: sendSubscription()
            case .completion(let completion): send(completion: completion)
            }
        }
    }

    func sendSubscription() { onSubscription?() }

    func send(_ value: Output) {
        if let onValue { returned.append(onValue(value)) }
    }

    func send(completion: Subscribers.Completion<Failure>) { onCompletion?(completion) }
}

/// A subscriber that logs `subscription(Name)` and requests `initialDemand`.
private final class OrderLoggingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: single-threaded tests only.
    let log: CmbEventLog
    let initialDemand: Subscribers.Demand

    init(_ log: CmbEventLog, initialDemand: Subscribers.Demand) {
        self.log = log
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        log.append("subscription(\(subscription))")
        subscription.request(initialDemand)
    }

    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Failure>) {}
}

private typealias Early = EarlyPublisher<Int, TestError>

@Suite("merge, zip, combineLatest: events before the subscription")
struct MergeZipCombineLatestEarlyEventsTests {
    // MARK: merge (one rule for Merge ... Merge8 and MergeMany)

    /// Every merge form over `a` and `b` (the wider ones padded with inputs
    /// that finish at once).
    private static func merges(_ a: Early, _ b: Early) -> [(String, AnyPublisher<Int, TestError>)] {
        let e = Empty<Int, TestError>()
        return [("merge(with:)", a.merge(with: b).eraseToAnyPublisher()),
                ("Merge3", Publishers.Merge3(a, b, e).eraseToAnyPublisher()),
                ("Merge4", Publishers.Merge4(a, b, e, e).eraseToAnyPublisher()),
                ("Merge5", Publishers.Merge5(a, b, e, e, e).eraseToAnyPublisher()),
                ("Merge6", Publishers.Merge6(a, b, e, e, e, e).eraseToAnyPublisher()),
                ("Merge7", Publishers.Merge7(a, b, e, e, e, e, e).eraseToAnyPublisher()),
                ("Merge8", Publishers.Merge8(a, b, e, e, e, e, e, e).eraseToAnyPublisher()),
                ("MergeMany", Publishers.MergeMany(a, b).eraseToAnyPublisher())]
    }

    /// Merge hands the downstream its subscription first, then subscribes
    /// the inputs, each asked for `.max(1)` against finite demand.
    @Test func mergeSubscribesTheDownstreamFirst() {
        let log = CmbEventLog()
        let a = Early([.subscription], name: "a", log: log, subscription: CmbLoggedSubscription("a", log))
        let b = Early([.subscription], name: "b", log: log, subscription: CmbLoggedSubscription("b", log))
        a.merge(with: b).subscribe(OrderLoggingSubscriber<Int, TestError>(log, initialDemand: .max(2)))
        #expect(log.all == ["subscription(Merge)", "a.subscribe", "a.request(max(1))",
                            "b.subscribe", "b.request(max(1))"])
    }

    /// A value before the input's subscription and before any demand waits
    /// in that input's buffer; the subscription that follows is asked for
    /// `.max(1)`; the first request delivers the value and asks again.
    @Test func mergeKeepsAnEarlyValueUntilRequested() {
        for index in 0..<8 {
            let a = Early([.value(1), .subscription])
            let b = Early([.subscription])
            let (name, merged) = Self.merges(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
            merged.subscribe(tracker)
            #expect(tracker.history == ["subscription(Merge)"], "\(name)")
            #expect(a.returned == [.none], "\(name)")
            #expect(a.probe.requested == [.max(1)], "\(name)")
            tracker.request(.max(1))
            #expect(tracker.history == ["subscription(Merge)", "value(1)"], "\(name)")
            #expect(a.probe.requested == [.max(1), .max(1)], "\(name)")
            #expect(b.probe.requested == [.max(1)], "\(name)")
        }
    }

    /// With demand already there, an early value goes straight through:
    /// against finite demand the input is answered `.max(1)`, against
    /// `.unlimited` nothing; its subscription then gets the usual request.
    @Test func mergeDeliversAnEarlyValueAgainstDemand() {
        for (demand, answer) in [(Subscribers.Demand.max(1), Subscribers.Demand.max(1)), (.unlimited, .none)] {
            for index in 0..<8 {
                let a = Early([.value(1), .subscription])
                let b = Early([.subscription])
                let (name, merged) = Self.merges(a, b)[index]
                let tracker = TrackingSubscriber<Int, TestError>(initialDemand: demand)
                merged.subscribe(tracker)
                #expect(tracker.history == ["subscription(Merge)", "value(1)"], "\(name)")
                #expect(a.returned == [answer], "\(name)")
                #expect(a.probe.requested == [demand.isUnlimited ? .unlimited : .max(1)], "\(name)")
            }
        }
    }

    /// A `.finished` before the input's subscription counts that input as
    /// finished (its buffered value still goes out first); the subscription
    /// it sends afterwards is cancelled. Combine keeps and asks such a late
    /// subscription, and counts the input's next finish a second time.
    @Test func mergeCountsAFinishBeforeTheSubscription() {
        for index in 0..<8 {
            let a = Early([.value(1), .completion(.finished), .subscription])
            let b = Early([.subscription])
            let (name, merged) = Self.merges(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
            merged.subscribe(tracker)
            #expect(a.probe.cancelCount == 1, "\(name)")
            #expect(a.probe.requested.isEmpty, "\(name)")
            b.send(completion: .finished)
            #expect(tracker.history == ["subscription(Merge)"], "\(name)")
            tracker.request(.max(1))
            #expect(tracker.history == ["subscription(Merge)", "value(1)", "finished"], "\(name)")
        }
    }

    /// A failure before the input's subscription fails the merge at once
    /// and cancels the inputs subscribed so far; later subscriptions are
    /// cancelled.
    @Test func mergeFailsAtOnceOnAFailureBeforeTheSubscription() {
        for index in 0..<8 {
            let a = Early([.subscription])
            let b = Early([.completion(.failure(.boom)), .subscription])
            let (name, merged) = Self.merges(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
            merged.subscribe(tracker)
            #expect(tracker.history == ["subscription(Merge)", "failure(boom)"], "\(name)")
            #expect(a.probe.cancelCount == 1, "\(name)")
            #expect(b.probe.cancelCount == 1, "\(name)")
        }
    }

    // MARK: zip

    /// Zip and combineLatest subscribe every input first and only then hand
    /// the downstream its subscription (zip from inside the last input's
    /// subscription); its request then reaches every input. An input's
    /// subscription is asked for nothing by itself.
    @Test(arguments: ["Zip", "CombineLatest"], 2...4)
    func zipAndCombineLatestSubscribeTheInputsFirst(_ name: String, _ arity: Int) {
        let log = CmbEventLog()
        let names = ["a", "b", "c", "d"]
        let inputs = (0..<arity).map {
            Early([.subscription], name: names[$0], log: log, subscription: CmbLoggedSubscription(names[$0], log))
        }
        let subscriber = OrderLoggingSubscriber<Int, TestError>(log, initialDemand: .max(2))
        switch (name, arity) {
        case ("Zip", 2): inputs[0].zip(inputs[1]) { $0 + $1 }.subscribe(subscriber)
        case ("Zip", 3): inputs[0].zip(inputs[1], inputs[2]) { $0 + $1 + $2 }.subscribe(subscriber)
        case ("Zip", _): inputs[0].zip(inputs[1], inputs[2], inputs[3]) { $0 + $1 + $2 + $3 }.subscribe(subscriber)
        case (_, 2): inputs[0].combineLatest(inputs[1]) { $0 + $1 }.subscribe(subscriber)
        case (_, 3): inputs[0].combineLatest(inputs[1], inputs[2]) { $0 + $1 + $2 }.subscribe(subscriber)
        default: inputs[0].combineLatest(inputs[1], inputs[2], inputs[3]) { $0 + $1 + $2 + $3 }.subscribe(subscriber)
        }
        let subscribes = names[..<arity].map { "\($0).subscribe" }
        let requests = names[..<arity].map { "\($0).request(max(2))" }
        #expect(log.all == subscribes + ["subscription(\(name))"] + requests)
    }

    @Test func zipWaitsForEveryInputsSubscription() {
        let a = Early([])
        let b = Early([])
        let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .max(1))
        a.zip(b).subscribe(tracker)
        a.sendSubscription()
        #expect(tracker.history.isEmpty)
        #expect(a.probe.requested.isEmpty)
        b.sendSubscription()
        #expect(tracker.history == ["subscription(Zip)"])
        #expect(a.probe.requested == [.max(1)])
        #expect(b.probe.requested == [.max(1)])
    }

    /// Values sent before the subscriptions are queued; as soon as every
    /// queue has one, the tuple goes out, even before the downstream has its
    /// subscription (Combine's zip counts no demand of its own).
    @Test func zipForwardsATupleOfEarlyValuesAtOnce() {
        let a = Early([.value(1), .subscription])
        let b = Early([.value(10), .subscription])
        let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .none)
        a.zip(b).subscribe(tracker)
        #expect(tracker.history == ["value((1, 10))", "subscription(Zip)"])
        #expect(a.returned == [.none])
        #expect(b.returned == [.none])
        #expect(a.probe.requested.isEmpty)
        #expect(b.probe.requested.isEmpty)
    }

    /// A `.finished` before the input's subscription ends the zip (its queue
    /// is empty), but the downstream hears of it only once the last input
    /// has sent its subscription: the subscription, then `.finished`. The
    /// subscriptions that arrive after the end are cancelled.
    @Test func zipHoldsAnEarlyFinishUntilTheLastSubscription() {
        let a = Early([.completion(.finished), .subscription])
        let b = Early([])
        let tracker = TrackingSubscriber<(Int, Int), TestError>()
        a.zip(b).subscribe(tracker)
        #expect(tracker.history.isEmpty)
        #expect(a.probe.cancelCount == 1)
        b.sendSubscription()
        #expect(tracker.history == ["subscription(Zip)", "finished"])
        #expect(b.probe.cancelCount == 1)
        #expect(b.probe.requested.isEmpty)
    }

    /// A failure before the input's subscription cancels the inputs already
    /// subscribed at once; the downstream gets its subscription and the
    /// failure when the failed input sends its subscription.
    @Test func zipHoldsAnEarlyFailureUntilTheLastSubscription() {
        let a = Early([.subscription])
        let b = Early([.completion(.failure(.boom))])
        let tracker = TrackingSubscriber<(Int, Int), TestError>()
        a.zip(b).subscribe(tracker)
        #expect(tracker.history.isEmpty)
        #expect(a.probe.cancelCount == 1)
        b.sendSubscription()
        #expect(tracker.history == ["subscription(Zip)", "failure(boom)"])
        #expect(b.probe.cancelCount == 1)
    }

    /// An input that sends a value and finishes before its subscription:
    /// the value is zipped with the other input's early value and forwarded,
    /// then the zip ends (no tuple is possible any more) and the downstream
    /// gets its subscription and `.finished`.
    @Test func zipForwardsEarlyValuesThenHoldsTheFinish() {
        let a = Early([.value(1), .completion(.finished), .subscription])
        let b = Early([.value(10), .subscription])
        let tracker = TrackingSubscriber<(Int, Int), TestError>()
        a.zip(b).subscribe(tracker)
        #expect(tracker.history == ["value((1, 10))", "subscription(Zip)", "finished"])
        #expect(a.probe.cancelCount == 1)
        #expect(b.probe.cancelCount == 1)
    }

    // MARK: combineLatest

    /// The downstream gets its subscription after the inputs were
    /// subscribed, whether or not they sent their own subscriptions.
    @Test func combineLatestHandsOverWithoutWaitingForTheInputs() {
        let a = Early([])
        let b = Early([])
        let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .max(1))
        a.combineLatest(b).subscribe(tracker)
        #expect(tracker.history == ["subscription(CombineLatest)"])
    }

    /// Early values only become their input's latest value: nothing had
    /// been requested. Once requested, the next value sends a combination
    /// that uses them.
    @Test func combineLatestKeepsEarlyValuesAsTheLatest() {
        let a = Early([.value(1), .subscription])
        let b = Early([.value(10), .subscription])
        let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .max(1))
        a.combineLatest(b).subscribe(tracker)
        #expect(tracker.history == ["subscription(CombineLatest)"])
        #expect(a.returned == [.none])
        #expect(b.returned == [.none])
        a.send(2)
        #expect(tracker.history == ["subscription(CombineLatest)", "value((2, 10))"])
    }

    /// Every input finishing while being subscribed (before or after its
    /// subscription) finishes the combination right after the downstream
    /// got its subscription.
    @Test func combineLatestDeliversAnEarlyFinishAfterTheSubscription() {
        let a = Early([.completion(.finished), .subscription])
        let b = Early([.subscription, .completion(.finished)])
        let tracker = TrackingSubscriber<(Int, Int), TestError>()
        a.combineLatest(b).subscribe(tracker)
        #expect(tracker.history == ["subscription(CombineLatest)", "finished"])
        #expect(a.probe.cancelCount == 1)
        #expect(b.probe.requested.isEmpty)
    }

    /// A failure while being subscribed cancels the other inputs at once and
    /// reaches the downstream right after its subscription.
    @Test func combineLatestDeliversAnEarlyFailureAfterTheSubscription() {
        let a = Early([.subscription])
        let b = Early([.completion(.failure(.boom)), .subscription])
        let tracker = TrackingSubscriber<(Int, Int), TestError>()
        a.combineLatest(b).subscribe(tracker)
        #expect(tracker.history == ["subscription(CombineLatest)", "failure(boom)"])
        #expect(a.probe.cancelCount == 1)
        #expect(b.probe.cancelCount == 1)
        #expect(a.probe.requested.isEmpty)
    }
}
