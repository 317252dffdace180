import UVCombineHTTPCore

// A streaming task's backpressure: a part offered without demand is kept,
// the connection stops reading, and reading resumes (pending part, decoder
// output, stashed bytes first) when the subscriber asks for more.
extension SessionEngine {
    // MARK: Streaming backpressure

    /// Offers a streaming part. Returns true when processing must stop
    /// (paused without demand, or cancelled).
    package func offer(_ part: StreamedPart, for task: SessionTask, on connection: SessionConnection,
                        rest: UnsafeRawBufferPointer) -> Bool {
        switch task.offerPart(task, part) {
        case .delivered:
            return false
        case .noDemand:
            // Held in bytes of its own (the offered ones are borrowed).
            pause(task, task.exchange.partRefused(part.held, unparsed: rest), on: connection)
            return true
        case .cancelled:
            return true
        }
    }

    /// A read chunk was processed without ending the exchange: a streaming
    /// task without demand stops reading.
    package func afterInput(for task: SessionTask, on connection: SessionConnection) {
        if task.isStreaming && task.pauseIfNoDemand() {
            pause(task, task.exchange.demandExhausted(), on: connection)
        } else {
            connection.startReading()
        }
    }

    private func pause(_ task: SessionTask, _ action: HTTPExchangeStateMachine.PauseAction,
                       on connection: SessionConnection) {
        switch action {
        case .pause:
            // HTTP/2: the stream's window is the pause (SessionEngine+HTTP2.swift).
            if connection.http2 == nil { connection.stopReading() }
            // The subscriber is slow, not the server: only the total
            // timeout runs while paused.
            task.timeouts?.exchangeEnded()
        }
    }

    /// Demand came back for a paused streaming task.
    package func resume(_ task: SessionTask) {
        if resumeHTTP2(task) { return }
        guard let connection = connection(of: task), case .resume(let part) = task.exchange.resume() else { return }
        applyTimeout(task, task.timeouts?.exchangeStarted(now: now) ?? .none)
        if let part {
            switch offerHeldPart(part, to: task) {
            case .delivered: break
            case .noDemand:
                pause(task, task.exchange.partRefused(part, unparsed: UnsafeRawBufferPointer(start: nil, count: 0)),
                      on: connection)
                return
            case .cancelled:
                return
            }
        }
        // Decoded output the subscriber had no demand for comes before
        // any byte the parser has not seen.
        if let decoder = task.decoder, decoder.needsDrain {
            decoder.needsDrain = false
            var pending: [UInt8] = []
            swap(&pending, &decoder.pendingInput)
            let stopped = pending.withUnsafeBytes { bytes in
                decode(bytes, with: decoder, for: task, on: connection, rest: UnsafeRawBufferPointer(start: nil, count: 0))
            }
            if decoder.pendingInput.isEmpty {
                pending.removeAll(keepingCapacity: true)
                decoder.pendingInput = pending
            }
            if stopped { return }
        }
        // The parser is asked again even with nothing held: the part just
        // delivered may have been the response's last, and only the
        // parser can say that the response ended (issue 17: a small
        // response on a keep-alive connection, read .max(1) at a time,
        // never finished because the parser was never asked again).
        var unparsed = task.exchange.takeUnparsed()
        let finished = unparsed.withUnsafeBytes { bytes in
            process(bytes, for: task, on: connection)
        }
        // Give the buffer back (the next pause reuses it).
        task.exchange.recycle(&unparsed)
        if finished { return }
        guard !task.exchange.isPaused, task.exchange.phase == .exchanging else { return }
        afterInput(for: task, on: connection)
    }
}
