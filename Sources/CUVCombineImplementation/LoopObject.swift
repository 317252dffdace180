import CLibUV
import CUVCombine
import Synchronization
import UVCombineCore
import UVCombineLoop

/// The object behind a `uvc_loop_t *`: a ``UVLoop`` plus what the C API
/// adds to it: the loop's phase (so that every call after a detach or close
/// answers `UV_ECANCELED` instead of trapping), the claims that keep
/// `uvc_loop_run` and `uvc_loop_close` from overlapping, and the detach
/// completion.
///
/// Phases: a created loop goes `active → closing → closed` (`closing`
/// stays while `uv_loop_close` reports the host's handles); an adopted one
/// `active → detaching → detached` (`detached` once every close callback of
/// our handles ran).
///
/// Threading: the phase sits in a mutex; `busy` and `home` are atomic; the
/// detach callback fields are touched only on the loop thread.
internal final class LoopObject: OpaqueObject, @unchecked Sendable {
    internal enum Kind {
        /// `uvc_loop_new`: our `uv_loop_t`, run with `uvc_loop_run`.
        case created
        /// `uvc_loop_adopt`: the host's, run by the host.
        case adopted
    }

    internal enum Phase: Sendable {
        /// Accepts new work.
        case active
        /// Created: `uvc_loop_close` began (or answered `UV_EBUSY`).
        case closing
        /// Created: `uv_loop_close` returned 0.
        case closed
        /// Adopted: `uvc_loop_detach` closed our handles; their close
        /// callbacks have not all run yet.
        case detaching
        /// Adopted: every close callback ran; the detach callback was called.
        case detached
    }

    internal let loop: UVLoop
    internal let kind: Kind
    private let phase = Mutex(Phase.active)
    /// Created loops: held by `run` and `close`, so that neither starts
    /// while the other (or a second `run`) is under way, on any thread.
    private let busy = Atomic<Bool>(false)
    /// Created loops: the thread that last ran or closed the loop, 0 if
    /// none did (UVLoop traps on a close from another thread).
    private let home = Atomic<UInt>(0)
    /// Fetches whose callback has not run, by identity, and the number the
    /// next one gets: a detach or close ends each with `UV_ECANCELED`, in
    /// the order they were made. Also the shared fetches started and not
    /// completed, which it holds (their C handle may be freed) and ends.
    /// Entries are added only inside the phase lock (``whileActive(_:)``),
    /// so a detach or close that took the registry after changing the
    /// phase sees everything it must end.
    private let pendingFetches = Locked(PendingFetches())

    private struct PendingFetches {
        var fetches: [ObjectIdentifier: FetchObject] = [:]
        var nextSequence = 0
        var shared: [ObjectIdentifier: SharedFetchObject] = [:]
    }

    // MARK: Loop thread only

    private var detachCallback: uvc_detach_cb?
    private var detachUserData: UnsafeMutableRawPointer?

    internal init(loop: UVLoop, kind: Kind) {
        self.loop = loop
        self.kind = kind
    }

    /// Whether new work is accepted (the loop is neither detached nor
    /// closed). Any thread.
    internal var isActive: Bool {
        phase.withLock { $0 == .active }
    }

    /// Runs `body` if the loop accepts new work, holding the phase lock so
    /// that a detach or close cannot begin meanwhile: whatever `body` queues
    /// is then either run or cancelled by it, never lost. Returns 0, or
    /// `UV_ECANCELED` without running `body`. Any thread; `body` must not
    /// call C code.
    internal func whileActive(_ body: () -> Void) -> Int32 {
        phase.withLock { phase -> Int32 in
            guard phase == .active else { return Status.cancelled }
            body()
            return Status.ok
        }
    }

    // MARK: Fetches

    /// Records a fetch until its callback runs or it is cancelled. Inside
    /// ``whileActive(_:)`` only.
    internal func register(_ fetch: FetchObject) {
        pendingFetches.withLock { pending in
            fetch.sequence = pending.nextSequence
            pending.nextSequence += 1
            pending.fetches[ObjectIdentifier(fetch)] = fetch
        }
    }

    /// Forgets a fetch that completed or was cancelled. Any thread.
    internal func unregister(_ fetch: FetchObject) {
        _ = pendingFetches.withLock { $0.fetches.removeValue(forKey: ObjectIdentifier(fetch)) }
    }

    /// Holds a started shared fetch until it completed or was cancelled.
    /// Inside ``whileActive(_:)`` only.
    internal func register(shared: SharedFetchObject) {
        pendingFetches.withLock { $0.shared[ObjectIdentifier(shared)] = shared }
    }

    /// Lets go of a shared fetch that completed or was cancelled. Any thread.
    internal func unregister(shared: SharedFetchObject) {
        let released = pendingFetches.withLock { $0.shared.removeValue(forKey: ObjectIdentifier(shared)) }
        // Released outside the lock: this may be the last reference.
        _ = released
    }

    /// The detach or close: every fetch still pending gets its callback
    /// with `UV_ECANCELED`, in the order they were made, and its request is
    /// cancelled. After the phase left `active`. Loop thread (or the
    /// thread closing a created loop).
    private func endPendingFetches(_ reason: String) {
        let (fetches, shared) = pendingFetches.withLock { pending -> ([FetchObject], [SharedFetchObject]) in
            defer {
                pending.fetches = [:]
                pending.shared = [:]
            }
            return (pending.fetches.values.sorted { $0.sequence < $1.sequence },
                    Array(pending.shared.values))
        }
        for fetch in fetches { fetch.end(message: reason) }
        for object in shared { object.loopEnded() }
    }

    // MARK: Created loops

    /// `uvc_loop_run`.
    internal func run(_ mode: uv_run_mode) -> Int32 {
        guard kind == .created else { return Status.invalid }
        let runMode: UVLoop.RunMode
        switch mode {
        case UV_RUN_DEFAULT: runMode = .default
        case UV_RUN_ONCE: runMode = .once
        case UV_RUN_NOWAIT: runMode = .noWait
        default: return Status.invalid
        }
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return Status.busy
        }
        defer { busy.store(false, ordering: .releasing) }
        guard isActive else { return Status.cancelled }
        home.store(currentThreadIdentity(), ordering: .releasing)
        return loop.run(runMode) ? 1 : 0
    }

    /// `uvc_loop_stop`.
    internal func stop() -> Int32 {
        guard kind == .created else { return Status.invalid }
        return whileActive { loop.stop() }
    }

    /// `uvc_loop_close`: closes synchronously; the pending callbacks get
    /// `UV_ECANCELED` from inside `UVLoop.close()`.
    internal func close() -> Int32 {
        guard kind == .created else { return Status.invalid }
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return Status.busy
        }
        defer { busy.store(false, ordering: .releasing) }
        let me = currentThreadIdentity()
        let lastThread = home.load(ordering: .acquiring)
        if lastThread != 0 && lastThread != me { return Status.wrongThread }
        // As UVLoop.close() does: a retry after UV_EBUSY comes from here too.
        home.store(me, ordering: .releasing)
        let refusal = phase.withLock { phase -> Int32? in
            switch phase {
            case .active, .closing:
                phase = .closing
                return nil
            case .closed:
                return Status.already
            case .detaching, .detached:
                return Status.invalid
            }
        }
        if let refusal { return refusal }
        endPendingFetches("the loop was closed")
        do {
            try loop.close()
        } catch {
            return error.code
        }
        phase.withLock { $0 = .closed }
        return Status.ok
    }

    // MARK: Adopted loops

    /// `uvc_loop_detach`: closes our handles now; `callback` runs once
    /// their close callbacks ran, in a later iteration of the host's loop.
    internal func detach(_ callback: uvc_detach_cb?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        guard kind == .adopted else { return Status.invalid }
        guard loop.isInLoop else { return Status.wrongThread }
        let started = phase.withLock { phase -> Bool in
            guard phase == .active else { return false }
            phase = .detaching
            return true
        }
        guard started else { return Status.already }
        detachCallback = callback
        detachUserData = userData
        endPendingFetches("the loop was detached")
        // Adopted: closes our handles (the pending work is cancelled here)
        // and returns at once; it never throws for an adopted loop.
        try? loop.close()
        watchDetach()
        return Status.ok
    }

    /// Closes a handle of our own after the loop's handles: its close
    /// callback runs in the same close phase of the host's iteration as
    /// theirs, or a later one. There it checks whether every handle of the
    /// loop is closed and closes itself again (one more iteration) until
    /// they are. Loop thread.
    private func watchDetach() {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_timer_t>.size,
                                                   alignment: MemoryLayout<uv_timer_t>.alignment)
        let sentinel = raw.bindMemory(to: uv_timer_t.self, capacity: 1)
        _ = uv_timer_init(loop.uvLoop, sentinel) // always 0
        sentinel.pointee.data = Unmanaged.passRetained(self).toOpaque()
        uv_close(UnsafeMutableRawPointer(sentinel).assumingMemoryBound(to: uv_handle_t.self),
                 detachSentinelClosed)
    }

    /// The sentinel's close callback. Loop thread.
    fileprivate static func sentinelClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
        let retained = Unmanaged<LoopObject>.fromOpaque(handle.pointee.data)
        let object = retained.takeUnretainedValue()
        if object.loop.hasOpenHandles {
            let sentinel = UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_timer_t.self)
            _ = uv_timer_init(object.loop.uvLoop, sentinel)
            sentinel.pointee.data = retained.toOpaque()
            uv_close(handle, detachSentinelClosed)
            return
        }
        UnsafeMutableRawPointer(handle).deallocate()
        object.finishDetach()
        retained.release()
    }

    private func finishDetach() {
        phase.withLock { $0 = .detached }
        let callback = detachCallback
        let userData = detachUserData
        detachCallback = nil
        detachUserData = nil
        callback?(pointer, userData)
    }

    // MARK: Freeing

    /// Whether `uvc_loop_free` may release the C side's reference: 0, or
    /// `UV_EBUSY` while the loop is not closed or detached yet.
    internal func checkFreeable() -> Int32 {
        phase.withLock { phase -> Int32 in
            switch phase {
            case .closed, .detached: return Status.ok
            case .active, .closing, .detaching: return Status.busy
            }
        }
    }
}

/// A C function pointer for `uv_close` (a closure that captures nothing).
private let detachSentinelClosed: uv_close_cb = { handle in
    guard let handle else { return }
    LoopObject.sentinelClosed(handle)
}
