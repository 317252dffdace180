import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import UVCombineHTTPCore

/// The file a download writes: a POSIX descriptor opened for writing,
/// created or truncated. `FileHandle` would do the same, but it lives in
/// swift-corelibs-foundation's `Foundation`, which UVCombineHTTP does not
/// import (FoundationEssentials at most: the C library must not carry
/// Foundation and ICU).
///
/// Errors are Foundation's file errors: `CocoaError(.fileWriteUnknown)`
/// with the path when the file cannot be created (as
/// `FileManager.createFile` failing was reported before), `POSIXError`
/// with the `errno` of a failed `write(2)` or `fsync(2)`.
///
/// Threading: one owner at a time; blocking calls on the caller's thread.
///
/// ```swift
/// let file = try DownloadFile(creatingAt: "/tmp/big.bin")
/// try file.append(Data("hello".utf8))
/// try file.synchronize()
/// file.finish()
/// ```
internal struct DownloadFile: ~Copyable {
    private let descriptor: Int32

    /// Creates (or truncates) the file at `path`, mode 0666 before umask.
    internal init(creatingAt path: String) throws(CocoaError) {
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard opened >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: ["NSFilePath": path])
        }
        descriptor = opened
    }

    /// Writes all of `data`, retrying short writes and interruptions.
    internal func append(_ data: Data) throws(POSIXError) {
        // withUnsafeBytes rethrows untyped errors: carry errno out instead.
        let failed: Int32? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failed { throw POSIXError(POSIXErrorCode(rawValue: failed) ?? .EIO) }
    }

    /// Flushes the file to its device (`fsync(2)`).
    internal func synchronize() throws(POSIXError) {
        if fsync(descriptor) != 0 { throw DownloadFile.lastError() }
    }

    /// Closes the descriptor (as dropping the value does).
    internal consuming func finish() {
        _ = close(descriptor)
        discard self
    }

    deinit {
        _ = close(descriptor)
    }

    private static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
