#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import UVCombineHTTPCore

/// curl's `NO_PROXY` matching (lib/noproxy.c, checked against curl 7.88.1
/// with a proxy and the variable set): a list separated by commas and
/// blanks; `*` as the whole list matches every host; a host name matches
/// an entry equal to it or a domain it is under (a leading and a trailing
/// dot of the entry, a trailing dot of the host and case are ignored); an
/// IP address matches an entry that is the same address, or a CIDR range
/// (`a.b.c.d/bits`, `v6::/bits`) containing it. Entries have no port.
///
/// ```swift
/// print(NoProxyList.matches(host: "www.example.com", list: "example.com")) // Prints: "true"
/// print(NoProxyList.matches(host: "10.1.2.3", list: "10.0.0.0/8"))       // Prints: "true"
/// ```
///
/// Threading: stateless.
package enum NoProxyList {
    /// Whether `host` (as ``HTTPRequestTarget/host`` gives it: lowercased,
    /// IPv6 without brackets) is exempt from proxying under `list`.
    package static func matches(host: String, list: String) -> Bool {
        if list.isEmpty { return false }
        if list == "*" { return true }
        let address = IPAddress(host)
        var name = Substring(host)
        if address == nil, name.hasSuffix(".") { name = name.dropLast() }
        for entry in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            if let address {
                if matches(address: address, entry: entry) { return true }
            } else if matches(name: name, entry: entry) {
                return true
            }
        }
        return false
    }

    /// `entry` without a trailing and a leading dot, equal to `name` or a
    /// suffix of it after a dot; case-insensitive.
    private static func matches(name: Substring, entry: Substring) -> Bool {
        var entry = entry
        if entry.hasSuffix(".") { entry = entry.dropLast() }
        if entry.hasPrefix(".") { entry = entry.dropFirst() }
        let name = name.lowercased()
        let token = entry.lowercased()
        if token.count == name.count { return token == name }
        guard token.count < name.count, !token.isEmpty else { return false }
        return name.hasSuffix("." + token)
    }

    /// The same address, or inside `entry`'s CIDR range.
    private static func matches(address: IPAddress, entry: Substring) -> Bool {
        var network = entry
        var bits: Int?
        if let slash = entry.firstIndex(of: "/") {
            network = entry[..<slash]
            guard let value = Int(entry[entry.index(after: slash)...]), value >= 0 else { return false }
            bits = value
        }
        guard let check = IPAddress(String(network)), check.bytes.count == address.bytes.count else { return false }
        let total = address.bytes.count * 8
        // No prefix length (or 0, as curl reads it) compares the whole address.
        let prefix = (bits == nil || bits == 0) ? total : bits!
        guard prefix <= total else { return false }
        for bit in 0..<prefix {
            let byte = bit / 8
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if (address.bytes[byte] & mask) != (check.bytes[byte] & mask) { return false }
        }
        return true
    }

    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address in network order.
    private struct IPAddress {
        let bytes: [UInt8]

        init?(_ text: String) {
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                bytes = withUnsafeBytes(of: &v4) { Array($0) }
                return
            }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 {
                bytes = withUnsafeBytes(of: &v6) { Array($0) }
                return
            }
            return nil
        }
    }
}
