import CLibUV
import Synchronization
import UVCombineCore

/// Unix domain sockets on a ``UVLoop`` (libuv's `uv_pipe_t`): connecting to
/// a socket path gives a ``UVTCPConnection``, the same stream type as TCP
/// (demand-driven reads into one buffer, zero-copy writes, the same
/// handler), without the TCP-only parts (`TCP_NODELAY`, addresses).
///
/// ```swift
/// UVPipe.connect(path: "/run/nginx.sock", on: loop) { result in
///     guard case .success(let connection) = result else { return }
///     connection.handler = printer
///     connection.write(Array("GET / HTTP/1.0\r\n\r\n".utf8))
///     connection.startReading()
/// }
/// loop.run()
/// ```
///
/// Threading: as ``UVTCP``: call on the loop's thread (or before the loop
/// first ran); the completion runs on it.
public enum UVPipe {
    /// The longest socket path, in bytes: `sun_path` holds 108 bytes with
    /// its terminating NUL. libuv 1.44 would silently cut a longer one.
    public static let maximumPathLength = 107

    /// Connects to the Unix domain socket at `path`; `completion` runs once
    /// on the loop thread, in a later loop iteration (never inside this
    /// call), unless the attempt is cancelled first.
    ///
    /// Failures: a path longer than ``maximumPathLength`` bytes or with a
    /// NUL is `.invalidArgument` (`UV_ENAMETOOLONG`, `UV_EINVAL`); a path
    /// where nothing exists is `.connectionFailed` with `UV_ENOENT`, no
    /// listener on it `UV_ECONNREFUSED`, not a socket `UV_ENOTSOCK`, no
    /// permission `UV_EACCES`.
    ///
    /// Of `options`, only `readBufferSize` and `writeHighWaterMark` apply.
    ///
    /// ```swift
    /// let attempt = UVPipe.connect(path: "/tmp/app.sock", on: loop) { result in print(result) }
    /// ```
    @discardableResult
    public static func connect(
        path: String,
        on loop: UVLoop,
        options: UVTCP.Options = UVTCP.Options(),
        completion: @escaping (Result<UVTCPConnection, UVTCPError>) -> Void
    ) -> UVPipeConnectAttempt {
        loop.preconditionLoopConfined("UVPipe.connect")
        let attempt = UVPipeConnectAttempt(path: path, loop: loop, options: options, completion: completion)
        attempt.start()
        return attempt
    }
}

/// A connect to a Unix domain socket in progress (``UVPipe/connect(path:on:options:completion:)``).
/// Cancel it to close the socket; its completion then never runs.
///
/// Threading: `cancel()` from any thread (it takes effect on the loop
/// thread); everything else is the loop's.
///
/// ```swift
/// let attempt = UVPipe.connect(path: "/tmp/app.sock", on: loop) { _ in }
/// attempt.cancel()
/// ```
public final class UVPipeConnectAttempt: Cancellable, @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the mutable state is touched on the loop thread
    // only; `cancelled` is atomic; the rest is immutable.

    /// The socket path, as given.
    public let path: String
    /// The loop that runs the attempt and its completion.
    public let loop: UVLoop
    private let options: UVTCP.Options
    private let cancelled = Atomic<Bool>(false)

    // MARK: Loop thread only

    private var completion: ((Result<UVTCPConnection, UVTCPError>) -> Void)?
    /// The socket while connecting.
    private var socket: TCPSocket?

    internal init(path: String, loop: UVLoop, options: UVTCP.Options,
                  completion: @escaping (Result<UVTCPConnection, UVTCPError>) -> Void) {
        self.path = path
        self.loop = loop
        self.options = options
        self.completion = completion
    }

    /// `UVPipeConnectAttempt(path)`.
    public var description: String { "UVPipeConnectAttempt(\(path))" }

    internal func start() {
        let bytes = Array(path.utf8)
        if bytes.contains(0) || bytes.isEmpty || bytes.count > UVPipe.maximumPathLength {
            let code = bytes.count > UVPipe.maximumPathLength ? UV_ENAMETOOLONG.rawValue : UV_EINVAL.rawValue
            // Reported in a later iteration, as every other outcome.
            loop.schedule { self.finish(.failure(UVTCPError(.invalidArgument, code: code))) }
            return
        }
        let socket = TCPSocket(loop: loop)
        socket.isPipe = true
        socket.open()
        self.socket = socket
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        // The request keeps the attempt alive until its callback, which
        // libuv always runs (with UV_ECANCELED when the handle closed).
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        uv_pipe_connect(request, socket.pipe, path) { request, status in
            guard let request else { return }
            let attempt = Unmanaged<UVPipeConnectAttempt>.fromOpaque(request.pointee.data).takeRetainedValue()
            request.deallocate()
            attempt.connectFinished(status)
        }
    }

    private func connectFinished(_ status: Int32) {
        guard let socket else { return } // cancelled: the socket is closing
        self.socket = nil
        if status == 0 {
            finish(.success(UVTCPConnection(socket: socket, options: options)))
        } else {
            socket.closeHandle()
            finish(.failure(UVTCPError(.connectionFailed, code: status)))
        }
    }

    private func finish(_ result: Result<UVTCPConnection, UVTCPError>) {
        guard let completion, !cancelled.load(ordering: .acquiring) else {
            if case .success(let connection) = result { connection.close() }
            return
        }
        self.completion = nil
        completion(result)
    }

    /// Stops the attempt: the socket closes and the completion never runs.
    /// Idempotent. Any thread.
    public func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        if loop.isInLoop {
            cancelNow()
        } else {
            loop.schedule { self.cancelNow() }
        }
    }

    private func cancelNow() {
        completion = nil
        socket?.closeHandle()
        socket = nil
    }
}
