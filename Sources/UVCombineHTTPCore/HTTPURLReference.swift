/// A URI reference (RFC 3986) taken apart into its five components, and
/// resolved against a base: what ``HTTPRequestTarget`` and redirects need
/// from a URL, without Foundation (the C library links no Foundation
/// module; README, "Footprint").
///
/// Parsing follows RFC 3986's appendix B split (`scheme:`, `//authority`,
/// path, `?query`, `#fragment`), then:
/// - A scheme must be a letter followed by letters, digits, `+`, `-`, `.`;
///   otherwise the text before the first `:` is part of a relative path.
/// - Bytes that may not appear in a URL (space, `"`, `<`, `>`, `\`, `^`,
///   `` ` ``, `{`, `|`, `}`, controls, non-ASCII, and a `%` not followed by
///   two hex digits) are percent-encoded in the path, query and fragment,
///   as Foundation's `URL(string:)` repairs them.
/// - The authority splits into user info (before the last `@`), host (an
///   IPv6 literal in brackets, or up to the last `:`) and port (digits,
///   possibly empty). A non-digit port or a broken bracket fails parsing.
///
/// ```swift
/// let base = HTTPURLReference(parsing: "http://example.com/a/b")!
/// let next = HTTPURLReference(parsing: "../c?x")!.resolved(against: base)
/// print(next) // Prints: "http://example.com/c?x"
/// ```
///
/// Threading: a value type; `Sendable`.
public struct HTTPURLReference: Sendable, Hashable, CustomStringConvertible {
    /// The scheme as written (not lowercased), or nil for a relative reference.
    public var scheme: String?
    /// The authority as written (`user@host:port`), or nil when there is no `//`.
    public var authority: String?
    /// The path, percent-encoded (possibly empty).
    public var path: String
    /// The query without its `?`, percent-encoded, or nil.
    public var query: String?
    /// The fragment without its `#`, or nil.
    public var fragment: String?

    /// Parses `string`; nil when it is empty, when its authority is
    /// malformed (a bracket not closed, a non-digit port) or when a
    /// scheme is followed by nothing.
    public init?(parsing string: String) {
        // The string's own UTF-8 (a copy into an array was one malloc per
        // URL; callgrind, issue 32).
        var text = string
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// ``init(parsing:)`` on the bytes.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPURLReference? {
        if bytes.isEmpty { return nil }
        var index = 0
        // Scheme: up to the first ':' if everything before it is a scheme.
        var scheme: String?
        if let colon = bytes.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/")
                                                  || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
           bytes[colon] == UInt8(ascii: ":"), colon > 0, Self.isScheme(bytes[0..<colon]) {
            scheme = String(decoding: bytes[0..<colon], as: UTF8.self)
            index = colon + 1
        }
        var authority: String?
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            let start = index + 2
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
                  bytes[end] != UInt8(ascii: "#") {
                end += 1
            }
            authority = String(decoding: bytes[start..<end], as: UTF8.self)
            index = end
        }
        var pathEnd = index
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") {
            pathEnd += 1
        }
        let path = Self.encodingInvalid(bytes[index..<pathEnd])
        index = pathEnd
        var query: String?
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
            query = Self.encodingInvalid(bytes[(index + 1)..<end])
            index = end
        }
        var fragment: String?
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            fragment = Self.encodingInvalid(bytes[(index + 1)...])
        }
        if scheme != nil, authority == nil, path.isEmpty, query == nil { return nil }
        if let authority, Self.split(authority: authority) == nil { return nil }
        return HTTPURLReference(scheme: scheme, authority: authority, path: path, query: query, fragment: fragment)
    }

    /// The authority's parts: user info (percent-encoded, or nil), host
    /// (percent-encoded, brackets removed from an IPv6 literal), port
    /// (nil when absent or empty); nil when malformed.
    public var authorityParts: (userInfo: String?, host: String, port: Int?)? {
        authority.flatMap(Self.split(authority:))
    }

    /// The reference resolved against `base` (RFC 3986, section 5.2.2),
    /// without a fragment from the base.
    public func resolved(against base: HTTPURLReference) -> HTTPURLReference {
        var result = self
        if scheme != nil {
            result.path = Self.removingDotSegments(path)
            return result
        }
        result.scheme = base.scheme
        if authority != nil {
            result.path = Self.removingDotSegments(path)
            return result
        }
        result.authority = base.authority
        if path.isEmpty {
            result.path = base.path
            if query == nil { result.query = base.query }
            return result
        }
        if path.hasPrefix("/") {
            result.path = Self.removingDotSegments(path)
            return result
        }
        // Merge: the base path up to its last '/', or "/" under an authority.
        var merged: String
        if base.authority != nil && base.path.isEmpty {
            merged = "/" + path
        } else if let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) {
            merged = String(base.path[...slash]) + path
        } else {
            merged = path
        }
        merged = Self.removingDotSegments(merged)
        result.path = merged
        return result
    }

    /// `scheme://authority/path?query#fragment`, each part where present.
    public var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// `%XX` sequences decoded; nil when a sequence is broken. The bytes
    /// need not be UTF-8: invalid sequences become U+FFFD.
    public static func percentDecoded(_ text: String) -> String? {
        // Nothing encoded (most hosts): the text itself, no copy.
        if !text.utf8.contains(UInt8(ascii: "%")) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte != UInt8(ascii: "%") {
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            out.append(high << 4 | low)
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Helpers

    private static func isScheme(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = bytes.first, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// The bytes with what a URL may not hold percent-encoded.
    private static func encodingInvalid(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        // The common case: nothing to repair, one String from the bytes.
        var needsRepair = false
        var position = bytes.startIndex
        while position < bytes.endIndex {
            let byte = bytes[position]
            if byte == UInt8(ascii: "%") {
                if position + 2 >= bytes.endIndex || hexValue(bytes[position + 1]) == nil
                    || hexValue(bytes[position + 2]) == nil {
                    needsRepair = true
                    break
                }
                position += 3
                continue
            }
            if !isAllowed(byte) {
                needsRepair = true
                break
            }
            position += 1
        }
        if !needsRepair { return String(decoding: bytes, as: UTF8.self) }
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        position = bytes.startIndex
        while position < bytes.endIndex {
            let byte = bytes[position]
            let validEscape = byte == UInt8(ascii: "%") && position + 2 < bytes.endIndex
                && hexValue(bytes[position + 1]) != nil && hexValue(bytes[position + 2]) != nil
            if validEscape || (byte != UInt8(ascii: "%") && isAllowed(byte)) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
            position += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unreserved, reserved and `%` (RFC 3986, section 2).
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24...0x3B, 0x3D, 0x3F...0x5B, 0x5D, 0x5F, 0x61...0x7A, 0x7E: true
        default: false
        }
    }

    /// On the UTF-8 view: every delimiter is ASCII, so byte indices fall
    /// on character boundaries, and a `Character` search (which steps back
    /// grapheme by grapheme) cost about 23,000 instructions per URL
    /// (callgrind, issue 32).
    private static func split(authority: String) -> (userInfo: String?, host: String, port: Int?)? {
        // On the contiguous UTF-8 bytes: `String.UTF8View`'s generic
        // backward search steps index by index (about 4,000 instructions
        // for `127.0.0.1:8080`; issue 32, the distinct-URL workload).
        var authority = authority
        return authority.withUTF8 { split(authorityBytes: $0) }
    }

    private static func split(authorityBytes all: UnsafeBufferPointer<UInt8>) -> (userInfo: String?, host: String, port: Int?)? {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: all[range]), as: UTF8.self) }
        var userInfo: String?
        var start = 0
        if let at = all.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = text(0..<at)
            start = at + 1
        }
        let end = all.count
        var host: Range<Int>
        var portText: Range<Int>?
        if start < end && all[start] == UInt8(ascii: "[") {
            guard let close = all[start...].firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = (start + 1)..<close
            let after = close + 1
            if after != end {
                guard all[after] == UInt8(ascii: ":") else { return nil }
                portText = (after + 1)..<end
            }
        } else if let colon = all[start...].lastIndex(of: UInt8(ascii: ":")) {
            host = start..<colon
            portText = (colon + 1)..<end
        } else {
            host = start..<end
        }
        var port: Int?
        if let portText, !portText.isEmpty {
            var value = 0
            var digits = 0
            for byte in all[portText] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value &* 10 &+ Int(byte - 0x30)
                digits += 1
            }
            // Ports too long for Int are out of range all the same.
            port = digits > 9 ? Int.max : value
        }
        return (userInfo, text(host), port)
    }

    /// `path` with its `.` and `..` segments resolved (RFC 3986, section
    /// 5.2.4, "Remove Dot Segments"): what resolving a reference does to
    /// its path, and what curl does to a URL's path unless `--path-as-is`.
    ///
    /// ```swift
    /// HTTPURLReference.removingDotSegments("/a/b/../c/./d") // "/a/c/d"
    /// HTTPURLReference.removingDotSegments("/a/..")         // "/"
    /// ```
    ///
    /// Threading: a pure function; any thread.
    public static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        let absolute = input.hasPrefix("/")
        if absolute { input = input.dropFirst() }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }
}
