import CLibUV
import Synchronization
import UVCombineCore

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
        /// A Swift concurrency job (`UVLoop.enqueue(_:)`) and the context
        /// to run it in: the job's own storage, no allocation of ours.
        case swiftJob(UnownedJob, SwiftJobContext)

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
    /// Only the first job after a drain signals the eventfd; later ones
    /// find the loop already woken (or about to be). The decision is taken
    /// under the lock, the write happens after it: the woken loop thread
    /// then never waits for the lock of a sender preempted right after its
    /// write.
    ///
    /// Why the write outside the lock cannot race `close()`: the eventfd is
    /// closed only in `UVLoop.deinit` (`UVLoop.Wakeup`), and this method
    /// runs on a `UVLoop` its caller holds a reference to, so the fd is
    /// open until the write returned, whatever `close()` did meanwhile. A
    /// write after `close()` closed the poll handle only bumps a counter
    /// nobody reads. No wake-up is lost either: the job is in the inbox
    /// before the write, and the loop empties the counter before it drains,
    /// so a write it did not see leaves the fd readable for its next poll.
    ///
    /// On the loop thread the first job arms an idle handle instead of
    /// writing to the eventfd: no system call, and an active idle handle
    /// makes the next poll return at once.
    internal func post(_ job: Job) {
        let onLoop = isInLoop
        let result = inbox.withLock { inbox -> (accepted: Bool, first: Bool) in
            guard !inbox.isClosed else { return (false, false) }
            inbox.jobs.append(job)
            return (true, inbox.jobs.count == 1)
        }
        guard result.accepted else {
            if case .swiftJob = job {
                violation("UVLoop.enqueue(_:): the loop is closed; a job enqueued now could never run (close the loop only after the tasks that use it as their executor ended)")
            }
            return
        }
        guard onLoop else {
            if result.first { wakeup.signal() }
            return
        }
        if result.first { armIdleWakeup() }
        // Work the loop thread queues for itself keeps the loop alive until
        // it ran, also on a host's loop that we do not run ourselves.
        if !isWakeupRefForQueue {
            isWakeupRefForQueue = true
            uv_ref(UVLoop.handle(wakeup.poll))
        }
    }

    /// Starts the idle handle that drains the inbox in the next iteration
    /// (created on first use). Loop thread.
    private func armIdleWakeup() {
        guard !isClosed, !isIdleActive else { return }
        let idle: UnsafeMutablePointer<uv_idle_t>
        if let existing = idleWakeup {
            idle = existing
        } else {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_idle_t>.size,
                                                       alignment: MemoryLayout<uv_idle_t>.alignment)
            idle = raw.bindMemory(to: uv_idle_t.self, capacity: 1)
            guard uv_idle_init(uvLoop, idle) == 0 else {
                raw.deallocate()
                wakeup.signal() // cannot fail on an open loop; fall back to the eventfd
                return
            }
            // Retained until the idle handle's close callback (in close()).
            idle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            idleWakeup = idle
        }
        isIdleActive = true
        uv_idle_start(idle) { handle in
            guard let handle else { return }
            Unmanaged<UVLoop>.fromOpaque(handle.pointee.data).takeUnretainedValue().drainInbox()
        }
    }

    /// Stops the idle wake-up; `drainInbox` calls it first, and jobs queued
    /// while draining arm it again. Loop thread.
    private func disarmIdleWakeup() {
        guard isIdleActive, let idle = idleWakeup else { return }
        isIdleActive = false
        uv_idle_stop(idle)
    }

    /// Closes the idle wake-up handle, if one was created. Loop thread,
    /// from `close()`.
    internal func closeIdleWakeup() {
        guard let idle = idleWakeup else { return }
        idleWakeup = nil
        isIdleActive = false
        isIdleClosing = true
        uv_close(UVLoop.handle(idle)) { handle in
            guard let handle else { return }
            let loop = Unmanaged<UVLoop>.fromOpaque(handle.pointee.data).takeRetainedValue()
            loop.isIdleClosing = false
            UnsafeMutableRawPointer(handle).deallocate()
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
        disarmIdleWakeup()
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
        case .swiftJob(let job, let context):
            // Runs even after close() began (close() runs the jobs still
            // queued): a Swift job must run, or its task leaks.
            runSwiftJob(job, context)
        }
    }
}
