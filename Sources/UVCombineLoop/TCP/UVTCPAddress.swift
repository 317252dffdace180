import CLibUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A numeric IP address and a port, as a socket reports them
/// (``UVTCPConnection/localAddress``, ``UVTCPListener/address``).
///
/// Threading: a value type; use it anywhere.
///
/// ```swift
/// print(listener.address) // e.g. "127.0.0.1:40123" or "[::1]:40123"
/// ```
public struct UVTCPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The numeric address, e.g. `127.0.0.1` or `::1`.
    public let host: String
    /// The port.
    public let port: Int

    /// An address from its parts.
    ///
    /// ```swift
    /// let address = UVTCPAddress(host: "::1", port: 8080)
    /// ```
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Whether ``host`` is an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// `host:port`, with IPv6 hosts in brackets: `[::1]:8080`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A socket address in a `sockaddr_storage`, IPv4 or IPv6: what libuv's
/// connect and bind take.
internal struct SocketAddress {
    internal var storage = sockaddr_storage()

    /// A numeric IPv4 or IPv6 literal, with or without brackets (`[::1]`),
    /// with an optional IPv6 zone (`fe80::1%eth0`); `nil` for a name.
    internal init?(numericHost host: String, port: Int) {
        var literal = Substring(host)
        if literal.hasPrefix("[") && literal.hasSuffix("]") {
            literal = literal.dropFirst().dropLast()
        }
        let text = String(literal)
        let port32 = Int32(truncatingIfNeeded: port)
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            if !text.contains(":") {
                return uv_ip4_addr(text, port32, v4) == 0
            }
            let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            return uv_ip6_addr(text, port32, v6) == 0
        }
        if !parsed { return nil }
    }

    /// An address the resolver returned, with `port` filled in.
    internal init?(_ address: UnsafePointer<sockaddr>, length: Int, port: Int) {
        let family = Int32(address.pointee.sa_family)
        guard (family == AF_INET || family == AF_INET6), length <= MemoryLayout<sockaddr_storage>.size else { return nil }
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: length))
        }
        setPort(port)
    }

    /// The address of a socket (`uv_tcp_getsockname` and friends): `fill`
    /// writes it and its length.
    internal init?(_ fill: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<Int32>) -> Int32) {
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &storage) { raw in
            fill(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard status == 0 else { return nil }
    }

    internal var family: Int32 { Int32(storage.ss_family) }

    internal mutating func setPort(_ port: Int) {
        let networkPort = UInt16(truncatingIfNeeded: port).bigEndian
        let isIPv4 = family == AF_INET
        withUnsafeMutableBytes(of: &storage) { raw in
            if isIPv4 {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port = networkPort
            } else {
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port = networkPort
            }
        }
    }

    /// Calls `body` with the address as the `sockaddr` libuv takes.
    internal func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }

    /// The numeric host and the port.
    internal var address: UVTCPAddress {
        withUnsafeBytes(of: storage) { raw -> UVTCPAddress in
            let base = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            var name = [CChar](repeating: 0, count: 64)
            _ = uv_ip_name(base, &name, name.count)
            let networkPort = family == AF_INET
                ? raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_port
                : raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_port
            let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return UVTCPAddress(host: host, port: Int(UInt16(bigEndian: networkPort)))
        }
    }
}
