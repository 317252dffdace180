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
                guard task.exchange.isRunning, task.timeouts != nil else { continue }
                noteUploadProgress(task, now: instant)
                applyTimeout(task, task.timeouts!.timerFired(now: instant))
            } else if let http2 = entry as? HTTP2SessionConnection {
                http2TimerFired(http2, now: instant)
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

    /// Counts an upload's progress that no write completion reported
    /// (the exchange machine's `uploadProgressObserved`: the kernel's send
    /// buffer drains as slowly as the server reads). One `ioctl` per
    /// firing, none per request; a stall that starts mid-upload is seen
    /// one idle period late at most.
    private func noteUploadProgress(_ task: SessionTask, now instant: HTTPDeadline) {
        guard let connection = connection(of: task), let io = connection.io else { return }
        if task.exchange.uploadProgressObserved(unacknowledged: io.unacknowledgedOutputByteCount) {
            task.timeouts!.activity(now: instant)
        }
    }

    package func syncTimer() {
        guard let earliest = deadlines.earliest?.heapDeadline else { return }
        if let armed = armedDeadline, armed <= earliest { return }
        armedDeadline = earliest
        transport.armTimer(at: HTTPDeadline(uptimeNanoseconds: earliest))
    }

    package func stopTimeouts(_ task: SessionTask) {
        if task.timeouts != nil {
            _ = task.timeouts!.finished()
        }
        deadlines.remove(task)
    }

    package func applyTimeout(_ task: SessionTask, _ action: RequestTimeoutStateMachine.Action) {
        switch action {
        case .none: break
        case .arm(let deadline): deadlines.schedule(task, at: deadline.uptimeNanoseconds)
        case .cancel: deadlines.remove(task)
        case .fail(let error): requestFailed(task, error)
        }
    }
}
