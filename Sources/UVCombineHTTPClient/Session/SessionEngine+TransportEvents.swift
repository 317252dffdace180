import UVCombineHTTPCore

// The transport's events on a connection (SessionConnection forwards
// them): connected, failed, bytes read, bytes written, end of stream. Each
// runs as one turn; where reads of a data task's body land is decided
// here too.
extension SessionEngine {
    // MARK: Transport events

    package func connectionDidConnect(_ connection: SessionConnection) {
        beginTurn()
        if !connection.isClosed {
            wireObserver?.sessionDidConnect()
            connection.isEstablished = true
            deadlines.remove(connection)
            connection.startReading()
            run(pool.connectionEstablished(connection.id, now: now))
        }
        endTurn()
    }

    package func connectionDidFailToConnect(_ connection: SessionConnection, error: UVURLError) {
        beginTurn()
        if !connection.isClosed {
            run(pool.connectionFailed(connection.id, error: error, now: now))
        }
        endTurn()
    }

    package func connectionDidRead(_ connection: SessionConnection, bytes: UnsafeRawBufferPointer) {
        beginTurn()
        if !connection.isClosed && !bytes.isEmpty {
            wireObserver?.sessionDidRead(bytes)
            if let task = task(on: connection) {
                if task.metrics != nil { metricsReceived(task, bytes: bytes.count) }
                if !process(bytes, for: task, on: connection), task.exchange.phase == .exchanging,
                   connection.task === task {
                    afterInput(for: task, on: connection)
                    targetReads(of: connection, for: task)
                }
            } else {
                // Bytes on an idle connection: nothing was asked, so the
                // connection cannot be trusted any more.
                run(pool.connectionClosed(connection.id, now: now))
            }
        }
        endTurn()
    }

    /// Request bytes were taken by the kernel: the exchange is alive, so
    /// the idle timeout measures from now (a stall in either direction
    /// still times out). Only moves a stored instant, as reading does.
    package func connectionDidWrite(_ connection: SessionConnection) {
        assertInLoop()
        guard !connection.isClosed, let task = task(on: connection) else { return }
        if task.timeouts != nil { task.timeouts!.activity(now: now) }
        if task.metrics != nil { metricsRequestWritten(task) }
        // A streamed body asks for its next chunk once everything written
        // was taken by the kernel.
        guard task.exchange.streamsBody, connection.io?.hasPendingWrites == false else { return }
        beginTurn()
        bodyWritesCompleted(task)
        endTurn()
    }

    /// `isAuthenticated` is false for a TLS stream that ended without
    /// `close_notify`: it cannot end a close-delimited body.
    package func connectionDidReachEndOfStream(_ connection: SessionConnection, isAuthenticated: Bool) {
        beginTurn()
        if !connection.isClosed {
            if let task = task(on: connection) {
                do throws(UVURLError) {
                    if case .end = try connection.parser.endOfInput(isAuthenticated: isAuthenticated) {
                        responseEnded(task, on: connection, keepAlive: false, hasTrailingBytes: false)
                    }
                } catch {
                    requestFailed(task, error)
                }
            } else if connection.isEstablished {
                run(pool.connectionClosed(connection.id, now: now))
            }
        }
        endTurn()
    }

    package func connectionDidFail(_ connection: SessionConnection, error: UVURLError) {
        beginTurn()
        if !connection.isClosed {
            if let task = task(on: connection) {
                requestFailed(task, error)
            } else if connection.isEstablished {
                run(pool.connectionClosed(connection.id, now: now))
            } else {
                run(pool.connectionFailed(connection.id, error: error, now: now))
            }
        }
        endTurn()
    }

    /// Points the connection's next reads at the rest of a data task's
    /// body buffer while a body of known length arrives (no decoder, no
    /// redirect): the kernel then copies the body into its place. Cleared
    /// by ``detach(_:)`` and when the connection closes, before the buffer
    /// can move or go.
    private func targetReads(of connection: SessionConnection, for task: SessionTask) {
        guard !task.isStreaming, task.decoder == nil, !task.exchange.isDiscardingBody,
              let remaining = connection.parser.remainingFixedBodyLength, remaining > 1,
              // All but the last byte: the read that ends the body then
              // goes to the connection's buffer and comes up short of it,
              // as before. A target read that ends the body exactly fills
              // its buffer, and libuv, reading on while reads fill their
              // buffers, would read the next response (already asked for
              // by the subscriber) before the next request's write
              // callback ran, which makes the connection look busy and
              // lose its keep-alive (seen in the soak test).
              let room = task.data.room(for: remaining - 1) else {
            if connection.hasReadTarget {
                connection.hasReadTarget = false
                connection.io?.setReadTarget(nil)
            }
            return
        }
        connection.hasReadTarget = true
        connection.io?.setReadTarget(room)
    }
}
