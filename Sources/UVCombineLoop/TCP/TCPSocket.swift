import CLibUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The owner of one `uv_tcp_t`: the handle memory, and the link to the
/// Swift object that uses it (a connect attempt, then a connection; or a
/// listener). Follows ``UVHandleOwner``'s rules: the memory is allocated
/// here and freed only in the close callback; `handle.data` holds this
/// object retained until then.
///
/// A socket has one use: a failed connect closes it, and the next address
/// gets a fresh one.
///
/// With ``isPipe`` set before ``open()``, the handle is a `uv_pipe_t` (a
/// Unix domain socket, ``UVPipe``) instead: the stream calls are the same,
/// and the TCP-only ones (``tcp``, the addresses) are not used.
///
/// Threading: loop thread only.
internal final class TCPSocket: UVHandleOwner {
    /// The connect attempt using this socket, until it connected or failed.
    /// Strong: the socket keeps the attempt alive while libuv may call back.
    internal var attempt: UVTCPConnectAttempt?
    /// The connection on this socket, from connecting (or accepting) until
    /// the close callback. Strong, for the same reason; the connection
    /// holds the socket too, a cycle the close callback breaks.
    internal var connection: UVTCPConnection?
    /// The listener on this socket, until the close callback.
    internal var listener: UVTCPListener?
    /// The handle is a `uv_pipe_t` (set before ``open()``).
    internal var isPipe = false

    internal var tcp: UnsafeMutablePointer<uv_tcp_t> {
        UnsafeMutableRawPointer(handle!).assumingMemoryBound(to: uv_tcp_t.self)
    }

    internal var pipe: UnsafeMutablePointer<uv_pipe_t> {
        UnsafeMutableRawPointer(handle!).assumingMemoryBound(to: uv_pipe_t.self)
    }

    internal var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle!).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// Writing to a socket the peer reset raises `SIGPIPE`, which kills the
    /// process; libuv writes with plain `write(2)`. Like Node and SwiftNIO,
    /// the first socket makes the process ignore it (the write then fails
    /// with `UV_EPIPE`, reported as a lost connection).
    private static let sigpipeIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// The socket a libuv stream callback belongs to.
    @inline(__always)
    internal static func of(_ stream: UnsafeMutablePointer<uv_stream_t>) -> TCPSocket {
        Unmanaged<TCPSocket>.fromOpaque(stream.pointee.data).takeUnretainedValue()
    }

    /// Allocates and initialises the handle (no file descriptor yet: libuv
    /// creates it on connect or bind). Loop thread.
    override internal func open() {
        guard phase == .idle else { return }
        _ = TCPSocket.sigpipeIgnored
        if isPipe {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_pipe_t>.size,
                                                       alignment: MemoryLayout<uv_pipe_t>.alignment)
            let pipe = raw.bindMemory(to: uv_pipe_t.self, capacity: 1)
            _ = uv_pipe_init(loop.uvLoop, pipe, 0) // always 0: no socket is created yet
            didOpen(UVLoop.handle(pipe))
            return
        }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_tcp_t>.size,
                                                   alignment: MemoryLayout<uv_tcp_t>.alignment)
        let tcp = raw.bindMemory(to: uv_tcp_t.self, capacity: 1)
        _ = uv_tcp_init(loop.uvLoop, tcp) // always 0: no socket is created yet
        didOpen(UVLoop.handle(tcp))
    }

    /// The loop is closing: the user of the socket stops, then the handle
    /// closes (an attempt still resolving closes it when the resolver
    /// answers, so the loop waits for that request too).
    override internal func shutdown() {
        if let attempt, attempt.loopWillClose(self) { return }
        connection?.loopWillClose()
        listener?.loopWillClose()
        closeHandle()
    }

    override internal func didClose() {
        let connection = self.connection
        let attempt = self.attempt
        let listener = self.listener
        self.connection = nil
        self.attempt = nil
        self.listener = nil
        super.didClose()
        connection?.socketDidClose()
        attempt?.socketDidClose(self)
        listener?.socketDidClose()
    }

    /// The socket's file descriptor, while open (for tests that look at the
    /// kernel's view). Loop thread.
    internal var fileDescriptor: Int32? {
        guard phase == .open, let handle else { return nil }
        var fd: uv_os_fd_t = -1
        return uv_fileno(handle, &fd) == 0 ? fd : nil
    }

    internal var localAddress: SocketAddress? {
        guard phase == .open, !isPipe else { return nil }
        let tcp = self.tcp
        return SocketAddress { uv_tcp_getsockname(tcp, $0, $1) }
    }

    internal var remoteAddress: SocketAddress? {
        guard phase == .open, !isPipe else { return nil }
        let tcp = self.tcp
        return SocketAddress { uv_tcp_getpeername(tcp, $0, $1) }
    }
}
