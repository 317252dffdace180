import CLibUV
import UVCombineCore

#if canImport(Glibc)
import Glibc
#endif

/// An established TCP connection on a ``UVLoop``: demand-driven reading
/// into one reused buffer, writes that keep their bytes alive without
/// copying them, and a close that takes effect at once.
///
/// Get one from ``UVTCP/connect(host:port:on:options:completion:)`` or from
/// a ``UVTCPListener``.
///
/// ## Reading
///
/// Reading is driven by demand, as a Combine subscription is: each read
/// delivers one chunk and consumes one unit of ``readDemand``.
/// ``requestReads(_:)`` adds demand, ``startReading()`` asks for everything
/// (`.unlimited`), ``stopReading()`` drops it to zero. The socket is read
/// (`uv_read_start`) only while there is demand; at zero demand it is not
/// read at all (`uv_read_stop`), so the kernel's buffers fill and the peer
/// is throttled: backpressure reaches the network.
///
/// Chunks go to the ``handler`` as `UnsafeRawBufferPointer`s into the
/// connection's one read buffer, allocated on the first read and reused for
/// every read: reading allocates nothing per read. For owned `Data` chunks
/// (one allocation and copy per chunk) subscribe to `dataPublisher()` (UVCombineLoopFoundation).
///
/// ## Writing
///
/// ``write(_:completion:)`` hands the array's storage to libuv and keeps it
/// alive until the write callback; nothing is copied. Writes complete in
/// order. ``writeQueueSize`` is what libuv still holds (bytes the kernel
/// did not take yet); past ``writeHighWaterMark`` `write` returns `false`
/// and the handler hears ``UVTCPConnectionHandler/connectionDidBecomeWritable(_:)``
/// once the queue drained below the mark, as Node's `write()` and `drain`.
///
/// ## Ending and closing
///
/// The end of the incoming stream (end of file, or an error) is reported
/// once. After an error the connection closes itself; after end of file it
/// closes itself once its queued writes completed. ``close()`` closes the
/// socket at once (the peer sees the end of file in its next read), drops
/// the handler (no callback runs after `close()`), and drops queued writes
/// without calling their completions. The connection object stays usable
/// for reading its state, and is released when you let go of it (the loop
/// keeps an open connection alive until it is closed).
///
/// ## Threading
///
/// Loop-confined: every member runs on the loop's thread (inside a
/// callback, a scheduled action, or a handler method), and traps elsewhere,
/// except ``loop``, ``close()`` (any thread; from another thread the socket
/// closes in the loop's next iteration) and `dataPublisher()` (UVCombineLoopFoundation; whose
/// subscriptions may be used from any thread).
///
/// ```swift
/// UVTCP.connect(host: "example.com", port: 80, on: loop) { result in
///     guard case .success(let connection) = result else { return }
///     connection.handler = printer          // a UVTCPConnectionHandler
///     connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
///     connection.startReading()
/// }
/// loop.run()
/// ```
public final class UVTCPConnection: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: loop-confined; every member but `loop`, `close()`
    // and `dataPublisher()` checks that it runs on the loop thread, and
    // those three are thread-safe.

    /// The loop whose thread runs this connection.
    public let loop: UVLoop
    internal let socket: TCPSocket
    /// The size of the one read buffer.
    public let readBufferSize: Int

    internal enum State {
        case open
        /// End of file was reported: close once the writes completed.
        case ended
        case closed
    }

    // MARK: Loop thread only

    internal var state: State = .open
    // Unchecked exclusivity: read on every read callback (see `writes`).
    @exclusivity(unchecked) internal var storedHandler: (any UVTCPConnectionHandler)?
    @exclusivity(unchecked) internal var demand: Subscribers.Demand = .none
    /// `uv_read_start` is in effect.
    internal var isReadStarted = false
    internal var endReported = false
    internal var readBuffer: UnsafeMutableRawPointer?
    /// Where the next reads go instead of ``readBuffer`` while set: a
    /// handler that knows where the bytes belong (an HTTP body of known
    /// length, collected into one buffer) has the kernel copy them there,
    /// and is handed them there. The memory must stay valid until the
    /// target is cleared or the connection closes. Loop thread.
    @exclusivity(unchecked) package var readTarget: UnsafeMutableRawBufferPointer?
    /// Where the read in progress goes (``readBuffer`` or ``readTarget``).
    @exclusivity(unchecked) private var currentReadBase: UnsafeMutableRawPointer?
    // Unchecked exclusivity (here and on `demand`, `readTarget` and
    // `writeHighWaterMark`): loop-thread state that no method changes while
    // it calls out (completions run after `finish` returns, handlers after
    // `demand` was updated); each dynamic check cost about 76 instructions,
    // several per HTTP request (callgrind, issue 17).
    @exclusivity(unchecked) internal var writes = TCPWriteSlots()
    /// A `write` returned `false`: tell the handler when the queue drained.
    internal var owesWritableNotification = false
    /// How many read buffers this connection allocated: 0 before the first
    /// read, 1 after (the buffer is reused). For tests.
    package private(set) var readBufferCount = 0
    /// Reads delivered (`nread > 0`). For tests.
    @exclusivity(unchecked) package private(set) var readCount = 0
    /// Whether the socket is being read (`uv_read_start` in effect). For tests.
    package var isReadingSocket: Bool { isReadStarted }
    /// The socket's file descriptor while open. For tests.
    package var fileDescriptor: Int32? { socket.fileDescriptor }

    /// Wraps a connected (or accepted) socket. Loop thread.
    internal init(socket: TCPSocket, options: UVTCP.Options) {
        loop = socket.loop
        self.socket = socket
        readBufferSize = min(max(options.readBufferSize, 1), Int(UInt32.max))
        writeHighWaterMark = options.writeHighWaterMark
        socket.connection = self
        if options.noDelay && !socket.isPipe { _ = uv_tcp_nodelay(socket.tcp, 1) }
    }

    deinit {
        // The socket retains the connection until its close callback, which
        // released the buffers; only a connection whose socket never opened
        // gets here with them.
        readBuffer?.deallocate()
    }

    /// `UVTCPConnection(local → remote)` while open on the loop thread,
    /// `UVTCPConnection(closed)` after; just `UVTCPConnection` on other
    /// threads. Any thread.
    public var description: String {
        guard loop.isInLoop else { return "UVTCPConnection" }
        if socket.isPipe { return state == .closed ? "UVTCPConnection(closed)" : "UVTCPConnection(unix socket)" }
        guard let local = localAddress, let remote = remoteAddress else { return "UVTCPConnection(closed)" }
        return "UVTCPConnection(\(local) → \(remote))"
    }

    // MARK: Handler and state

    /// Receives reads, the end of the stream and writability; held strongly
    /// until the connection closes. Loop thread.
    public var handler: (any UVTCPConnectionHandler)? {
        get {
            loop.preconditionInLoop()
            return storedHandler
        }
        set {
            loop.preconditionInLoop()
            storedHandler = state == .closed ? nil : newValue
        }
    }

    /// Whether ``close()`` ran (or the connection closed itself). Loop thread.
    public var isClosed: Bool {
        loop.preconditionInLoop()
        return state == .closed
    }

    /// Whether the connection keeps ``UVLoop/run(_:)`` running while it
    /// reads or writes (libuv's `uv_ref`); `true` by default. An idle pooled
    /// connection sets it to `false`: it keeps reading (to notice the server
    /// closing it) without keeping the program alive, as Node unrefs its
    /// free sockets. Loop thread.
    ///
    /// ```swift
    /// connection.keepsLoopAlive = false // parked in a pool
    /// ```
    public var keepsLoopAlive: Bool {
        get {
            loop.preconditionInLoop()
            return state != .closed && uv_has_ref(socket.handle) != 0
        }
        set {
            loop.preconditionInLoop()
            guard state != .closed else { return }
            if newValue { uv_ref(socket.handle) } else { uv_unref(socket.handle) }
        }
    }

    /// The local address, while open. Loop thread.
    public var localAddress: UVTCPAddress? {
        loop.preconditionInLoop()
        return socket.localAddress?.address
    }

    /// The peer's address, while open. Loop thread.
    public var remoteAddress: UVTCPAddress? {
        loop.preconditionInLoop()
        return socket.remoteAddress?.address
    }

    // MARK: Reading

    /// The outstanding read demand: how many more chunks may be read. Loop
    /// thread.
    public var readDemand: Subscribers.Demand {
        loop.preconditionInLoop()
        return demand
    }

    /// Adds `demand` (not `.none`) to the read demand and starts reading the
    /// socket if it was not. Ignored once the stream ended or the
    /// connection closed. Loop thread.
    ///
    /// ```swift
    /// connection.requestReads(.max(1)) // one more chunk
    /// ```
    public func requestReads(_ demand: Subscribers.Demand) {
        loop.preconditionInLoop()
        if demand == .none { violation("UVTCPConnection.requestReads(.none): demand must not be zero") }
        guard state == .open, !endReported else { return }
        self.demand += demand
        if !isReadStarted { startSocketReads() }
    }

    /// Reads everything that arrives: `requestReads(.unlimited)`. Loop thread.
    public func startReading() {
        requestReads(.unlimited)
    }

    /// Drops the read demand to zero and stops reading the socket now (also
    /// from inside a read callback): no chunk arrives until demand is
    /// requested again. Loop thread.
    public func stopReading() {
        loop.preconditionInLoop()
        demand = .none
        stopSocketReads()
    }

    private func startSocketReads() {
        let status = uv_read_start(socket.stream, { handle, _, buffer in
            // alloc_cb: always the connection's one buffer.
            guard let handle, let buffer, let connection = TCPSocket.of(UVTCPConnection.stream(handle)).connection else { return }
            buffer.pointee = connection.takeReadBuffer()
        }, { stream, nread, _ in
            guard let stream, let connection = TCPSocket.of(stream).connection else { return }
            #if DEBUG
            // Bytes or end of file may be replaced by an injected error.
            if nread != 0, let status = UVTCPFaultInjection.take(.read, on: connection.loop) {
                connection.didFail(status)
                return
            }
            #endif
            if nread > 0 {
                connection.didRead(count: nread)
            } else if nread < 0 {
                connection.didFail(Int32(truncatingIfNeeded: nread))
            }
            // nread == 0: nothing was read (EAGAIN); libuv hands the buffer back.
        })
        if status == 0 {
            isReadStarted = true
        } else {
            // A socket libuv cannot read (it never happens on an open TCP
            // stream); report it as a broken connection.
            end(with: UVTCPError(.connectionLost, code: status))
        }
    }

    private func stopSocketReads() {
        guard isReadStarted else { return }
        isReadStarted = false
        if state != .closed { _ = uv_read_stop(socket.stream) }
    }

    @inline(__always)
    private static func stream(_ handle: UnsafeMutablePointer<uv_handle_t>) -> UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
    }

    private func takeReadBuffer() -> uv_buf_t {
        if let target = readTarget, let base = target.baseAddress, !target.isEmpty {
            currentReadBase = base
            return uv_buf_init(base.assumingMemoryBound(to: CChar.self), UInt32(clamping: target.count))
        }
        let buffer: UnsafeMutableRawPointer
        if let readBuffer {
            buffer = readBuffer
        } else {
            buffer = UnsafeMutableRawPointer.allocate(byteCount: readBufferSize, alignment: 16)
            readBuffer = buffer
            readBufferCount += 1
        }
        currentReadBase = buffer
        return uv_buf_init(buffer.assumingMemoryBound(to: CChar.self), UInt32(clamping: readBufferSize))
    }

    private func didRead(count: Int) {
        readCount &+= 1
        if !demand.isUnlimited { demand -= 1 }
        if let handler = storedHandler {
            handler.connection(self, didRead: UnsafeRawBufferPointer(start: currentReadBase, count: count))
        }
        // Stopped after the handler, so that a handler that asks for one
        // chunk at a time does not stop and restart the socket each time.
        if demand == .none { stopSocketReads() }
    }

    private func didFail(_ status: Int32) {
        if status == UV_EOF.rawValue {
            end(with: nil)
        } else {
            end(with: UVTCPError(.connectionLost, code: status))
        }
    }

    /// Reports the end of the stream once, then closes now (error) or once
    /// the writes completed (end of file).
    private func end(with error: UVTCPError?) {
        guard state == .open, !endReported else { return }
        endReported = true
        demand = .none
        stopSocketReads()
        if let handler = storedHandler {
            handler.connection(self, didEndWith: error)
        }
        guard state == .open else { return } // the handler closed it
        if error != nil || writes.pendingCount == 0 {
            closeNow()
        } else {
            state = .ended
        }
    }

    // MARK: Writing

    /// The high-water mark for ``writeQueueSize``: at or above it, ``write(_:completion:)``
    /// returns `false`. Writes are still accepted; the mark tells a
    /// producer when to pause. Loop thread.
    @exclusivity(unchecked) public var writeHighWaterMark: Int

    /// Bytes libuv holds that the kernel has not taken yet
    /// (`uv_stream_get_write_queue_size`); 0 after close. Loop thread.
    public var writeQueueSize: Int {
        loop.preconditionInLoop()
        return state == .closed ? 0 : Int(uv_stream_get_write_queue_size(socket.stream))
    }

    /// Bytes written that the peer has not acknowledged yet: what libuv
    /// still holds (``writeQueueSize``) plus the kernel's send queue
    /// (`SIOCOUTQ`, Linux); 0 after close. A completed write only means
    /// the kernel took the bytes; this falls as the peer actually reads
    /// them, which is how a caller sees a slow upload progress after the
    /// last write completed. One `ioctl` per call. Loop thread.
    ///
    /// ```swift
    /// let before = connection.unacknowledgedByteCount
    /// // later: a smaller value means the peer took bytes meanwhile
    /// ```
    public var unacknowledgedByteCount: Int {
        loop.preconditionInLoop()
        guard state != .closed else { return 0 }
        var kernel: Int32 = 0
        #if canImport(Glibc)
        if let fd = socket.fileDescriptor, ioctl(fd, UInt(TIOCOUTQ), &kernel) != 0 { kernel = 0 }
        #endif
        return writeQueueSize + Int(kernel)
    }

    /// Writes whose completion has not run yet. Loop thread.
    public var pendingWriteCount: Int {
        loop.preconditionInLoop()
        return writes.pendingCount
    }

    /// Whether ``writeQueueSize`` is below ``writeHighWaterMark``. Loop thread.
    public var isWritable: Bool {
        writeQueueSize < writeHighWaterMark
    }

    /// Queues `bytes` for sending and returns whether the write queue is
    /// still below the high-water mark (`false`: pause, and wait for
    /// ``UVTCPConnectionHandler/connectionDidBecomeWritable(_:)``).
    ///
    /// The array's storage is handed to libuv as it is and kept alive until
    /// the write completed, then released, before `completion` runs: a
    /// producer that reuses one array per connection writes without
    /// allocating or copying (its next mutation finds the storage unique
    /// again). Writes complete in order. `completion` (optional; run on the
    /// loop thread) gets `nil`, or the error that broke the connection (the
    /// handler then also hears the end of the stream, and the connection
    /// closes). Passing a closure stored once costs nothing per write; a
    /// closure literal with captures allocates its context.
    ///
    /// Loop thread. Traps on a closed connection (check ``isClosed``; the
    /// handler hears of every close the connection makes by itself).
    ///
    /// ```swift
    /// connection.write(Array("ping\n".utf8)) { error in
    ///     if let error { print("write failed: \(error)") }
    /// }
    /// ```
    @discardableResult
    public func write(_ bytes: [UInt8], completion: ((UVError?) -> Void)? = nil) -> Bool {
        loop.preconditionInLoop()
        if state == .closed { violation("UVTCPConnection.write: the connection is closed") }
        // libuv keeps the pointer until the write callback: it points into
        // the array the slot keeps, unmutated, until then (TCPWriteSlots).
        let (index, request, slotBuffer) = writes.take(bytes, completion: completion)
        var buffer = slotBuffer
        let status = uv_write(request, socket.stream, &buffer, 1) { request, status in
            guard let request, let stream = request.pointee.handle,
                  let connection = TCPSocket.of(stream).connection else { return }
            connection.didWrite(TCPWriteSlots.index(of: request), status: status)
        }
        if status < 0 {
            // libuv refused the write (the stream is not writable): no
            // callback will come. Complete it in a later iteration, never
            // inside this call, and end the connection.
            let completion = writes.finish(index)
            if let completion {
                loop.schedule { completion(UVError(code: status)) }
            }
            end(with: UVTCPError(.connectionLost, code: status))
            return false
        }
        let writable = isWritable
        if !writable { owesWritableNotification = true }
        return writable
    }

    private func didWrite(_ index: Int, status: Int32) {
        #if DEBUG
        var status = status
        if status == 0, let injected = UVTCPFaultInjection.take(.write, on: loop) { status = injected }
        #endif
        let completion = writes.finish(index)
        // Closed: pending writes come back cancelled; drop them.
        guard state != .closed else { return }
        if status < 0 {
            completion?(UVError(code: status))
            if state == .open {
                end(with: UVTCPError(.connectionLost, code: status))
            } else {
                closeNow()
            }
            return
        }
        completion?(nil)
        if state == .ended && writes.pendingCount == 0 {
            closeNow()
            return
        }
        if owesWritableNotification && state != .closed && isWritable {
            owesWritableNotification = false
            storedHandler?.connectionDidBecomeWritable(self)
        }
    }

    // MARK: Closing

    /// Closes the socket now: the file descriptor is closed inside this call
    /// (the peer reads end of file), reading stops, the handler is released
    /// and hears nothing more, and queued writes are dropped without their
    /// completions. Idempotent.
    ///
    /// Any thread: on the loop thread it acts at once; from another thread
    /// it acts in the loop's next iteration.
    ///
    /// ```swift
    /// connection.close()
    /// ```
    public func close() {
        if loop.isInLoop {
            closeNow()
        } else {
            loop.schedule { self.closeNow() }
        }
    }

    internal func closeNow() {
        guard state != .closed else { return }
        state = .closed
        isReadStarted = false
        demand = .none
        let handler = storedHandler
        storedHandler = nil
        socket.closeHandle()
        // A data publisher's subscriber learns that its stream is gone (a
        // handler hears nothing after close; a subscriber needs an end).
        (handler as? TCPDataSubscriptionBase)?.connectionWasClosed()
        // Released after the state is consistent: its deinit may use us.
        _ = handler
    }

    /// The loop is closing. Loop thread.
    internal func loopWillClose() {
        closeNow()
    }

    /// The socket's close callback ran: libuv is done with the buffers.
    internal func socketDidClose() {
        state = .closed
        writes.deallocateAll()
        readBuffer?.deallocate()
        readBuffer = nil
    }
}
