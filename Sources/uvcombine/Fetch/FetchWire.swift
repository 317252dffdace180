import Foundation
import UVCombine
import UVCombineHTTP

/// Watches one exchange's bytes on the wire (through the session's
/// package-level ``SessionWireObserver`` hook) to do what curl does with
/// the raw heads:
///
/// - `-i`/`-I`: every response head (interim `100 Continue` heads too) is
///   written to the output exactly as received, CRLFs and all;
/// - `-v`: the request head's lines go to standard error as `> line`, the
///   response heads' as `< line`, curl's format;
/// - `-w`: the head sizes, the HTTP version (`1.0` or `1.1`) and the
///   times of connection and first response byte.
///
/// Only the heads are scanned; once the final head is complete, body bytes
/// are only counted out. Loop thread only.
final class FetchWire: SessionWireObserver {
    private let outputs: [FetchOutput]
    private let verbose: Bool
    private let endpoint: String
    private let clock: FetchClock

    /// Response head bytes not yet complete.
    private var pending: [UInt8] = []
    private var headsDone = false
    /// A failure writing a head to the output.
    private(set) var writeError: FetchOutput.WriteError?

    private(set) var requestBytes = 0
    private var wroteRequestHead = false
    private(set) var headerBytes = 0
    /// `1` (HTTP/1.0) or `1.1`, from the final status line, as curl's
    /// `%{http_version}` spells them.
    private(set) var httpVersion: String?
    private(set) var connectedAt: Double?
    private(set) var requestWrittenAt: Double?
    private(set) var firstByteAt: Double?
    private(set) var connectionCount = 0

    /// `outputs` receive the heads (`-i`/`-I`: the body's output; `-D`).
    /// `endpoint` names the server in `-v`'s `* Connected to` line.
    init(outputs: [FetchOutput], verbose: Bool, clock: FetchClock, endpoint: String = "") {
        self.outputs = outputs
        self.endpoint = endpoint
        self.verbose = verbose
        self.clock = clock
    }

    func sessionDidConnect() {
        connectionCount += 1
        if connectedAt == nil { connectedAt = clock.seconds }
        if verbose { FetchOutput.writeStandardError(Array("* Connected to \(endpoint)\n".utf8)) }
    }

    /// curl's `%{http_version}` for HTTP/2 is `2`.
    func sessionDidConnectHTTP2() {
        httpVersion = "2"
    }

    func sessionWillWrite(_ bytes: UnsafeRawBufferPointer) {
        requestBytes += bytes.count
        requestWrittenAt = clock.seconds
        // Only the first write of an exchange starts with the head (a body
        // written in parts would come as more writes).
        let isHead = !wroteRequestHead
        wroteRequestHead = true
        guard verbose else { return }
        guard isHead else {
            FetchOutput.writeStandardError(Array("} [\(bytes.count) bytes data]\n".utf8))
            return
        }
        // The head: up to and including the empty line.
        let head = Self.headLength(bytes) ?? bytes.count
        var text: [UInt8] = []
        for line in Self.lines(UnsafeRawBufferPointer(rebasing: bytes[0..<head])) {
            text.append(contentsOf: "> ".utf8)
            text.append(contentsOf: line)
        }
        if head < bytes.count {
            text.append(contentsOf: "} [\(bytes.count - head) bytes data]\n".utf8)
        }
        FetchOutput.writeStandardError(text)
    }

    func sessionDidRead(_ bytes: UnsafeRawBufferPointer) {
        if firstByteAt == nil { firstByteAt = clock.seconds }
        guard !headsDone else {
            countBody(bytes)
            return
        }
        pending.append(contentsOf: bytes)
        // Heads complete in `pending`: write each, drop it, look again
        // (a 1xx head is followed by another).
        while !headsDone, let length = pending.withUnsafeBytes({ Self.headLength($0) }) {
            pending.withUnsafeBytes { all in
                emit(UnsafeRawBufferPointer(rebasing: all[0..<length]))
            }
            // "HTTP/1.1 200" or, from an HTTP/2 stream, "HTTP/2 200".
            let code = pending.count > 5 && pending[5] == UInt8(ascii: "2") ? 7 : 9
            let isInterim = pending.count > code && pending[code] == UInt8(ascii: "1")
                && !(pending.count > code + 2 && pending[code + 1] == UInt8(ascii: "0") && pending[code + 2] == UInt8(ascii: "1"))
            if !isInterim {
                let head = String(decoding: pending[0..<length], as: UTF8.self).lowercased()
                isChunked = head.contains("\ntransfer-encoding:") && head.contains("chunked")
                // "HTTP/1.x"
                // curl's %{http_version}: "1" for HTTP/1.0, "1.1".
                if pending.count > 7 {
                    httpVersion = code == 7 ? "2" : pending[7] == UInt8(ascii: "0") ? "1" : "1.1"
                }
                headsDone = true
            }
            pending.removeFirst(length)
        }
        if headsDone {
            let body = pending
            pending = []
            body.withUnsafeBytes { countBody($0) }
        }
    }

    /// Body bytes as sent (before any content decoding), without the
    /// chunked framing: curl's `%{size_download}` with `--compressed`.
    private(set) var encodedBodyBytes = 0
    private var isChunked = false
    /// The chunked framing's state: bytes of chunk data left, or reading
    /// a size line (`sizeLine`), or the CRLF after data, or done (`0` chunk).
    private var chunkLeft = 0
    private var chunkSize = 0
    private var inSizeLine = true
    private var sawSizeDigit = false
    private var inExtension = false
    private var chunksDone = false

    private func countBody(_ bytes: UnsafeRawBufferPointer) {
        guard isChunked else {
            encodedBodyBytes += bytes.count
            return
        }
        var index = 0
        while index < bytes.count && !chunksDone {
            if chunkLeft > 0 {
                let take = min(chunkLeft, bytes.count - index)
                encodedBodyBytes += take
                chunkLeft -= take
                index += take
                if chunkLeft == 0 { inSizeLine = true; chunkSize = 0; sawSizeDigit = false; inExtension = false }
                continue
            }
            let byte = bytes[index]
            index += 1
            guard inSizeLine else { continue }
            switch byte {
            case 0x0A:
                // The end of a size line; an empty line is the CRLF after data.
                if sawSizeDigit {
                    if chunkSize == 0 { chunksDone = true } else { chunkLeft = chunkSize }
                }
            case 0x3B: inExtension = true
            default:
                if !inExtension, let digit = Int(String(UnicodeScalar(byte)), radix: 16) {
                    chunkSize = chunkSize * 16 + digit
                    sawSizeDigit = true
                }
            }
        }
    }

    private func emit(_ head: UnsafeRawBufferPointer) {
        headerBytes += head.count
        if verbose {
            var text: [UInt8] = []
            for line in Self.lines(head) {
                text.append(contentsOf: "< ".utf8)
                text.append(contentsOf: line)
            }
            FetchOutput.writeStandardError(text)
        }
        // Line by line to each output in turn, as curl writes them (so
        // `-i -D -` interleaves the lines).
        let lines = outputs.count > 1 ? Self.lines(head) : [ArraySlice(head)]
        for line in lines {
            for output in outputs where writeError == nil {
                do {
                    try line.withUnsafeBytes { try output.write($0) }
                } catch {
                    writeError = error as? FetchOutput.WriteError
                }
            }
        }
    }

    /// The length of the head at the start of `bytes`, through its empty
    /// line (CRLF CRLF, or LF LF as curl also accepts), or nil if the head
    /// is not complete yet.
    static func headLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count && bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count && bytes[index + 1] == 0x0D && bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// The lines of `bytes`, each with its line ending.
    private static func lines(_ bytes: UnsafeRawBufferPointer) -> [ArraySlice<UInt8>] {
        let all = Array(bytes)
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        for (index, byte) in all.enumerated() where byte == 0x0A {
            result.append(all[start...index])
            start = index + 1
        }
        if start < all.count { result.append(all[start...]) }
        return result
    }
}

/// Seconds since the transfer started, for `-w`'s times.
final class FetchClock {
    private var start = ContinuousClock.now

    func restart() { start = ContinuousClock.now }

    var seconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
