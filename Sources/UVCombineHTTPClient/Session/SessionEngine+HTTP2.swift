import HTTPTypes
import UVCombineHTTP2
import UVCombineHTTPCore

// HTTP/2 in the engine (issue 33, docs/http2.md): a connection that comes
// up speaking HTTP/2 gets an HTTP2SessionConnection, the pool leases it
// per stream, and each stream drives its task's exchange machine with the
// same events as an HTTP/1.1 connection: the head (redirects, decoding),
// the body (demand is the stream's flow-control window: bytes are
// consumed, and WINDOW_UPDATE sent, only as the subscriber takes them),
// the end, a reset (cancel is RST_STREAM), a refused stream retried. The
// shared engine files reach this file through one-line hooks
// (SessionConnection's events, `execute`, `detach`, `resume`, `pause`,
// and the streamed body's chunks).
extension SessionEngine {
    // MARK: Routing

    /// Sets the key's HTTP version from the request's options or the
    /// session's configuration, normalized for its scheme (rehashing the
    /// key only when it changes).
    package func applyHTTPVersion(of task: SessionTask, to key: inout ConnectionKey) {
        let version = (task.spec.options.httpVersion ?? configuration.httpVersion).normalized(for: key.scheme)
        if key.httpVersion != version { key.httpVersion = version }
    }

    // MARK: Connection

    /// SessionConnection's hook at connect: when the connection speaks
    /// HTTP/2 (ALPN chose `h2`, or prior knowledge on cleartext), makes
    /// its codec, tells the pool and returns true; false for HTTP/1.1
    /// (the caller goes on as before).
    package func connectionDidConnectHTTP2(_ connection: SessionConnection) -> Bool {
        let version = connection.key.httpVersion
        guard version.mayUseHTTP2, let io = connection.io else { return false }
        let speaksHTTP2 = connection.key.scheme == .https ? io.isHTTP2Negotiated : version == .http2PriorKnowledge
        guard speaksHTTP2 else { return false }
        beginTurn()
        defer { endTurn() }
        wireObserver?.sessionDidConnect()
        wireObserver?.sessionDidConnectHTTP2()
        connection.isEstablished = true
        deadlines.remove(connection)
        let codec: HTTP2ClientConnection
        do throws(HTTP2Error) {
            codec = try HTTP2ClientConnection(configuration: HTTP2Configuration())
        } catch {
            run(pool.connectionFailed(connection.id, error: error.urlError, now: now))
            return true
        }
        let owner = HTTP2SessionConnection(codec: codec, connection: connection, engine: self)
        codec.delegate = owner
        connection.http2 = owner
        if let interval = configuration.http2PingInterval {
            owner.keepAlive = HTTP2KeepAliveStateMachine(pingInterval: interval, pingTimeout: configuration.http2PingTimeout,
                                                         idleTimeout: nil, now: now)
            applyKeepAlive(owner.keepAlive!.activity(now: now), on: owner)
        }
        connection.startReading()
        run(ConnectionPoolStateMachine.Action(connection: pool.multiplexedConnectionEstablished(connection.id, now: now)))
        // The preface and our SETTINGS; streams open once the server's
        // SETTINGS came.
        owner.flush()
        return true
    }

    /// Bytes read on an HTTP/2 connection.
    package func http2DidRead(_ owner: HTTP2SessionConnection, _ bytes: UnsafeRawBufferPointer) {
        beginTurn()
        if !owner.connection.isClosed {
            owner.isReceiving = true
            owner.codec.receive(bytes, now: now)
            owner.isReceiving = false
            if owner.keepAlive != nil { applyKeepAlive(owner.keepAlive!.activity(now: now), on: owner) }
            afterHTTP2Input(owner)
        }
        endTurn()
    }

    /// The socket ended (`error` nil: end of stream) or failed: the
    /// connection takes no new stream, its open streams fail
    /// (`.networkConnectionLost`), and it closes with the last.
    package func http2DidEnd(_ owner: HTTP2SessionConnection, error: UVURLError?) {
        beginTurn()
        if !owner.connection.isClosed {
            run(ConnectionPoolStateMachine.Action(
                connection: pool.multiplexedConnectionGoingAway(owner.connection.id, now: now)))
            if !owner.connection.isClosed {
                owner.isReceiving = true
                owner.codec.connectionEnded(detail: error?.detail ?? "the server closed the connection")
                owner.isReceiving = false
                closeHTTP2(owner)
            }
        }
        endTurn()
    }

    /// After the codec ran: write its output, close a finished or failed
    /// connection, and open streams for waiting requests.
    private func afterHTTP2Input(_ owner: HTTP2SessionConnection) {
        owner.flush()
        guard !owner.connection.isClosed else { return }
        if owner.codec.failure != nil || owner.codec.isFinished {
            closeHTTP2(owner)
            return
        }
        leaseStreams(on: owner)
    }

    /// Opens a stream for each waiting request the connection has room
    /// for, and writes their HEADERS at once.
    package func leaseStreams(on owner: HTTP2SessionConnection) {
        guard owner.codec.canOpenStreams, !owner.connection.isClosed else { return }
        owner.isBatching = true
        while let id = pool.leaseStream(on: owner.connection.id) {
            executeStream(tasks[id]!, on: owner)
        }
        run(ConnectionPoolStateMachine.Action(connection: pool.connectionNeeded(besides: owner.connection.id, now: now)))
        owner.isBatching = false
        owner.flush()
    }

    /// The connection is done (failed, lost, or both sides sent GOAWAY):
    /// any stream the codec did not fail fails here, then the pool closes
    /// it.
    private func closeHTTP2(_ owner: HTTP2SessionConnection) {
        let id = owner.connection.id
        run(ConnectionPoolStateMachine.Action(connection: pool.multiplexedConnectionGoingAway(id, now: now)))
        let error = (owner.codec.failure ?? HTTP2Error(.connectionLost, detail: "the connection closed")).urlError
        for request in Array(owner.streamIDs.keys) where !owner.connection.isClosed {
            guard let task = tasks[request] else { continue }
            owner.remove(request)
            run(pool.streamFailed(request, error: error, isRetryable: false, now: now))
            _ = task
        }
        if !owner.connection.isClosed && pool.streamCount(on: id) == 0 {
            run(pool.connectionClosed(id, now: now))
        }
    }

    // MARK: Keep-alive

    /// The deadline heap's hook for an HTTP/2 connection's keep-alive
    /// timer.
    package func http2TimerFired(_ owner: HTTP2SessionConnection, now instant: HTTPDeadline) {
        // Held for the call: a PING timeout fails the last stream, the pool
        // then forgets the connection, and `owner.connection` is unowned
        // (from a read, the connection's own call holds it; from the timer
        // nothing else does).
        let connection = owner.connection
        guard !connection.isClosed, owner.keepAlive != nil else { return }
        withExtendedLifetime(connection) {
            applyKeepAlive(owner.keepAlive!.timerFired(now: instant), on: owner)
        }
    }

    /// Runs a keep-alive decision: a PING, the timer, or the connection's
    /// death (no acknowledgement: its requests fail with `.timedOut`).
    private func applyKeepAlive(_ decision: HTTP2KeepAliveStateMachine.Decision, on owner: HTTP2SessionConnection) {
        if decision.sendPing {
            owner.codec.sendPing(now: now)
            owner.flush()
        }
        if let error = decision.fail {
            owner.keepAlive = nil
            deadlines.remove(owner)
            run(ConnectionPoolStateMachine.Action(
                connection: pool.multiplexedConnectionGoingAway(owner.connection.id, now: now)))
            guard !owner.connection.isClosed else { return }
            let failure = error.urlError
            for request in Array(owner.streamIDs.keys) where !owner.connection.isClosed {
                owner.remove(request)
                run(pool.streamFailed(request, error: failure, isRetryable: false, now: now))
            }
            if !owner.connection.isClosed && pool.streamCount(on: owner.connection.id) == 0 {
                run(pool.connectionClosed(owner.connection.id, now: now))
            }
            return
        }
        if let deadline = decision.armTimer {
            deadlines.schedule(owner, at: deadline.uptimeNanoseconds)
        } else {
            deadlines.remove(owner)
        }
    }

    // MARK: Codec events

    /// One event of the codec (from inside `receive` or `produceOutput`).
    package func http2Event(_ event: HTTP2Event, on owner: HTTP2SessionConnection) {
        // Closed by an earlier event of the same read (a GOAWAY on a
        // connection without streams): the pool forgot it.
        guard !owner.connection.isClosed else { return }
        let connection = owner.connection.id
        switch event {
        case .settingsReceived(let settings):
            run(ConnectionPoolStateMachine.Action(connection: pool.multiplexedSettingsReceived(
                connection, maximumStreams: settings.maxConcurrentStreams, now: now)))
        case .goAwayReceived, .connectionFailed:
            run(ConnectionPoolStateMachine.Action(connection: pool.multiplexedConnectionGoingAway(connection, now: now)))
        case .pingAcknowledged:
            owner.pingsAcknowledged += 1
            if owner.keepAlive != nil { applyKeepAlive(owner.keepAlive!.pingAcknowledged(now: now), on: owner) }
        case .informationalHead, .trailers:
            // 1xx heads and trailers are not delivered (as over HTTP/1.1).
            break
        case .head(let id, let response):
            guard let task = owner.streams[id.rawValue]?.task else { return }
            streamHead(response, for: task, on: owner)
        case .data(let id, let bytes):
            streamData(bytes, on: id, owner)
        case .end(let id):
            guard let stream = owner.streams[id.rawValue] else { return }
            if stream.task.exchange.isPaused || !stream.held.isEmpty {
                owner.streams[id.rawValue]!.endPending = true
            } else {
                finishStream(stream.task, on: owner)
            }
        case .streamFailed(let id, let error):
            // The connection failed inside this read (a hostile peer's
            // limit, a protocol error, the socket's end): the streams fail
            // in closeHTTP2, after the codec's GOAWAY was written. Failing
            // the last one here would let the pool close the socket first.
            if owner.isReceiving, owner.codec.failure != nil { return }
            guard let task = owner.streams[id.rawValue]?.task else { return }
            owner.remove(task.requestID)
            run(pool.streamFailed(task.requestID, error: error.urlError, isRetryable: error.isRetryable, now: now))
        case .uploadWanted(let id):
            guard let task = owner.streams[id.rawValue]?.task, task.exchange.phase == .exchanging else { return }
            bodyWritesCompleted(task)
        }
    }

    // MARK: Streams

    /// `execute`'s hook: the pool leased a stream of an HTTP/2 connection
    /// to `task`. Opens it (HEADERS, and the body's DATA as the server's
    /// window allows). True when `connection` is HTTP/2.
    package func executeHTTP2(_ task: SessionTask, on connection: SessionConnection) -> Bool {
        guard let owner = connection.http2 else { return false }
        executeStream(task, on: owner)
        return true
    }

    private func executeStream(_ task: SessionTask, on owner: HTTP2SessionConnection) {
        guard case .writeRequest(let startsBody) = task.exchange.executed() else { return }
        var request = task.request
        let body: HTTP2RequestBody
        if let bytes = task.body, !bytes.isEmpty {
            body = .bytes(bytes)
            if request.headerFields[.contentLength] == nil { request.headerFields[.contentLength] = String(bytes.count) }
        } else if startsBody {
            body = .streamed
            if let length = task.spec.streamedBodyLength, request.headerFields[.contentLength] == nil {
                request.headerFields[.contentLength] = String(length)
            }
        } else {
            body = .none
        }
        let wasIdle = owner.streams.isEmpty
        let id: HTTP2StreamID
        do throws(HTTP2Error) {
            id = try owner.codec.openStream(request, body: body)
        } catch {
            // Nothing was sent: the stream goes back to the pool.
            tasks.removeValue(forKey: task.requestID)
            run(pool.cancelRequest(task.requestID, now: now))
            fail(task, error.urlError)
            return
        }
        owner.add(id, for: task)
        if let wireObserver { showRequestHead(request, to: wireObserver) }
        owner.connection.exchangeCount &+= 1
        if task.metrics != nil {
            // HPACK's compressed head size is nghttp2's; the body's bytes
            // are counted as the codec takes them (here when in memory).
            let bodyBytes = if case .bytes(let bytes) = body { bytes.count } else { 0 }
            metricsRequestStarted(task, on: owner.connection, written: bodyBytes, bodyBytes: bodyBytes)
        }
        if wasIdle {
            deadlines.remove(owner.connection)
            owner.connection.io?.setKeepsLoopAlive(true)
        }
        pool.requestWriteStarted(task.requestID)
        if task.timeouts != nil {
            applyTimeout(task, task.timeouts!.exchangeStarted(now: now))
        }
        task.exchange.requestWritten(unacknowledged: 0)
        if task.metrics != nil && !startsBody { metricsRequestWritten(task) }
        if startsBody { startBody(of: task) }
        owner.flush()
    }

    /// `detach`'s hook: the task leaves its stream (cancelled, failed, or
    /// retried): RST_STREAM(CANCEL) if it is still open. True when
    /// `connection` is HTTP/2.
    package func detachHTTP2(_ task: SessionTask, from connection: SessionConnection) -> Bool {
        guard let owner = connection.http2 else { return false }
        if let id = owner.remove(task.requestID) {
            owner.codec.cancelStream(id)
            owner.flush()
        }
        return true
    }

    /// The response head of a stream: as `process` does for HTTP/1.1
    /// (redirect policy, decoder, delivery or keeping).
    private func streamHead(_ response: HTTPResponse, for task: SessionTask, on owner: HTTP2SessionConnection) {
        if task.exchange.responseBytesReceived() == .reportFirstBytes {
            pool.responseBytesReceived(task.requestID)
        }
        if task.metrics != nil {
            metricsResponseStarted(task)
            metricsResponseHead(task, response, unparsed: 0)
        }
        task.timeouts?.activity(now: now)
        if let wireObserver { showResponseHead(response, to: wireObserver) }
        switch redirectDecision(for: task, response: response, statusCode: response.status.code) {
        case .deliver:
            _ = task.exchange.responseHead(.deliver)
            if configuration.decompressesResponses, let coding = ContentDecoder.coding(of: response) {
                installDecoder(coding, on: task)
            }
            if task.isStreaming {
                _ = offer(.head(response), for: task, on: owner.connection, rest: Self.noBytes)
            } else {
                task.response = response
                if let field = response.headerFields[.contentLength], let length = Int(field), length > 0 {
                    if let maximum = configuration.maximumResponseBodyLength, length > maximum {
                        requestFailed(task, Self.bodyTooLong(maximum))
                        return
                    }
                    task.data.reserve(length)
                }
            }
        case .follow(let step):
            task.redirects!.step = step
            _ = task.exchange.responseHead(.follow(keepsBody: step.keepsBody))
        case .fail(let error):
            requestFailed(task, error)
        }
    }

    /// A DATA chunk: delivered and consumed (the window reopens) while
    /// the subscriber has demand, held unconsumed while it has none.
    private func streamData(_ bytes: UnsafeRawBufferPointer, on id: HTTP2StreamID, _ owner: HTTP2SessionConnection) {
        guard let stream = owner.streams[id.rawValue] else { return }
        let task = stream.task
        task.timeouts?.activity(now: now)
        if task.metrics != nil { metricsReceived(task, bytes: bytes.count) }
        wireObserver?.sessionDidRead(bytes)
        if task.exchange.isPaused || !stream.held.isEmpty {
            owner.streams[id.rawValue]!.held.append(contentsOf: bytes)
            return
        }
        if deliverStreamBytes(bytes, for: task, on: owner) { return }
        owner.codec.consume(bytes.count, on: id)
        pauseStreamIfNoDemand(task)
    }

    /// A streaming task whose subscriber has no demand left pauses: the
    /// stream's window is not reopened until it asks for more.
    private func pauseStreamIfNoDemand(_ task: SessionTask) {
        guard task.isStreaming, task.exchange.phase == .exchanging, !task.exchange.isPaused,
              task.pauseIfNoDemand() else { return }
        _ = task.exchange.demandExhausted()
        task.timeouts?.exchangeEnded()
    }

    /// Hands body bytes to the task (dropped for a redirect, decoded,
    /// offered, or appended). True when delivery stopped: paused for want
    /// of demand, cancelled, or failed.
    private func deliverStreamBytes(_ bytes: UnsafeRawBufferPointer, for task: SessionTask,
                                    on owner: HTTP2SessionConnection) -> Bool {
        if task.exchange.isDiscardingBody || bytes.isEmpty { return false }
        if let decoder = task.decoder {
            return decode(bytes, with: decoder, for: task, on: owner.connection, rest: Self.noBytes)
        }
        if task.isStreaming {
            return offer(.body(bytes), for: task, on: owner.connection, rest: Self.noBytes)
        }
        if let maximum = configuration.maximumResponseBodyLength, task.data.count + bytes.count > maximum {
            requestFailed(task, Self.bodyTooLong(maximum))
            return true
        }
        task.data.append(bytes)
        return false
    }

    /// END_STREAM, with every byte delivered: as `responseEnded` for
    /// HTTP/1.1, the stream's slot going back to the pool.
    private func finishStream(_ task: SessionTask, on owner: HTTP2SessionConnection) {
        if let decoder = task.decoder {
            do throws(UVURLError) {
                try decoder.finish()
            } catch {
                requestFailed(task, error)
                return
            }
        }
        let end = task.exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false)
        if task.metrics != nil { metricsResponseEnded(task) }
        let id = task.requestID
        tasks.removeValue(forKey: id)
        owner.remove(id)
        endBodyStream(of: task, cancellingUpstream: true)
        switch end {
        case .follow:
            let action = pool.requestFinished(id, keepAlive: true, now: now)
            task.timeouts?.exchangeEnded()
            run(action)
            follow(task.redirects!.step!, for: task)
        case .deliver:
            run(pool.requestFinished(id, keepAlive: true, now: now))
            if task.isStreaming {
                complete(task, .finished)
            } else {
                let response = task.response!
                let data = task.data.take()
                task.response = nil
                complete(task, .value(data, response))
            }
        }
    }

    // MARK: Demand

    /// `resume`'s hook: demand came back for a paused stream. Offers the
    /// held part, drains the decoder, delivers the held bytes, then gives
    /// the delivered bytes back to the stream's window (WINDOW_UPDATE)
    /// and ends the response if END_STREAM came meanwhile. True when the
    /// task runs on HTTP/2.
    package func resumeHTTP2(_ task: SessionTask) -> Bool {
        guard let connection = connection(of: task), let owner = connection.http2 else { return false }
        guard let raw = owner.streamIDs[task.requestID], case .resume(let part) = task.exchange.resume() else { return true }
        let id = HTTP2StreamID(raw)
        applyTimeout(task, task.timeouts?.exchangeStarted(now: now) ?? .none)
        defer { owner.flush() }
        if let part {
            switch offerHeldPart(part, to: task) {
            case .delivered: break
            case .noDemand:
                _ = task.exchange.partRefused(part, unparsed: Self.noBytes)
                task.timeouts?.exchangeEnded()
                return true
            case .cancelled:
                return true
            }
        }
        if let decoder = task.decoder, decoder.needsDrain {
            decoder.needsDrain = false
            var pending: [UInt8] = []
            swap(&pending, &decoder.pendingInput)
            let stopped = pending.withUnsafeBytes { decode($0, with: decoder, for: task, on: connection, rest: Self.noBytes) }
            if stopped {
                credit(task, id, on: owner)
                return true
            }
        }
        if let held = owner.streams[raw]?.held, !held.isEmpty {
            owner.streams[raw]!.held = []
            let stopped = held.withUnsafeBytes { deliverStreamBytes($0, for: task, on: owner) }
            if stopped {
                credit(task, id, on: owner)
                return true
            }
        }
        credit(task, id, on: owner)
        if owner.streams[raw]?.endPending == true {
            finishStream(task, on: owner)
            return true
        }
        pauseStreamIfNoDemand(task)
        return true
    }

    /// Gives back to the stream's window what was delivered: every byte
    /// received and not consumed, less what still waits (a held part,
    /// undecoded input, held bytes).
    private func credit(_ task: SessionTask, _ id: HTTP2StreamID, on owner: HTTP2SessionConnection) {
        let waiting = task.exchange.heldByteCount + (task.decoder?.pendingInput.count ?? 0)
            + (owner.streams[id.rawValue]?.held.count ?? 0)
        let count = owner.codec.unconsumedByteCount(on: id) - waiting
        if count > 0 { owner.codec.consume(count, on: id) }
    }

    // MARK: Streamed request bodies

    /// `bodyChunk`'s hook: a chunk of a streamed body for a task on an
    /// HTTP/2 stream goes to the codec, which frames it as the server's
    /// window allows; the next is asked for at `uploadWanted`. True when
    /// the task runs on HTTP/2.
    package func http2BodyChunk(_ stream: BodyStream, _ chunk: any RequestBodyChunk) -> Bool {
        guard let task = stream.task, let connection = connection(of: task), let owner = connection.http2 else { return false }
        guard task.bodyStream === stream, task.exchange.phase == .exchanging,
              let raw = owner.streamIDs[task.requestID] else { return true }
        switch task.exchange.bodyChunkArrived(count: chunk.count, hasPendingWrites: false) {
        case .none, .requestChunk:
            bodyWritesCompleted(task)
        case .fail(let error):
            endBodyStream(of: task, cancellingUpstream: true)
            requestFailed(task, error)
        case .write:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(chunk.count)
            chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
            if task.metrics != nil { metricsBodySent(task, bytes: bytes.count) }
            owner.codec.appendUpload(bytes, to: HTTP2StreamID(raw))
            owner.flush()
        }
        return true
    }

    /// `bodyEnded`'s hook: the streamed body finished (END_STREAM on its
    /// last DATA) or failed. True when the task runs on HTTP/2.
    package func http2BodyEnded(_ stream: BodyStream, _ error: UVURLError?) -> Bool {
        guard let task = stream.task, let connection = connection(of: task), let owner = connection.http2 else { return false }
        guard task.bodyStream === stream, task.exchange.phase == .exchanging,
              let raw = owner.streamIDs[task.requestID] else { return true }
        if let error {
            endBodyStream(of: task, cancellingUpstream: true)
            requestFailed(task, error)
            return true
        }
        switch task.exchange.bodyFinished() {
        case .fail(let error):
            endBodyStream(of: task, cancellingUpstream: true)
            requestFailed(task, error)
        case .none, .writeLastChunk:
            endBodyStream(of: task, cancellingUpstream: false)
            if task.metrics != nil { metricsRequestWritten(task) }
            owner.codec.finishUpload(HTTP2StreamID(raw))
            owner.flush()
        }
        return true
    }

    // MARK: Helpers

    /// PINGs acknowledged on the session's HTTP/2 connections open now.
    /// For tests. Loop thread.
    package var http2PingsAcknowledged: Int {
        connections.values.reduce(0) { $0 + ($1.http2?.pingsAcknowledged ?? 0) }
    }

    /// The request head as HTTP/1.1 would spell it, with `HTTP/2` for the
    /// version (curl's `-v` shows HTTP/2 requests so): for the wire
    /// observer only (`uvcombine fetch -v`), which otherwise sees no
    /// bytes of an HTTP/2 connection (they are frames).
    private func showRequestHead(_ request: HTTPRequest, to observer: any SessionWireObserver) {
        var head = "\(request.method.rawValue) \(request.path ?? "/") HTTP/2\r\n"
        if let authority = request.authority { head += "Host: \(authority)\r\n" }
        for field in request.headerFields { head += "\(field.name.rawName): \(field.value)\r\n" }
        head += "\r\n"
        Array(head.utf8).withUnsafeBytes { observer.sessionWillWrite($0) }
    }

    /// The response head as curl prints an HTTP/2 one (`HTTP/2 200 `,
    /// then the fields as received): for the wire observer only.
    private func showResponseHead(_ response: HTTPResponse, to observer: any SessionWireObserver) {
        var head = "HTTP/2 \(response.status.code) \r\n"
        for field in response.headerFields { head += "\(field.name.rawName): \(field.value)\r\n" }
        head += "\r\n"
        Array(head.utf8).withUnsafeBytes { observer.sessionDidRead($0) }
    }

    /// Response bytes held on HTTP/2 streams whose subscriber has no
    /// demand (received, not consumed: at most a stream window each), over
    /// all connections. For tests. Loop thread.
    package var http2HeldByteCount: Int {
        connections.values.reduce(0) { total, connection in
            total + (connection.http2?.streams.values.reduce(0) { $0 + $1.held.count } ?? 0)
        }
    }

    /// No bytes (HTTP/2 has no unparsed rest of a read).
    private static var noBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    private static func bodyTooLong(_ maximum: Int) -> UVURLError {
        UVURLError(.dataLengthExceedsMaximum, detail: "body exceeds the maximum of \(maximum) bytes")
    }
}

extension SessionWireObserver {
    /// Ignores the protocol.
    package func sessionDidConnectHTTP2() {}
}
