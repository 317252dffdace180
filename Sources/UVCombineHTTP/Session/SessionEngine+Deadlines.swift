import FoundationEssentials
import UVCombineHTTPCore

// Deadlines: the tasks' timeout machines and the connections' connect and
// idle timeouts in one DeadlineHeap, behind the session's one transport
// timer (armed lazily: see SessionEngine, "Deadlines").
extension SessionEngine {
    // MARK: Deadlines

    package func timerFired() {
        beginTurn()
        armedDeadline = nil
        let instant = now
        while let entry = deadlines.popDue(now: instant.uptimeNanoseconds) {
            if let task = entry as? SessionTask {
                guard case .running = task.progress, task.timeouts != nil else { continue }
                noteUploadProgress(task, now: instant)
                applyTimeout(task, task.timeouts!.timerFired(now: instant))
            } else if let connection = entry as? SessionConnection, !connection.isClosed {
                if connection.isEstablished {
                    run(pool.idleTimeoutFired(connection.id, now: instant))
                } else {
                    run(pool.connectTimeoutFired(connection.id, now: instant))
                }
            }
        }
        endTurn()
    }

    /// Counts an upload's progress that no write completion reported: a
    /// write completes when the kernel took the bytes, and the kernel's
    /// send buffer (megabytes, on loopback) then drains as slowly as the
    /// server reads. When the unacknowledged output changed since the
    /// last look and bytes still wait (or a large amount, 64 KiB or more,
    /// went), an upload is moving: activity now. A small request that the
    /// server acknowledged late is no upload: its progress is older than
    /// this firing and does not count, so its stall times out on time.
    /// A stall that starts mid-upload is seen one idle period late at
    /// most. One `ioctl` per firing, none per request.
    private func noteUploadProgress(_ task: SessionTask, now instant: HTTPDeadline) {
        guard let connection = task.connection, let io = connection.io else { return }
        let unacknowledged = io.unacknowledgedOutputByteCount
        let previous = task.lastUnacknowledgedOutput
        task.lastUnacknowledgedOutput = unacknowledged
        guard unacknowledged != previous else { return }
        if unacknowledged > 0 || previous - unacknowledged >= 64 * 1024 {
            task.timeouts!.activity(now: instant)
        }
    }

    internal func syncTimer() {
        guard let earliest = deadlines.earliest?.heapDeadline else { return }
        if let armed = armedDeadline, armed <= earliest { return }
        armedDeadline = earliest
        transport.armTimer(at: HTTPDeadline(uptimeNanoseconds: earliest))
    }

    internal func stopTimeouts(_ task: SessionTask) {
        if task.timeouts != nil {
            _ = task.timeouts!.finished()
        }
        deadlines.remove(task)
    }

    internal func applyTimeout(_ task: SessionTask, _ action: RequestTimeoutStateMachine.Action) {
        switch action {
        case .none: break
        case .arm(let deadline): deadlines.schedule(task, at: deadline.uptimeNanoseconds)
        case .cancel: deadlines.remove(task)
        case .fail(let error): requestFailed(task, error)
        }
    }
}
