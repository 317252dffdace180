/// The pure state machine behind operators that deliver on a scheduler
/// (`receive(on:)`, `timeout`): pending values in a ring, the completion
/// after them, and the bookkeeping that lets one scheduled drain deliver a
/// whole batch. The owner keeps it inside its mutex, calls these methods
/// under the lock and performs the returned step after releasing it.
///
/// A *batch* is what is pending when a drain starts. The first value that
/// arrives while no drain is pending asks the owner to schedule one
/// (``enqueue(_:owner:)`` returns `true`); later values join the ring
/// without scheduling anything. A drain delivers its batch, then, if more
/// arrived meanwhile, yields: the owner schedules a follow-up drain and the
/// scheduler's other work gets its turn (fairness on a loop thread).
///
/// Re-entrancy: a scheduler that runs actions synchronously
/// (`ImmediateScheduler`) would run the follow-up inside `schedule`, one
/// stack frame deeper per batch. Instead, a drain that starts while another
/// one runs only records `rerun`; the running drain sees it after
/// `schedule` returns and continues in its own loop. The same rule makes a
/// follow-up that a concurrent queue starts early harmless: exactly one
/// drain delivers at any time, so order is kept.
///
/// The owner object is held (`keepAlive`) from the moment a drain is
/// requested until the queue is idle or closed, so pending values are
/// delivered even when nothing else retains the owner; the drain closure
/// itself captures the owner weakly, so no cycle outlives the work.
@usableFromInline
internal struct DeliveryQueue<Output, Failure: Error> {
    @usableFromInline internal var values = RingBuffer<Output>()
    @usableFromInline internal var completion: Subscribers.Completion<Failure>?
    /// A drain is scheduled or running.
    @usableFromInline internal var drainRequested = false
    /// A drain is running on some thread.
    @usableFromInline internal var draining = false
    /// A drain started while another was running.
    @usableFromInline internal var rerun = false
    /// Cancelled or completed: nothing more is delivered.
    @usableFromInline internal var closed = false
    @usableFromInline internal var keepAlive: AnyObject?

    /// What the drain does next, decided under the owner's lock.
    @usableFromInline
    internal enum Step {
        case value(Output)
        /// Deliver the completion; the queue is closed. Release `keepAlive`
        /// outside the lock.
        case completion(Subscribers.Completion<Failure>, keepAlive: AnyObject?)
        /// The batch is delivered but more is pending: schedule a follow-up.
        case yield
        /// Nothing pending; the drain ends. Release `keepAlive` outside the lock.
        case idle(keepAlive: AnyObject?)
    }

    @inlinable
    internal init() {}

    /// Whether a completion is waiting or the queue has closed.
    @inlinable
    internal var isTerminating: Bool { closed || completion != nil }

    /// Queues `value`. Returns `true` when the owner must schedule a drain.
    @inlinable
    internal mutating func enqueue(_ value: Output, owner: AnyObject) -> Bool {
        guard !closed else { return false }
        values.append(value)
        return requestDrain(owner: owner)
    }

    /// Queues the completion after the pending values. Returns `true` when
    /// the owner must schedule a drain.
    @inlinable
    internal mutating func enqueue(completion: Subscribers.Completion<Failure>, owner: AnyObject) -> Bool {
        guard !closed, self.completion == nil else { return false }
        self.completion = completion
        return requestDrain(owner: owner)
    }

    @inlinable
    internal mutating func requestDrain(owner: AnyObject) -> Bool {
        if drainRequested { return false }
        drainRequested = true
        keepAlive = owner
        return true
    }

    /// Starts a drain. Returns its budget (the batch size), or `nil` when
    /// another drain is running (which will continue instead) or the queue
    /// is closed.
    @inlinable
    internal mutating func beginDrain() -> Int? {
        if draining {
            rerun = true
            return nil
        }
        if closed { return nil }
        draining = true
        rerun = false
        return values.count + (completion == nil ? 0 : 1)
    }

    /// The next step of a running drain.
    @inlinable
    internal mutating func next(budget: inout Int) -> Step {
        if closed { return finishDrain() }
        if budget <= 0 {
            if !values.isEmpty || completion != nil { return .yield }
            return finishDrain()
        }
        budget -= 1
        if let value = values.popFirst() { return .value(value) }
        if let completion {
            self.completion = nil
            closed = true
            draining = false
            drainRequested = false
            let owner = keepAlive
            keepAlive = nil
            return .completion(completion, keepAlive: owner)
        }
        return finishDrain()
    }

    @inlinable
    internal mutating func finishDrain() -> Step {
        draining = false
        drainRequested = false
        let owner = keepAlive
        keepAlive = nil
        return .idle(keepAlive: owner)
    }

    /// What a drain does after scheduling the follow-up of a `.yield`.
    @usableFromInline
    internal enum AfterYield {
        /// The follow-up already ran and deferred to this drain: go on with
        /// this budget.
        case resume(budget: Int)
        /// Stop; the follow-up drains later. Release `keepAlive` (set only
        /// when the queue closed meanwhile) outside the lock.
        case stop(keepAlive: AnyObject?)
    }

    /// Called after scheduling the follow-up of a `.yield`.
    @inlinable
    internal mutating func afterYield() -> AfterYield {
        if closed {
            guard case .idle(let owner) = finishDrain() else { return .stop(keepAlive: nil) }
            return .stop(keepAlive: owner)
        }
        if rerun {
            rerun = false
            return .resume(budget: values.count + (completion == nil ? 0 : 1))
        }
        draining = false
        return .stop(keepAlive: nil)
    }

    /// Drops everything pending and stops delivery. Returns the owner to
    /// release outside the lock.
    @inlinable
    internal mutating func close() -> AnyObject? {
        closed = true
        values.removeAll(keepingCapacity: false)
        completion = nil
        if draining { return nil } // the running drain releases it
        drainRequested = false
        let owner = keepAlive
        keepAlive = nil
        return owner
    }
}
