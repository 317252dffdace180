import Synchronization

/// The package's one fan-out engine: the subscriber list, per-subscriber
/// demand, and the serialisation of deliveries, for both subjects,
/// `share()`, `ObservableObjectPublisher`, the scheduler timer and (through
/// `TimerFanOut`) both timer publishers.
///
/// ## Why a delivery gate held across downstream calls
///
/// Combine serialises calls into one subscriber, and once `cancel()` has
/// returned no further value may reach that subscriber. Both need the
/// sending thread to hold something while it calls downstream, so that a
/// concurrent `send` waits its turn and a concurrent `cancel` waits for the
/// value in flight. The gate is that: one `Mutex` per subject, taken once
/// per `send` (not once per subscriber), re-entrant for the thread that
/// holds it — a subscriber may `send`, `request`, subscribe or `cancel`
/// from inside its callbacks. The cost of the guarantee is the classic one
/// of Combine's own downstream lock: a subscriber must not block waiting
/// for another thread that is sending to, or cancelling on, the same
/// subject.
///
/// ## Why the state sits behind a raw pointer
///
/// A re-entrant call runs while an outer frame of the same thread is in
/// the middle of a delivery, so the state cannot live inside the mutex
/// (whose closure holds exclusive access for its whole duration). It lives
/// in one allocation owned by the engine and is touched only by the thread
/// that holds the gate. Subscribers are kept as `Unmanaged` (retained on
/// insert, released after removal) so the per-value loop performs no
/// reference counting at all.
@usableFromInline
internal struct SubjectEngine<Output, Failure: Error>: ~Copyable {
    @usableFromInline
    internal struct Entry {
        @usableFromInline let conduit: Unmanaged<ConduitBase<Output, Failure>>
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var active = true
        /// The subscriber has not seen the latest value yet (subjects that
        /// replay one, i.e. `CurrentValueSubject`).
        @usableFromInline var owesLatest: Bool

        @inlinable
        init(conduit: Unmanaged<ConduitBase<Output, Failure>>, owesLatest: Bool) {
            self.conduit = conduit
            self.owesLatest = owesLatest
        }
    }

    @usableFromInline
    internal struct Storage {
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var entries = EntryList<Entry>()
        /// Nesting of deliveries on the gate's thread; entries are removed
        /// only at depth 0 so indices stay valid during a delivery loop.
        @usableFromInline var depth = 0
        @usableFromInline var needsCompaction = false
        @usableFromInline var upstreams = UpstreamList()
        /// `share()`'s current connection to its upstream, kept apart from
        /// `upstreams` as an object: registering, demanding from and
        /// removing it then copies no `any Subscription` existential (each
        /// copy or destroy is a value-witness call of some 100
        /// instructions, and a share's life made a dozen).
        @usableFromInline var connection: AnyObject?
        /// The value replayed to new or starved subscribers, if any.
        @usableFromInline var latest: Output?
        /// Whether upstream subscriptions (`publisher.subscribe(subject)`)
        /// have been asked for `.unlimited`: at once for a subject that
        /// requests eagerly (`CurrentValueSubject`), otherwise on the first
        /// demand of any subscriber (`PassthroughSubject`), as in Combine.
        @usableFromInline var upstreamDemanded = false

        @inlinable
        init(latest: Output?) {
            self.latest = latest
        }
    }

    /// The package's one re-entrant delivery gate (Concurrency/DownstreamGate).
    @usableFromInline let gate = DownstreamGate()
    @usableFromInline let storage: UnsafeMutablePointer<Storage>
    /// Frees `storage` when the engine dies (see ``SubjectEngineLifetime``).
    @usableFromInline let lifetime: SubjectEngineLifetime

    @inlinable
    init(latest: Output?) {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(to: Storage(latest: latest))
        self.storage = storage
        lifetime = SubjectEngineLifetime(storage: UnsafeMutableRawPointer(storage)) { raw in
            let storage = raw.assumingMemoryBound(to: Storage.self)
            storage.pointee.entries.forEach { Self.retire($0) }
            storage.deinitialize(count: 1)
            storage.deallocate()
        }
    }

    /// Runs `body` holding the gate; re-entrant for the thread holding it.
    @inlinable @inline(__always)
    internal func withGate<R>(_ body: (UnsafeMutablePointer<Storage>) -> R) -> R {
        // The storage is only ever touched under the gate.
        gate.withGate { _ in body(storage) }
    }

    // MARK: Values

    /// Offers `value` to every subscriber with demand, under the gate.
    /// `storesAfterCompletion`: the value is still stored once the subject
    /// has completed (`CurrentValueSubject.value`'s setter, as in Combine),
    /// though nothing is sent.
    @inlinable
    internal func send(_ value: Output, replaysLatest: Bool, storesAfterCompletion: Bool = false) {
        let released = withGate { s -> ContiguousArray<Entry>? in
            // Most subjects and shares have one subscriber that asked for
            // `.unlimited` (a sink): nothing to count and nothing owed, so
            // the value goes straight through (see ``sendToOnlySubscriber``).
            if let only = Self.onlyUnlimitedSubscriber(in: s) {
                return Self.sendToOnlySubscriber(value, only, in: s, replaysLatest: replaysLatest)
            }
            guard s.pointee.completion == nil else {
                if storesAfterCompletion { s.pointee.latest = value }
                return nil
            }
            if replaysLatest { s.pointee.latest = value }
            s.pointee.depth += 1
            // Subscribers added during this loop (re-entrantly) are past
            // `count`: a late subscriber sees only later values.
            let count = s.pointee.entries.count
            // The inline first entry, then the array, each reached
            // directly rather than through the list's subscript, which
            // tests the index on every read and write (about 10
            // instructions per subscriber per value).
            if count > 0 { Self.offer(value, at: 0, inline: true, in: s, replaysLatest: replaysLatest) }
            var i = 0
            while i < count &- 1 {
                Self.offer(value, at: i, inline: false, in: s, replaysLatest: replaysLatest)
                i &+= 1
            }
            s.pointee.depth -= 1
            return s.pointee.depth == 0 && s.pointee.needsCompaction ? Self.compact(s) : nil
        }
        if let released {
            for entry in released { Self.retire(entry) }
        }
    }

    /// The conduit of the subject's one subscriber when it is the only
    /// entry, active, with `.unlimited` demand and owed nothing, and the
    /// subject has not completed; nil otherwise (the general loop then
    /// runs). Under the gate.
    @inlinable @inline(__always)
    internal static func onlyUnlimitedSubscriber(
        in s: UnsafeMutablePointer<Storage>
    ) -> Unmanaged<ConduitBase<Output, Failure>>? {
        guard let head = s.pointee.entries.head,
              head.demand.isUnlimited, head.active, !head.owesLatest,
              s.pointee.entries.tail.isEmpty, s.pointee.completion == nil
        else { return nil }
        return head.conduit
    }

    /// The one-subscriber delivery: no demand to take (unlimited stays
    /// unlimited whatever the subscriber adds) and nothing to mark. The
    /// depth still counts, so a cancel from inside the delivery leaves the
    /// entry (and its conduit, which is running) in place until the end.
    /// Under the gate.
    @inlinable @inline(__always)
    internal static func sendToOnlySubscriber(
        _ value: Output, _ conduit: Unmanaged<ConduitBase<Output, Failure>>,
        in s: UnsafeMutablePointer<Storage>, replaysLatest: Bool
    ) -> ContiguousArray<Entry>? {
        if replaysLatest { s.pointee.latest = value }
        s.pointee.depth &+= 1
        _ = conduit._withUnsafeGuaranteedRef { $0.deliver($0, value) }
        s.pointee.depth &-= 1
        return s.pointee.depth == 0 && s.pointee.needsCompaction ? compact(s) : nil
    }

    /// Offers `value` to one entry: the inline one when `inline`, else
    /// the array's element `i`. `inline` is a constant at each call site,
    /// so its tests fold away. Under the gate.
    @inlinable @inline(__always)
    internal static func offer(_ value: Output, at i: Int, inline: Bool,
                               in s: UnsafeMutablePointer<Storage>, replaysLatest: Bool) {
        let entry = inline ? s.pointee.entries.head.unsafelyUnwrapped : s.pointee.entries.tail[i]
        guard entry.active else { return }
        if entry.demand.rawValue == 0 {
            if replaysLatest { update(i, inline: inline, in: s) { $0.owesLatest = true } }
            return
        }
        // Only write what changes: each write to the array costs a
        // uniqueness check. Demand is taken before the delivery, which may
        // re-enter and request more.
        if !entry.demand.isUnlimited || entry.owesLatest {
            update(i, inline: inline, in: s) {
                if !entry.demand.isUnlimited { $0.demand = Subscribers.Demand(rawValue: entry.demand.rawValue - 1) }
                $0.owesLatest = false
            }
        }
        let more = entry.conduit._withUnsafeGuaranteedRef { $0.deliver($0, value) }
        if more.rawValue > 0 { update(i, inline: inline, in: s) { $0.demand += more } }
    }

    /// Changes one entry in place (see ``offer(_:at:inline:in:replaysLatest:)``).
    @inlinable @inline(__always)
    internal static func update(_ i: Int, inline: Bool, in s: UnsafeMutablePointer<Storage>,
                                _ body: (inout Entry) -> Void) {
        if inline {
            body(&s.pointee.entries.head!)
        } else {
            body(&s.pointee.entries.tail[i])
        }
    }

    /// Removes inactive entries; returns them for `retire` after the gate.
    @inlinable
    internal static func compact(_ s: UnsafeMutablePointer<Storage>) -> ContiguousArray<Entry> {
        var removed = ContiguousArray<Entry>()
        s.pointee.entries.removeAll { entry in
            if entry.active { return false }
            removed.append(entry)
            return true
        }
        s.pointee.needsCompaction = false
        return removed
    }

    /// Lets go of a removed entry's conduit: the conduit drops its
    /// subscriber and its subject (as Combine's do once finished or
    /// cancelled, so a subscriber that keeps its subscription does not keep
    /// the pipeline alive), then the list's hold on it is released. Outside
    /// the gate (deinitialisers may run).
    @inlinable
    internal static func retire(_ entry: Entry) {
        entry.conduit._withUnsafeGuaranteedRef { $0.dropLinks(lastDemand: entry.demand) }
        entry.conduit.release()
    }

    // MARK: Completion and upstreams

    /// Delivers the completion once to every subscriber and empties the
    /// list; later sends are ignored.
    @inlinable
    internal func send(completion: Subscribers.Completion<Failure>) {
        var finished = EntryList<Entry>()
        var upstreams = UpstreamList()
        var connection: AnyObject?
        withGate { s in
            guard s.pointee.completion == nil else { return }
            s.pointee.completion = completion
            // Released (not cancelled) outside the gate, as in Combine.
            swap(&upstreams, &s.pointee.upstreams)
            swap(&connection, &s.pointee.connection)
            finished = Self.deactivateAll(s, finishing: completion)
        }
        finished.forEach { Self.retire($0) }
        _ = upstreams
        _ = connection
    }

    /// Detaches every subscriber without a completion (a timer's
    /// connection cancelled, as Foundation's timer publisher does): they
    /// get nothing more, their later requests and cancels do nothing, and
    /// the engine stays open for new subscribers.
    @inlinable
    internal func detachAll() {
        let detached = withGate { s in Self.deactivateAll(s, finishing: nil) }
        detached.forEach { Self.retire($0) }
    }

    /// Deactivates every entry, finishing each active one with `completion`
    /// when one is given; returns the conduits to release outside the gate
    /// (none when a delivery loop is running: its end compacts them).
    /// Under the gate.
    @inlinable
    internal static func deactivateAll(
        _ s: UnsafeMutablePointer<Storage>, finishing completion: Subscribers.Completion<Failure>?
    ) -> EntryList<Entry> {
        s.pointee.depth += 1
        var i = 0
        while i < s.pointee.entries.count {
            let entry = s.pointee.entries[i]
            if entry.active {
                s.pointee.entries[i].active = false
                if let completion { entry.conduit._withUnsafeGuaranteedRef { $0.finish(completion) } }
            }
            i += 1
        }
        s.pointee.depth -= 1
        guard s.pointee.depth == 0 else {
            s.pointee.needsCompaction = true
            return EntryList()
        }
        let all = s.pointee.entries
        s.pointee.entries = EntryList()
        s.pointee.needsCompaction = false
        return all
    }

    /// Attaches `subscriber` through a new conduit, or hands it only the
    /// completion if the subject is done (what both subjects'
    /// `receive(subscriber:)` do).
    @inlinable
    internal func subscribe<S: Subscriber, Parent: ConduitParent>(
        _ subscriber: S, parent: Parent, name: StaticString, replaysLatest: Bool,
        namesSubscriptionAfterCompletion: Bool = false
    ) where S.Input == Output, S.Failure == Failure, Parent.Output == Output, Parent.Failure == Failure {
        let conduit: ConduitBase<Output, Failure>
        // Our own sink, the subscriber almost every subject and share
        // has, is kept as itself: no holder allocation, and still no
        // reference counting per value, since its class type is named
        // here (see DownstreamSlot for why other class subscribers keep
        // the holder). The test folds away in specialised code.
        if S.self == Subscribers.Sink<Output, Failure>.self {
            conduit = SubjectConduit(parent: parent,
                                     object: _identityCast(subscriber, to: Subscribers.Sink<Output, Failure>.self),
                                     name: name)
        } else {
            conduit = SubjectConduit(parent: parent, downstream: subscriber, name: name)
        }
        if let completion = attach(conduit, replaysLatest: replaysLatest) {
            if namesSubscriptionAfterCompletion {
                // `share()`: Combine's late subscriber still sees its
                // `Multicast` subscription, then the completion; the
                // conduit then lets the subscriber go.
                subscriber.receive(subscription: conduit)
                conduit.finish(completion)
                conduit.dropLinks(lastDemand: .none)
            } else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: completion)
            }
        } else {
            subscriber.receive(subscription: conduit)
        }
    }

    /// Takes an upstream subscription (`publisher.subscribe(subject)`) and
    /// requests `.unlimited` from it when the subject requests eagerly or
    /// one of its subscribers has asked for something (see
    /// `Storage.upstreamDemanded`); cancels it once the subject is done.
    // Inlinable so it runs specialised: generic, it looked up the storage's
    // type metadata at run time on every subscription to `share()`.
    @inlinable
    internal func receive(upstream: any Subscription, eager: Bool) {
        let verdict = withGate { s -> Int in
            guard s.pointee.completion == nil else { return -1 }
            s.pointee.upstreams.append(upstream)
            if eager { s.pointee.upstreamDemanded = true }
            return s.pointee.upstreamDemanded ? 1 : 0
        }
        if verdict > 0 {
            upstream.request(.unlimited)
        } else if verdict < 0 {
            upstream.cancel()
        }
    }

    /// Registers `share()`'s new connection as the engine's upstream.
    /// Returns whether the connection must request `.unlimited` now (a
    /// subscriber has already asked for something), or nil when the
    /// engine has completed and the connection must be cancelled.
    @inlinable
    internal func receive(connection: AnyObject) -> Bool? {
        let (verdict, replaced) = withGate { s -> (Bool?, AnyObject?) in
            guard s.pointee.completion == nil else { return (nil, nil) }
            var replaced: AnyObject? = connection
            swap(&replaced, &s.pointee.connection)
            return (s.pointee.upstreamDemanded, replaced)
        }
        // Released outside the gate (a replaced connection was cancelled
        // by the share already).
        _ = replaced
        return verdict
    }

    /// Forgets `connection` if it is the registered one (not cancelled
    /// here).
    @inlinable
    internal func remove(connection: AnyObject) {
        let removed = withGate { s -> AnyObject? in
            guard s.pointee.connection === connection else { return nil }
            var taken: AnyObject?
            swap(&taken, &s.pointee.connection)
            return taken
        }
        // Released outside the gate: a deinitialiser may run.
        _ = removed
    }

    /// The upstream subscriptions, for cancelling them when the subject dies.
    @usableFromInline
    internal func takeUpstreams() -> UpstreamList {
        withGate { s in
            let all = s.pointee.upstreams
            s.pointee.upstreams = UpstreamList()
            return all
        }
    }

    // MARK: Subscribers

    /// Adds `conduit`, or returns the completion if the subject is done.
    @inlinable
    internal func attach(_ conduit: ConduitBase<Output, Failure>, replaysLatest: Bool) -> Subscribers.Completion<Failure>? {
        withGate { s in
            if let completion = s.pointee.completion { return completion }
            s.pointee.entries.append(Entry(conduit: Unmanaged.passRetained(conduit), owesLatest: replaysLatest))
            return nil
        }
    }

    /// Adds demand for `conduit`; delivers the latest value first when the
    /// subscriber is owed it (`.none` never gets here: the conduit traps on
    /// it, as Combine's does; it would change nothing). The first demand of any subscriber asks the upstream
    /// subscriptions for `.unlimited`.
    /// Where `conduit` is in the list. A plain loop: the standard
    /// library's `firstIndex(where:)` is not specialised here and boxed
    /// each element it looked at (two allocations per subscription's
    /// request and cancel).
    @inlinable
    internal static func index(of conduit: ConduitBase<Output, Failure>, in s: UnsafeMutablePointer<Storage>) -> Int? {
        let target = Unmanaged.passUnretained(conduit).toOpaque()
        let count = s.pointee.entries.count
        var i = 0
        while i < count {
            if s.pointee.entries[i].conduit.toOpaque() == target { return i }
            i &+= 1
        }
        return nil
    }

    /// Returns the share's connection when this was the first demand and
    /// one is registered: the caller requests `.unlimited` from it.
    @inlinable @discardableResult
    internal func request(_ demand: Subscribers.Demand, for conduit: ConduitBase<Output, Failure>) -> AnyObject? {
        guard demand.rawValue > 0 else { return nil }
        var upstreams = UpstreamList()
        var connection: AnyObject?
        var released: ContiguousArray<Entry>?
        withGate { s in
            guard let i = Self.index(of: conduit, in: s),
                  s.pointee.entries[i].active
            else { return }
            if !s.pointee.upstreamDemanded {
                s.pointee.upstreamDemanded = true
                // Copied only when there is something to copy: even an
                // empty list's copy is a value-witness call.
                if s.pointee.upstreams.count > 0 { upstreams = s.pointee.upstreams }
                connection = s.pointee.connection
            }
            s.pointee.entries[i].demand += demand
            guard s.pointee.entries[i].owesLatest, let latest = s.pointee.latest else { return }
            s.pointee.entries[i].owesLatest = false
            s.pointee.entries[i].demand -= 1
            s.pointee.depth += 1
            let more = conduit.deliver(conduit, latest)
            s.pointee.depth -= 1
            // The list may have changed during the delivery: find it again.
            if more.rawValue > 0,
               let j = Self.index(of: conduit, in: s),
               s.pointee.entries[j].active {
                s.pointee.entries[j].demand += more
            }
            if s.pointee.depth == 0 && s.pointee.needsCompaction { released = Self.compact(s) }
        }
        if let released {
            for entry in released { Self.retire(entry) }
        }
        upstreams.forEach { $0.request(.unlimited) }
        return connection
    }

    /// The demand `conduit` has now, or nil when it is not attached.
    @usableFromInline
    internal func demand(of conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand? {
        withGate { s in
            Self.index(of: conduit, in: s).flatMap { s.pointee.entries[$0].active ? s.pointee.entries[$0].demand : nil }
        }
    }

    /// Removes `conduit`; waits for a value in flight on another thread.
    /// Returns whether this call removed it (false when it had already
    /// gone: cancelled before, or finished), which a parent counting its
    /// subscribers (`share()`) needs to count each one out once.
    @inlinable @discardableResult
    internal func cancel(_ conduit: ConduitBase<Output, Failure>) -> Bool {
        // At most one entry goes: an optional, not an array, so a cancel
        // allocates nothing.
        var released: Entry?
        let removed = withGate { s -> Bool in
            guard let i = Self.index(of: conduit, in: s),
                  s.pointee.entries[i].active
            else { return false }
            s.pointee.entries[i].active = false
            if s.pointee.depth == 0 {
                released = s.pointee.entries.remove(at: i)
            } else {
                s.pointee.needsCompaction = true
            }
            return true
        }
        if let released { Self.retire(released) }
        return removed
    }

    /// The latest value, for `CurrentValueSubject.value`.
    @usableFromInline
    internal var latest: Output? {
        withGate { $0.pointee.latest }
    }

    /// How many subscribers are attached (for tests and descriptions).
    @usableFromInline
    internal var subscriberCount: Int {
        withGate { s in
            var count = 0
            s.pointee.entries.forEach { if $0.active { count += 1 } }
            return count
        }
    }
}
