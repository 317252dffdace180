/// Collects the handshake answer's head: bytes up to and including the
/// blank line, at most ``maximumHeadBytes``; the bytes after it are the
/// first frames (a server may send them in the same packet).
///
/// ```swift
/// var reader = WebSocketHeadReader()
/// if let (head, rest) = try reader.append(bytes) { print(head.count, rest.count) }
/// ```
///
/// Threading: a value type.
package struct WebSocketHeadReader: Sendable {
    /// The most bytes a head may take.
    package static let maximumHeadBytes = 16 * 1024
    private var bytes: [UInt8] = []

    package init() {}

    /// Adds bytes; returns the head and what followed it once the blank
    /// line arrived.
    ///
    /// - Throws: when the head exceeds ``maximumHeadBytes``.
    package mutating func append(_ input: UnsafeRawBufferPointer) throws(WebSocketHandshakeError) -> (head: [UInt8], rest: [UInt8])? {
        let searchStart = max(bytes.count - 3, 0)
        bytes.appendRaw(input)
        var index = searchStart
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
                let head = Array(bytes[..<(index + 4)])
                let rest = Array(bytes[(index + 4)...])
                bytes = []
                return (head, rest)
            }
            index += 1
        }
        if bytes.count > Self.maximumHeadBytes {
            throw WebSocketHandshakeError("the answer's head exceeds \(Self.maximumHeadBytes) bytes")
        }
        return nil
    }
}
