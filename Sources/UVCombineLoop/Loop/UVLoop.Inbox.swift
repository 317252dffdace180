import CLibUV
import Synchronization

extension UVLoop {
    /// One piece of work for the loop thread.
    ///
    /// `@unchecked Sendable` because `Scheduler.schedule` takes a plain
    /// `@escaping () -> Void` and the handle owners are loop-confined
    /// classes: a job is created on one thread, moved into the inbox under
    /// its mutex, and run or released only on the loop thread after being
    /// taken out under the same mutex. No job is ever touched by two threads
    /// at once. This is the one place the loop hops a non-Sendable value
    /// across threads.
    internal enum Job: @unchecked Sendable {
        /// Run a scheduled action.
        case action(() -> Void)
        /// Open and arm a handle.
        case open(UVHandleOwner)
        /// Close a handle.
        case close(UVHandleOwner)
        /// `uv_stop`, from another thread.
        case stop
        /// Ref or unref the wake-up handle to match the keep-alive count.
        case syncKeepAlive

        /// The loop closed before this job ran.
        func abandon() {
            if case .open(let owner) = self { owner.abandon() }
        }
    }

    /// The cross-thread queue: multi-producer, drained whole by the loop.
    internal struct Inbox: Sendable {
        var jobs: ContiguousArray<Job> = []
        /// Set by `close()`: jobs are discarded from then on.
        var isClosed = false
    }

    /// Queues `job` for the loop thread and wakes the loop. Any thread.
    ///
    /// Only the first job after a drain sends the wake-up (libuv coalesces
    /// sends anyway; this also skips the atomic). The send happens under
    /// the lock so that it can never race `close()` closing the handle.
    internal func post(_ job: Job) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.isClosed else { return false }
            inbox.jobs.append(job)
            if inbox.jobs.count == 1 {
                _ = uv_async_send(wakeup)
            }
            return true
        }
        // Work the loop thread queues for itself keeps the loop alive until
        // it ran, also on a host's loop that we do not run ourselves.
        if accepted && isInLoop && !isWakeupRefForQueue {
            isWakeupRefForQueue = true
            uv_ref(UVLoop.handle(wakeup))
        }
    }

    /// Performs `job` at once when the calling thread is the loop's thread
    /// and nothing queued earlier is waiting (so order is kept); queues it
    /// otherwise. Any thread.
    internal func submitOrdered(_ job: Job) {
        if isInLoop && !isDraining && !isClosed {
            let queueIsEmpty = inbox.withLock { $0.jobs.isEmpty }
            if queueIsEmpty {
                perform(job)
                return
            }
        }
        post(job)
    }

    /// Performs `job` at once on the loop's thread, queues it otherwise.
    /// For jobs whose order does not matter (closing, keep-alive).
    internal func submitUnordered(_ job: Job) {
        if isInLoop {
            perform(job)
        } else {
            post(job)
        }
    }

    /// Runs everything queued, in order; returns how many jobs ran. Loop
    /// thread. Allocates nothing in steady state: two buffers take turns
    /// (the inbox fills one while this drains the other).
    @discardableResult
    internal func drainInbox() -> Int {
        var batch = ContiguousArray<Job>()
        swap(&batch, &spare)
        inbox.withLock { swap(&$0.jobs, &batch) }
        let count = batch.count
        // Jobs the loop thread queues from here on take the ref again.
        let hadQueueRef = isWakeupRefForQueue
        isWakeupRefForQueue = false
        if count > 0 {
            isDraining = true
            for index in 0..<count { perform(batch[index]) }
            isDraining = false
            // Released here, outside the lock: the closures' captures may
            // run deinit code that schedules more work.
            batch.removeAll(keepingCapacity: true)
        }
        spare = batch
        if hadQueueRef { syncKeepAlive() }
        return count
    }

    /// Loop thread.
    internal func perform(_ job: Job) {
        switch job {
        case .action(let body):
            if !isClosed { body() }
        case .open(let owner):
            if isClosed { owner.abandon() } else { owner.open() }
        case .close(let owner):
            owner.closeHandle()
        case .stop:
            performStop()
        case .syncKeepAlive:
            syncKeepAlive()
        }
    }
}
