import UVCombineHTTPClient
import UVCombineWebSocketCore
import UVCombineHTTPCore
import UVCombineLoop
import HTTPTypes

/// The loop side of a ``WebSocketClientTask``: the connection from the
/// session, the opening handshake, the message reader and the frame
/// encoder, the receivers waiting for messages, and the close handshake.
///
/// ## States
///
/// idle → connecting (TCP, TLS, proxy tunnel) → handshaking (request
/// sent, reading the answer's head) → open → closing (close frame sent,
/// waiting for the server's) → closed. A close frame from the server in
/// `open` is answered with the same code and the connection closes once
/// the answer is written.
///
/// ## Backpressure
///
/// The socket is read only while someone waits for a message (a pending
/// ``receive(_:)`` or demand from the messages publisher), during the
/// handshakes, and while closing. Frames already received stay in the
/// reader until then, so a slow subscriber stops the reads and TCP flow
/// control throttles the server. A ping arriving then is answered when
/// reading resumes.
///
/// Threading: loop thread only.
package final class WebSocketConnection: HTTPConnectionHandler {
    package enum State: Equatable {
        case idle, connecting, handshaking, open, closing, closed
    }

    /// A completion handler waiting for one message, which it gets lent
    /// (``WebSocketBorrowedMessage``: valid during the call only).
    package typealias Receiver = (Result<WebSocketBorrowedMessage, WebSocketError>) -> Void

    private let session: UVURLSession
    private let loop: UVLoop
    private let status: WebSocketTaskStatus
    private let options: WebSocketClientOptions
    private let target: Result<HTTPRequestTarget, UVURLError>
    private let extraFields: HTTPFields
    private let handshake: WebSocketHandshake

    package private(set) var state = State.idle
    private var io: (any HTTPConnectionIO)?
    private var headReader = WebSocketHeadReader()
    private var reader: WebSocketMessageReader
    private var encoder = WebSocketFrameEncoder(masks: true)
    private var compressor: DeflateCompressor?
    /// Whether the socket is being read.
    private var isReading = false
    /// Inside ``drain()``: demand added meanwhile is picked up by it.
    private var isDraining = false

    /// Completion handlers waiting for a message, oldest first.
    private var receivers: [PendingReceiver] = []
    /// The messages publisher's subscription and its demand.
    private var subscriber: (any WebSocketMessageSink)?
    private var subscriberDemand = 0
    /// A close asked for (by the send publisher) before the connection opened.
    private var pendingClose: (WebSocketCloseCode, [UInt8])?
    /// A message read while waiting for a pong without demand (a copy:
    /// the reader reads on past it).
    private var heldMessage: (kind: WebSocketBorrowedMessage.Kind, bytes: [UInt8])?
    /// Pings asked for before the connection opened.
    private var queuedPings: [(WebSocketError?) -> Void] = []
    /// Sends made before the connection opened.
    private var queuedSends: [(WebSocketClientMessage, ((WebSocketError?) -> Void)?)] = []
    /// One entry per write given to the connection, in order: what to
    /// call when the kernel took it.
    private var writeCompletions: [PendingWrite] = []
    /// Pings waiting for their pong: payload and handler.
    private var pongHandlers: [([UInt8], (WebSocketError?) -> Void)] = []
    private var pingCounter: UInt64 = 0
    /// Called once the connection is closed: nil after a completed close
    /// handshake, else the error.
    private var closeWaiters: [(WebSocketError?) -> Void] = []
    /// The error every later operation fails with, once closed.
    private var terminalError: WebSocketError?
    /// Close the connection once the writes in flight completed.
    private var closesAfterWrites = false
    private var timer: UVDeadlineTimer?

    package init(session: UVURLSession, status: WebSocketTaskStatus, options: WebSocketClientOptions,
                  target: Result<HTTPRequestTarget, UVURLError>, extraFields: HTTPFields, subprotocols: [String]) {
        self.session = session
        loop = session.loop
        self.status = status
        self.options = options
        self.target = target
        self.extraFields = extraFields
        handshake = WebSocketHandshake(subprotocols: subprotocols, compression: options.compression)
        reader = WebSocketMessageReader(maximumMessageSize: status.maximumMessageSize)
    }

    // MARK: Operations (from WebSocketClientTask, on the loop thread)

    package func resume() {
        guard state == .idle else { return }
        let target: HTTPRequestTarget
        switch self.target {
        case .success(let value): target = value
        case .failure(let error):
            terminate(WebSocketError(.transport(error)), code: .invalid)
            return
        }
        state = .connecting
        status.update { $0.state = .running }
        do throws(UVURLError) {
            io = try session.openStreamConnection(to: target, handler: self)
        } catch {
            terminate(WebSocketError(.transport(error)), code: .invalid)
            return
        }
        arm(after: options.openingHandshakeTimeout)
    }

    package func send(_ message: WebSocketClientMessage, completion: ((WebSocketError?) -> Void)?) {
        switch state {
        case .idle, .connecting, .handshaking:
            queuedSends.append((message, completion))
        case .open:
            write(message, completion: completion)
        case .closing, .closed:
            completion?(terminalError ?? WebSocketError(.closed, closeCode: status.closeCode))
        }
    }

    package func receive(_ receiver: @escaping Receiver) {
        if let terminalError {
            receiver(.failure(terminalError))
            return
        }
        receivers.append(PendingReceiver(call: receiver))
        demandChanged()
    }

    package func sendPing(_ handler: @escaping (WebSocketError?) -> Void) {
        switch state {
        case .idle, .connecting, .handshaking:
            // Sent once the connection opens, as sends are.
            queuedPings.append(handler)
            return
        case .closing, .closed:
            handler(terminalError ?? WebSocketError(.closed, closeCode: status.closeCode))
            return
        case .open:
            break
        }
        pingCounter += 1
        let payload = withUnsafeBytes(of: pingCounter.bigEndian) { Array($0) }
        pongHandlers.append((payload, handler))
        var frame: [UInt8] = []
        encoder.encode(.ping, payload: payload, into: &frame)
        writeFrames(frame, completion: nil)
        drain()
    }

    /// Starts the close handshake with `code` (or ends a connection that
    /// is not open yet, unless `afterOpening`: then the handshake starts
    /// once it opened and the queued sends went out); `completion` hears
    /// when the connection closed.
    package func close(code: WebSocketCloseCode, reason: [UInt8], afterOpening: Bool = false,
                        completion: ((WebSocketError?) -> Void)?) {
        if let completion {
            if state == .closed {
                completion(terminalError.flatMap { $0.reason == .closed ? nil : $0 })
                return
            }
            closeWaiters.append(completion)
        }
        if afterOpening && (state == .connecting || state == .handshaking) {
            pendingClose = (code, reason)
            return
        }
        switch state {
        case .idle:
            terminate(WebSocketError(.cancelled, closeCode: code), code: code)
        case .connecting, .handshaking:
            closeConnection()
            terminate(WebSocketError(.cancelled, closeCode: code), code: code)
        case .open:
            state = .closing
            var frame: [UInt8] = []
            encoder.encode(.close, payload: WebSocketCloseFrame.payload(code: code, reason: reason), into: &frame)
            writeFrames(frame, completion: nil)
            arm(after: options.closeTimeout)
            updateReading()
        case .closing, .closed:
            break
        }
    }

    /// Attaches the publisher's subscription (at subscribe, before any
    /// demand); a second one is refused.
    package func attach(_ sink: any WebSocketMessageSink) {
        guard subscriber == nil else {
            sink.finish(WebSocketError(.cancelled))
            return
        }
        if let terminalError {
            sink.finish(terminalError.reason == .closed ? nil : terminalError)
            return
        }
        // Connecting waits for the first demand (or resume()).
        subscriber = sink
    }

    package func detach(_ sink: any WebSocketMessageSink) {
        guard let subscriber, subscriber === sink else { return }
        self.subscriber = nil
        subscriberDemand = 0
        updateReading()
    }

    package func addDemand(_ demand: Int, for sink: any WebSocketMessageSink) {
        guard let subscriber, subscriber === sink else { return }
        subscriberDemand = subscriberDemand > Int.max - demand ? Int.max : subscriberDemand + demand
        demandChanged()
    }

    package func setMaximumMessageSize(_ size: Int) {
        reader.maximumMessageSize = size
    }

    // MARK: HTTPConnectionHandler

    package func connectionDidConnect() {
        guard state == .connecting, case .success(let target) = target else { return }
        do throws(WebSocketHandshakeError) {
            let head = try handshake.requestHead(authority: target.authority, target: target.target, extraFields: extraFields)
            state = .handshaking
            writeFrames(head, completion: nil)
            updateReading()
        } catch {
            closeConnection()
            terminate(WebSocketError(.handshake(error)), code: .invalid)
        }
    }

    package func connectionDidFailToConnect(_ error: UVURLError) {
        guard state == .connecting else { return }
        closeConnection()
        terminate(WebSocketError(.transport(error)), code: .invalid)
    }

    package func connectionDidRead(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .handshaking:
            readHandshake(bytes)
        case .open, .closing:
            reader.append(bytes)
            drain()
        case .idle, .connecting, .closed:
            break
        }
    }

    package func connectionDidWrite() {
        guard !writeCompletions.isEmpty else { return }
        // Every write done when nothing is pending (TLS may report writes
        // of its own: never complete later than the kernel took the bytes).
        if io?.hasPendingWrites == false && writeCompletions.count > 1 {
            // Swapped out, not sliced: a slice would share the buffer and
            // make the removal copy it (an allocation per write). One
            // write (the usual case) is removed in place, keeping the
            // array's capacity.
            let done = writeCompletions
            writeCompletions = []
            for write in done { write.completion?(nil) }
        } else {
            writeCompletions.removeFirst().completion?(nil)
        }
        if closesAfterWrites && writeCompletions.isEmpty {
            closeConnection()
        }
    }

    package func connectionDidReachEndOfStream() {
        connectionEnded(error: nil)
    }

    package func connectionDidFail(_ error: UVURLError) {
        connectionEnded(error: error)
    }

    // MARK: Handshake

    private func readHandshake(_ bytes: UnsafeRawBufferPointer) {
        let agreement: WebSocketHandshake.Agreement
        let rest: [UInt8]
        do throws(WebSocketHandshakeError) {
            guard let (head, after) = try headReader.append(bytes) else { return }
            agreement = try handshake.validate(responseHead: head)
            rest = after
        } catch {
            closeConnection()
            terminate(WebSocketError(.handshake(error)), code: .invalid)
            return
        }
        do throws(WebSocketProtocolError) {
            if let parameters = agreement.compression {
                try reader.enableCompression(parameters)
                // zlib cannot deflate with a 2^8 window: send uncompressed.
                if parameters.clientMaxWindowBits >= 9 {
                    compressor = try DeflateCompressor(windowBits: parameters.clientMaxWindowBits,
                                                       noContextTakeover: parameters.clientNoContextTakeover)
                }
            }
        } catch {
            closeConnection()
            terminate(WebSocketError(.protocolViolation(error)), code: .invalid)
            return
        }
        state = .open
        disarm()
        status.update {
            $0.response = agreement.response
            $0.subprotocol = agreement.subprotocol
            $0.compression = agreement.compression
        }
        let sends = queuedSends
        queuedSends = []
        for (message, completion) in sends where state == .open {
            write(message, completion: completion)
        }
        let pings = queuedPings
        queuedPings = []
        for handler in pings { sendPing(handler) }
        if let (code, reason) = pendingClose, state == .open {
            pendingClose = nil
            close(code: code, reason: reason, completion: nil)
        }
        reader.append(rest)
        drain()
    }

    // MARK: Reading

    /// Whether someone waits for a message.
    private var hasDemand: Bool { !receivers.isEmpty || subscriberDemand > 0 }

    private func demandChanged() {
        guard !isDraining else { return }
        if state == .idle && hasDemand { resume() }
        drain()
    }

    /// Hands out the messages the reader holds while there is demand (all
    /// while closing), answers control frames, then reads or stops. While
    /// a pong is awaited without demand, frames are read on until a
    /// message arrives, which is held for the next demand.
    private func drain() {
        guard !isDraining else { return }
        isDraining = true
        defer {
            isDraining = false
            updateReading()
        }
        if hasDemand, let held = heldMessage {
            heldMessage = nil
            held.bytes.withUnsafeBytes { deliver(.success(WebSocketBorrowedMessage(kind: held.kind, bytes: $0))) }
        }
        while state == .open && (hasDemand || (heldMessage == nil && !pongHandlers.isEmpty)) || state == .closing {
            let event: WebSocketMessageReader.BorrowedEvent?
            do throws(WebSocketProtocolError) {
                event = try reader.nextBorrowed()
            } catch {
                fail(error)
                return
            }
            guard let event else { return }
            handle(event)
        }
    }

    /// Acts on what the reader returned; a message is lent to its
    /// receiver from the reader's buffers, with no copy.
    private func handle(_ event: WebSocketMessageReader.BorrowedEvent) {
        switch event {
        case .message(let opcode):
            // After our close frame the server may still send messages
            // (RFC 6455, 7.1.2): delivered while someone waits for one,
            // else dropped, since reading goes on to find the close frame.
            guard state == .open || hasDemand else { return }
            let kind: WebSocketBorrowedMessage.Kind = opcode == .text ? .text : .binary
            if hasDemand {
                // Lent from a copy of the reader (sharing its buffers, no
                // bytes copied): a receiver may change the size limit,
                // which writes `reader`, while it holds the bytes.
                let lender = reader
                lender.withPayload { deliver(.success(WebSocketBorrowedMessage(kind: kind, bytes: $0))) }
            } else {
                heldMessage = (kind, reader.withPayload { Array($0.assumingMemoryBound(to: UInt8.self)) })
            }
        case .ping:
            guard state == .open else { return }
            var frame: [UInt8] = []
            let payload = reader.withPayload { Array($0) }
            encoder.encode(.pong, payload: payload, into: &frame)
            writeFrames(frame, completion: nil)
        case .pong:
            let payload = reader.withPayload { Array($0) }
            if let index = pongHandlers.firstIndex(where: { $0.0 == payload }) {
                // A pong answers its ping and every earlier one.
                let answered = pongHandlers[...index]
                pongHandlers.removeFirst(index + 1)
                for (_, handler) in answered { handler(nil) }
            }
        case .close(let frame):
            status.update {
                $0.closeCode = frame.code
                $0.closeReason = frame.reasonBytes.isEmpty ? nil : frame.reasonBytes
            }
            if state == .open {
                // The server closes: answer with its code, then close.
                var reply: [UInt8] = []
                encoder.encode(.close, payload: WebSocketCloseFrame.payload(code: frame.code, reason: []), into: &reply)
                writeFrames(reply, completion: nil)
                closesAfterWrites = true
                arm(after: options.closeTimeout)
            } else {
                closeConnection()
            }
            terminate(WebSocketError(.closed, closeCode: frame.code), code: frame.code)
        }
    }

    private func deliver(_ result: Result<WebSocketBorrowedMessage, WebSocketError>) {
        if !receivers.isEmpty {
            let receiver = receivers.removeFirst()
            receiver.call(result)
            return
        }
        guard let subscriber, subscriberDemand > 0, case .success(let message) = result else { return }
        if subscriberDemand != Int.max { subscriberDemand -= 1 }
        let more = subscriber.receive(message)
        if more > 0 { subscriberDemand = subscriberDemand > Int.max - more ? Int.max : subscriberDemand + more }
    }

    private func updateReading() {
        guard let io else { return }
        let wanted: Bool
        switch state {
        case .handshaking, .closing: wanted = true
        case .open: wanted = hasDemand || (heldMessage == nil && !pongHandlers.isEmpty)
        case .idle, .connecting, .closed: wanted = false
        }
        guard wanted != isReading else { return }
        isReading = wanted
        if wanted { io.startReading() } else { io.stopReading() }
    }

    // MARK: Writing

    private func write(_ message: WebSocketClientMessage, completion: ((WebSocketError?) -> Void)?) {
        let opcode: WebSocketOpcode
        var payload: [UInt8]
        switch message {
        case .text(let text): opcode = .text; payload = Array(text.utf8)
        case .binary(let bytes): opcode = .binary; payload = bytes
        }
        var compressed = false
        if let compressor {
            do throws(WebSocketProtocolError) {
                payload = try compressor.compress(payload)
                compressed = true
            } catch {
                completion?(WebSocketError(.protocolViolation(error)))
                return
            }
        }
        var frames: [UInt8] = []
        frames.reserveCapacity(payload.count + 14 * (payload.count / max(options.maximumFrameSize, 1) + 1))
        let frameSize = max(options.maximumFrameSize, 1)
        payload.withUnsafeBytes { raw in
            var offset = 0
            repeat {
                let end = min(offset + frameSize, raw.count)
                encoder.encode(offset == 0 ? opcode : .continuation, payload: UnsafeRawBufferPointer(rebasing: raw[offset..<end]),
                               fin: end == raw.count, rsv1: compressed && offset == 0, into: &frames)
                offset = end
            } while offset < raw.count
        }
        writeFrames(frames, completion: completion)
    }

    private func writeFrames(_ bytes: [UInt8], completion: ((WebSocketError?) -> Void)?) {
        guard let io else {
            completion?(terminalError ?? WebSocketError(.closed))
            return
        }
        writeCompletions.append(PendingWrite(completion: completion))
        io.write(bytes)
    }

    // MARK: Ending

    /// The server broke the protocol: close with its code.
    private func fail(_ error: WebSocketProtocolError) {
        let wasOpen = state == .open
        status.update { $0.closeCode = error.closeCode }
        if wasOpen {
            var frame: [UInt8] = []
            encoder.encode(.close, payload: WebSocketCloseFrame.payload(code: error.closeCode, reason: error.reason), into: &frame)
            writeFrames(frame, completion: nil)
            closesAfterWrites = true
            arm(after: options.closeTimeout)
        } else {
            closeConnection()
        }
        terminate(WebSocketError(.protocolViolation(error), closeCode: error.closeCode), code: error.closeCode)
    }

    private func connectionEnded(error: UVURLError?) {
        switch state {
        case .handshaking:
            closeConnection()
            terminate(WebSocketError(.transport(error ?? UVURLError(.networkConnectionLost,
                                                                    detail: "the server closed the connection during the opening handshake"))),
                      code: .invalid)
        case .open, .closing:
            // Gone without a close frame: 1006.
            closeConnection()
            status.update { $0.closeCode = .abnormalClosure }
            terminate(WebSocketError(error.map { .transport($0) } ?? .abnormalClosure, closeCode: .abnormalClosure),
                      code: .abnormalClosure)
        case .closed:
            // The close handshake is done; the server closed TCP.
            closeConnection()
        case .idle, .connecting:
            break
        }
    }

    /// Fails what waits, finishes the publisher, tells the close waiters.
    private func terminate(_ error: WebSocketError, code: WebSocketCloseCode) {
        guard terminalError == nil else {
            if state != .closed { state = .closed }
            return
        }
        terminalError = error
        state = .closed
        status.update {
            $0.state = .completed
            if $0.closeCode == .invalid { $0.closeCode = code }
        }
        failReceivers(error)
        let sends = queuedSends
        queuedSends = []
        for (_, completion) in sends { completion?(error) }
        let pings = pongHandlers.map(\.1) + queuedPings
        pongHandlers = []
        queuedPings = []
        for handler in pings { handler(error) }
        if let subscriber {
            self.subscriber = nil
            subscriberDemand = 0
            subscriber.finish(error.reason == .closed ? nil : error)
        }
        let waiters = closeWaiters
        closeWaiters = []
        for waiter in waiters { waiter(error.reason == .closed ? nil : error) }
        if io == nil { disarm() }
    }

    private func failReceivers(_ error: WebSocketError) {
        let waiting = receivers
        receivers = []
        for receiver in waiting { receiver.call(.failure(error)) }
    }

    private func closeConnection() {
        isReading = false
        io?.close()
        io = nil
        closesAfterWrites = false
        let completions = writeCompletions
        writeCompletions = []
        for write in completions { write.completion?(terminalError ?? WebSocketError(.closed)) }
        disarm()
    }

    // MARK: Timer

    private func arm(after duration: Duration) {
        if timer == nil {
            timer = UVDeadlineTimer(loop: loop) { [weak self] in self?.timerFired() }
        }
        let (seconds, attoseconds) = duration.components
        let nanoseconds = UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
        timer!.arm(at: loop.now.uptimeNanoseconds + nanoseconds)
    }

    private func disarm() {
        timer?.close()
        timer = nil
    }

    private func timerFired() {
        switch state {
        case .connecting, .handshaking, .closing:
            closeConnection()
            terminate(WebSocketError(.timedOut, closeCode: .abnormalClosure), code: .abnormalClosure)
        case .closed:
            // The server never read our close answer (or never closed).
            closeConnection()
        case .idle, .open:
            break
        }
    }
}

// Closures kept in arrays are wrapped in these non-generic structs: an
// array of bare function values stores each one at its most general
// abstraction, which allocates a reabstraction thunk's context per append
// (found in the disassembly of `receive`: one malloc per receive call).

/// A receiver waiting for a message.
private struct PendingReceiver {
    let call: WebSocketConnection.Receiver
}

/// A write given to the connection and what to call when it completed.
private struct PendingWrite {
    let completion: ((WebSocketError?) -> Void)?
}

/// The messages publisher's subscription (or the C API's WebSocket), as
/// the connection sees it.
package protocol WebSocketMessageSink: AnyObject {
    /// A message, lent for this call only; returns more demand.
    func receive(_ message: WebSocketBorrowedMessage) -> Int
    /// The end: nil for a completed close handshake.
    func finish(_ error: WebSocketError?)
}
