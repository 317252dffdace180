import CLibUV

extension UVTCPConnection {
    /// Whether this open connection keeps ``UVLoop/run(_:)`` running
    /// (`uv_ref` / `uv_unref` on its handle). True when opened.
    ///
    /// Library code that keeps idle connections open for reuse (the URL
    /// session's keep-alive pool) sets it to false while a connection is
    /// idle, so that a program's `loop.run()` returns when its own work is
    /// done, as Node's HTTP agent unrefs its free sockets. Writes in flight
    /// keep the loop alive regardless (libuv counts active requests).
    /// Setting it on a closed connection does nothing.
    ///
    /// ```swift
    /// connection.keepsLoopAlive = false // idle in a pool
    /// ```
    ///
    /// Loop thread.
    package var keepsLoopAlive: Bool {
        get {
            loop.preconditionInLoop()
            guard state != .closed, let handle = socket.handle else { return false }
            return uv_has_ref(handle) != 0
        }
        set {
            loop.preconditionInLoop()
            guard state != .closed, let handle = socket.handle else { return }
            if newValue { uv_ref(handle) } else { uv_unref(handle) }
        }
    }
}
