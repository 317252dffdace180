import HTTPTypes
import UVCombineHTTPCore

// Responses: received bytes through the connection's parser (and the
// content decoder), into a data task's body or a streaming task's parts,
// until the response ends and the task follows a redirect or delivers.
extension SessionEngine {
    // MARK: Responses

    /// Feeds received bytes to the connection's parser and acts on the
    /// events. Returns true when the task's exchange ended (finished,
    /// failed, redirected) or the task paused or was cancelled: the caller
    /// must not touch the connection on the task's behalf any more.
    package func process(_ input: UnsafeRawBufferPointer, for task: SessionTask, on connection: SessionConnection) -> Bool {
        if task.exchange.responseBytesReceived() == .reportFirstBytes {
            pool.responseBytesReceived(task.requestID)
            if task.metrics != nil { metricsResponseStarted(task) }
        }
        task.timeouts?.activity(now: now)
        var rest = input
        while true {
            let event: HTTPResponseParser.Event
            let consumed: Int
            do throws(UVURLError) {
                (event, consumed) = try connection.parser.next(rest)
            } catch {
                requestFailed(task, error)
                return true
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            switch event {
            case .head(let response):
                if task.metrics != nil { metricsResponseHead(task, response, unparsed: rest.count) }
                if let storage = configuration.httpCookieStorage { storeCookies(of: response, for: task, in: storage) }
                let statusCode = connection.parser.statusCode
                if statusCode == 401 || statusCode == 407,
                   answersChallenge(task, response, statusCode: statusCode, on: connection) {
                    // The body is dropped; the answer goes when it ended.
                    _ = task.exchange.responseHead(.follow(keepsBody: true))
                    continue
                }
                switch redirectDecision(for: task, response: response, statusCode: connection.parser.statusCode) {
                case .deliver:
                    _ = task.exchange.responseHead(.deliver)
                    if configuration.decompressesResponses, connection.parser.hasContentEncoding,
                       let coding = ContentDecoder.coding(of: response) {
                        installDecoder(coding, on: task)
                    }
                    if task.isStreaming {
                        if offer(.head(response), for: task, on: connection, rest: rest) { return true }
                    } else {
                        task.response = response
                        if let length = connection.parser.announcedBodyLength { task.data.reserve(length) }
                    }
                case .follow(let step):
                    // redirectDecision made `redirects` before it said so.
                    task.redirects!.step = step
                    // The body is dropped (`isDiscardingBody`).
                    _ = task.exchange.responseHead(.follow(keepsBody: step.keepsBody))
                case .fail(let error):
                    requestFailed(task, error)
                    return true
                }
            case .body(let slice):
                guard !task.exchange.isDiscardingBody else { continue }
                if let decoder = task.decoder {
                    if decode(slice, with: decoder, for: task, on: connection, rest: rest) { return true }
                } else if task.isStreaming {
                    // A body event is never empty (HTTPResponseParser.Event.body).
                    if offer(.body(UnsafeRawBufferPointer(slice)), for: task, on: connection, rest: rest) { return true }
                } else {
                    task.data.append(slice)
                }
            case .end(let keepAlive):
                responseEnded(task, on: connection, keepAlive: keepAlive, hasTrailingBytes: !rest.isEmpty)
                return true
            case .needMoreData:
                return false
            }
        }
    }

    /// Decodes a run of encoded body bytes and delivers what comes out: a
    /// data task appends it to its body, a streaming task gets it in parts
    /// of at most ``decodeBufferSize`` bytes, each taking one unit of
    /// demand. Returns true when processing must stop: the stream is
    /// corrupt or the decoded body too long (the task failed), the
    /// subscriber has no demand (paused: the undecoded rest of `encoded`
    /// stays with the decoder, `rest` goes to the stash), or it cancelled.
    package func decode(_ encoded: UnsafeRawBufferPointer, with decoder: ContentDecoder, for task: SessionTask,
                         on connection: SessionConnection, rest: UnsafeRawBufferPointer) -> Bool {
        let output = decodeBuffer ?? {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.decodeBufferSize, alignment: 16)
            decodeBuffer = buffer
            return buffer
        }()
        var input = encoded
        while true {
            let count: Int
            do throws(UVURLError) {
                count = try decoder.decode(&input, into: output)
            } catch {
                requestFailed(task, error)
                return true
            }
            if count > 0 {
                task.decodedLength += count
                if let maximum = configuration.maximumResponseBodyLength, task.decodedLength > maximum {
                    requestFailed(task, UVURLError(.dataLengthExceedsMaximum,
                                                   detail: "decoded body exceeds the maximum of \(maximum) bytes"))
                    return true
                }
                if task.isStreaming {
                    let part = StreamedPart.body(UnsafeRawBufferPointer(start: output.baseAddress!, count: count))
                    if offer(part, for: task, on: connection, rest: rest) {
                        if task.exchange.isPaused {
                            decoder.pendingInput.append(contentsOf: input)
                            decoder.needsDrain = true
                        }
                        return true
                    }
                } else {
                    task.data.append(UnsafeRawBufferPointer(start: output.baseAddress!, count: count))
                }
            }
            if input.isEmpty && count < output.count { return false }
        }
    }

    /// The response ended: the connection goes back to the pool (kept
    /// alive when the exchange machine says it may carry another exchange:
    /// `keepAlive`, no bytes after the response, no request still being
    /// written, no streamed body cut short), then the task follows its
    /// redirect or delivers.
    package func responseEnded(_ task: SessionTask, on connection: SessionConnection, keepAlive: Bool,
                                hasTrailingBytes: Bool) {
        if let decoder = task.decoder {
            do throws(UVURLError) {
                try decoder.finish()
            } catch {
                // The connection is closed: its exchange failed.
                requestFailed(task, error)
                return
            }
        }
        if task.metrics != nil { metricsResponseEnded(task) }
        let end = task.exchange.responseEnded(keepAlive: keepAlive, hasTrailingBytes: hasTrailingBytes,
                                              hasPendingWrites: connection.io?.hasPendingWrites ?? true)
        let id = task.requestID
        tasks.removeValue(forKey: id)
        detach(task, from: connection)
        switch end {
        case .follow(let reusable):
            let action = pool.requestFinished(id, keepAlive: reusable, now: now)
            task.timeouts?.exchangeEnded()
            run(action)
            if let authentication = task.authentication, let answer = authentication.pending {
                authentication.pending = nil
                sendAnswer(answer, for: task)
            } else {
                // `responseHead(.follow)` came with the step.
                follow(task.redirects!.step!, for: task)
            }
        case .deliver(let reusable):
            run(pool.requestFinished(id, keepAlive: reusable, now: now))
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
}
