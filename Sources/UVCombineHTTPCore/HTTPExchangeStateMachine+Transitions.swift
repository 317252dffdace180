// The exchange machine's upload steps (a streamed request body's chunks,
// end and progress), the step every end shares, and the messages of
// impossible transitions.

extension HTTPExchangeStateMachine {
    // MARK: Upload

    /// The body's publisher sent a chunk of `count` bytes;
    /// `hasPendingWrites` says earlier writes are still in flight.
    ///
    /// - Returns: `.write(chunked:)`; `.requestChunk` for an empty chunk
    ///   with nothing in flight (ask again now, see ``writesCompleted()``);
    ///   `.none` for an empty chunk while writes are in flight (their
    ///   completion asks); `.fail(.requestBodyLengthMismatch)` past the
    ///   `Content-Length`.
    public mutating func bodyChunkArrived(count: Int, hasPendingWrites: Bool) -> BodyChunkAction {
        guard phase == .exchanging, upload == .streaming else {
            violation("bodyChunkArrived: chunks come while the body streams, but it is \(describe())")
        }
        isAwaitingBodyChunk = false
        if count == 0 {
            return hasPendingWrites ? .none : .requestChunk
        }
        if let length = streamedBodyLength, bodyBytesWritten + count > length {
            return .fail(UVURLError(
                .requestBodyLengthMismatch,
                detail: "the body publisher sent \(bodyBytesWritten + count) bytes or more, past the Content-Length of \(length)"))
        }
        bodyBytesWritten += count
        return .write(chunked: streamedBodyLength == nil)
    }

    /// The body's publisher finished.
    ///
    /// - Returns: `.writeLastChunk` (chunked), `.none` (every announced
    ///   byte was written), or `.fail(.requestBodyLengthMismatch)` short
    ///   of the `Content-Length`.
    public mutating func bodyFinished() -> BodyEndAction {
        guard phase == .exchanging, upload == .streaming else {
            violation("bodyFinished: a body ends while it streams, but it is \(describe())")
        }
        if let length = streamedBodyLength, bodyBytesWritten != length {
            return .fail(UVURLError(
                .requestBodyLengthMismatch,
                detail: "the body publisher finished after \(bodyBytesWritten) of the \(length) bytes of its Content-Length"))
        }
        upload = .complete
        isAwaitingBodyChunk = false
        return streamedBodyLength == nil ? .writeLastChunk : .none
    }

    /// Every write was taken by the kernel (HTTP/2: the peer's window has
    /// room again).
    ///
    /// - Returns: the body bytes sent, when that changed since the last
    ///   report (upload progress), and whether to ask for the next chunk
    ///   (streaming, and none asked for yet).
    public mutating func writesCompleted() -> WritesCompletedAction {
        guard phase == .exchanging else {
            violation("writesCompleted: writes complete while exchanging, but it is \(describe())")
        }
        var action = WritesCompletedAction()
        if bodyBytesCompleted != bodyBytesWritten {
            bodyBytesCompleted = bodyBytesWritten
            action.progress = bodyBytesCompleted
        }
        if upload == .streaming && !isAwaitingBodyChunk {
            isAwaitingBodyChunk = true
            action.requestsChunk = true
        }
        return action
    }

    /// The task's timer fired while the request's bytes wait
    /// unacknowledged: `unacknowledged` of them now. A write completes
    /// when the kernel took the bytes, and the kernel's send buffer
    /// (megabytes, on loopback) then drains as slowly as the server
    /// reads; a change since the last look means the upload moves.
    ///
    /// - Returns: true when that counts as activity for the idle timeout:
    ///   the count changed and bytes still wait, or a large amount (64 KiB
    ///   or more) went. A small request the server acknowledged late is
    ///   no upload: its progress does not count, so its stall times out
    ///   on time.
    public mutating func uploadProgressObserved(unacknowledged: Int) -> Bool {
        guard phase == .exchanging else { return false }
        let previous = lastUnacknowledgedOutput
        lastUnacknowledgedOutput = unacknowledged
        guard unacknowledged != previous else { return false }
        return unacknowledged > 0 || previous - unacknowledged >= 64 * 1024
    }

    // MARK: Steps

    /// Lets go of one exchange's held bytes (keeping the buffer's
    /// capacity) and its upload state.
    internal mutating func endExchange() {
        isPaused = false
        if heldPart != nil { heldPart = nil }
        unparsed.removeAll(keepingCapacity: true)
        isAwaitingBodyChunk = false
        if upload == .streaming { upload = .notStarted }
    }

    // MARK: Messages

    /// The state, for a violation's message.
    ///
    /// ```swift
    /// print(exchange.describe()) // Prints: "exchanging, response delivering, upload not started"
    /// ```
    public func describe() -> String {
        var text = "\(phase)"
        if phase == .exchanging {
            text += ", response \(response), upload \(upload)"
            if isPaused { text += ", paused" }
        }
        return text
    }

    /// Traps for an impossible transition, naming the rule.
    internal func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        httpViolation("HTTPExchangeStateMachine.\(rule)", file: file, line: line)
    }
}
