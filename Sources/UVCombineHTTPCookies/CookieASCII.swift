/// ASCII helpers shared by the parsers: case folding and white-space
/// trimming in bytes, without Foundation.
internal enum CookieASCII {
    /// `text` with ASCII `A`–`Z` lowercased; other bytes kept.
    internal static func lowercased(_ text: some StringProtocol) -> String {
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] += 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` is RFC 6265's WSP (space or horizontal tab).
    internal static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `text` without leading and trailing spaces and tabs. Why byte
    /// indices throughout: a combining mark after a delimiter would join
    /// it in one Character, and the Character view would step over both.
    internal static func trimmed(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }) else { return text[text.endIndex...] }
        let last = utf8.lastIndex(where: { !isWhitespace($0) })!
        return text[first..<utf8.index(after: last)]
    }

    /// `text` after the byte at `index` (an ASCII delimiter).
    internal static func after(_ index: Substring.Index, in text: Substring) -> Substring {
        text[text.utf8.index(after: index)...]
    }

    /// Whether `byte` is an ASCII digit.
    internal static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Whether `text` holds a control character (%x00-1F, %x7F). Why
    /// horizontal tab too, which RFC 6265bis allows inside a value: a tab
    /// would break the jar format's columns, and curl's jar parser.
    internal static func containsControl(_ text: some StringProtocol) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
