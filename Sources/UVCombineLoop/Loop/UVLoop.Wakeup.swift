import CLibUV
import UVCombineCore
import Glibc

extension UVLoop {
    /// The loop's cross-thread wake-up: an eventfd of ours, watched by a
    /// `uv_poll_t` (readable) on the loop. Another thread that queues the
    /// first job since the last drain adds 1 to the counter; the poll
    /// callback empties the counter and drains the inbox. Linux only (the
    /// project's target); the eventfd comes from the CLibUV shim.
    ///
    /// Why not `uv_async_t`: libuv 1.44's `uv_async_send` marks the handle
    /// pending, writes to the loop's eventfd, then marks it done, and the
    /// woken loop thread spins (`pause`, then `sched_yield`) until the
    /// sender reached that second mark. On a busy machine the sender is
    /// preempted right after its write, and the loop thread burns its time
    /// slice waiting for it: a cross-thread round trip of actor jobs took
    /// ~110 µs, a third of it in that spin (docs/benchmarks.md, "Jobs that
    /// cross threads"). An eventfd has no second step: once the write
    /// returned, the loop can run, and the sender owes it nothing.
    ///
    /// The eventfd stays open for the `UVLoop` object's whole life: it is
    /// closed in `UVLoop.deinit`, after the poll handle's close callback
    /// (which held the last reference the loop keeps to itself). That is
    /// what lets ``signal()`` run outside the inbox lock (see `post(_:)`).
    internal struct Wakeup {
        /// Our eventfd (non-blocking, close-on-exec).
        let fd: Int32
        /// The poll handle watching `fd`; its `data` retains the `UVLoop`
        /// until its close callback.
        let poll: UnsafeMutablePointer<uv_poll_t>

        /// Creates the eventfd and the poll handle on `loop`, starts it and
        /// unrefs it (the loop's own machinery never keeps `run()` alive).
        /// The callback finds the `UVLoop` in the handle's `data`, which the
        /// caller sets before the loop runs. Thread that owns `loop`.
        static func make(on loop: UnsafeMutablePointer<uv_loop_t>) throws(UVError) -> Wakeup {
            let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            guard fd >= 0 else { throw UVError(code: -errno) }
            let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_poll_t>.size,
                                                       alignment: MemoryLayout<uv_poll_t>.alignment)
            let poll = raw.bindMemory(to: uv_poll_t.self, capacity: 1)
            let status = uv_poll_init(loop, poll, fd)
            guard status == 0 else {
                raw.deallocate()
                _ = Glibc.close(fd)
                throw UVError(code: status)
            }
            // libuv's uv_poll_start only fails on arguments, never on an
            // initialised handle with UV_READABLE.
            let started = uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
                // The status is never an error for an eventfd (no POLLERR);
                // draining on a spurious call is harmless anyway.
                guard let handle else { return }
                let loop = Unmanaged<UVLoop>.fromOpaque(handle.pointee.data).takeUnretainedValue()
                loop.wakeup.reset()
                loop.drainInbox()
            }
            if started != 0 { violation("UVLoop: uv_poll_start on the wake-up eventfd failed (\(started))") }
            uv_unref(UVLoop.handle(poll))
            return Wakeup(fd: fd, poll: poll)
        }

        /// Makes the loop's poll return: adds 1 to the counter. Any thread,
        /// as long as the `UVLoop` is alive (the fd is open until deinit).
        /// A saturated counter (`EAGAIN`) still wakes the loop.
        func signal() {
            var one: UInt64 = 1
            _ = write(fd, &one, MemoryLayout<UInt64>.size)
        }

        /// Empties the counter so the poll waits again. Loop thread.
        /// `EAGAIN` (already empty: the inbox was drained another way) is
        /// fine.
        func reset() {
            var count: UInt64 = 0
            _ = read(fd, &count, MemoryLayout<UInt64>.size)
        }
    }
}
