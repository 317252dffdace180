import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where `fetch` writes: standard output, or a file created (truncated)
/// when the response is accepted. Writes go straight to the descriptor
/// with write(2), each part as it arrives, so nothing accumulates.
final class FetchOutput {
    /// Why writing failed (exit status 23).
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    private let path: String?
    private var descriptor: Int32 = -1
    /// Bytes written so far.
    private(set) var byteCount = 0

    /// Standard output when `path` is nil.
    init(path: String?) {
        self.path = path
        if path == nil { descriptor = 1 }
    }

    deinit {
        if path != nil && descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Whether the bytes end up on a terminal.
    var isTerminal: Bool {
        path == nil && isatty(1) != 0
    }

    /// Creates (or truncates) the file; standard output needs nothing.
    func open() throws(WriteError) {
        guard let path, descriptor < 0 else { return }
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            throw WriteError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    func write(_ data: Data) throws(WriteError) {
        var failure: WriteError?
        data.withUnsafeBytes { buffer in
            do throws(WriteError) {
                try write(buffer)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(WriteError) {
        try open()
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(description: "cannot write to \(path ?? "standard output"): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        byteCount += bytes.count
    }

    /// Empties the file for another attempt (`--retry`), as curl does;
    /// standard output keeps what was written.
    func truncateForRetry() throws(WriteError) {
        guard let path, descriptor >= 0, byteCount > 0 else { return }
        if ftruncate(descriptor, 0) != 0 || lseek(descriptor, 0, SEEK_SET) < 0 {
            throw WriteError(description: "cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        byteCount = 0
    }

    /// Writes `bytes` to standard error, whole (write(2) on descriptor 2).
    static func writeStandardError(_ bytes: [UInt8]) {
        writeAll(bytes, to: 2)
    }

    /// Writes `bytes` to standard output, unbuffered (`-w`'s text, `-c -`'s
    /// jar), as curl interleaves them with the body.
    static func writeStandardOutput(_ bytes: [UInt8]) {
        writeAll(bytes, to: 1)
    }

    /// Writes all of `bytes` to `descriptor`, retrying on EINTR; stops at
    /// the first other failure (a closed pipe: curl goes on too).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Closes the file, reporting a failure to write it out.
    func close() throws(WriteError) {
        guard path != nil, descriptor >= 0 else { return }
        let status = Glibc.close(descriptor)
        descriptor = -1
        if status != 0 {
            throw WriteError(description: "cannot write \(path!): \(String(cString: strerror(errno)))")
        }
    }
}
