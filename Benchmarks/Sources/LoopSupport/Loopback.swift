#if canImport(Glibc)
import Glibc
#endif

/// 127.0.0.1 for the servers the workloads start: a free port, a
/// connected blocking socket, whether a port accepts.
///
/// Threading: stateless; call from any thread.
///
/// ```swift
/// let port = Loopback.freePort()
/// // ... start a server on it ...
/// let ready = Loopback.canConnect(port: port)
/// ```
public enum Loopback {
    /// A loopback port nobody listens on now: bound to port 0, read back,
    /// closed. (Another process could take it before the server does; the
    /// server then fails to start, and its starter reports it.)
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket")
        defer { close(fd) }
        var address = address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0, "bind: \(errno)")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// 127.0.0.1:`port`.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A blocking socket connected to 127.0.0.1:`port`, or -1.
    public static func connectedSocket(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = address(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if status != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    /// Whether something accepts connections on 127.0.0.1:`port` now.
    public static func canConnect(port: Int) -> Bool {
        let fd = connectedSocket(port: port)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}
