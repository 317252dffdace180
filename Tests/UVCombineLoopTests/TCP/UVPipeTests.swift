import CLibUV
import Foundation
import Testing
import UVCombineCore
import UVCombineLoop

#if canImport(Glibc)
import Glibc
#endif

/// A listening Unix domain socket made with the C library (no accept until
/// asked): what `UVPipe.connect` talks to.
private final class UnixListener {
    let path: String
    let fd: Int32

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/uvc-\(UInt32.random(in: 0...UInt32.max)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0, listen(fd, 8) == 0 else { throw UVError(code: -errno) }
    }

    /// The next queued connection (blocking: call once one is queued).
    func accept() -> Int32 { Glibc.accept(fd, nil, nil) }

    func close() {
        _ = Glibc.close(fd)
        unlink(path)
    }
}

@Suite("UVPipe.connect")
struct UVPipeTests {
    @Test func connectsToAUnixSocketAndTalksBothWays() throws {
        let listener = try UnixListener()
        defer { listener.close() }
        withLoop { loop in
            var peer: Int32 = -1
            let handler = RecordingHandler(onRead: { connection, _ in connection.close() })
            var description = ""
            UVPipe.connect(path: listener.path, on: loop) { result in
                guard let connection = result.success else {
                    Issue.record("connect failed: \(String(describing: result.failure))")
                    return
                }
                description = connection.description
                #expect(connection.localAddress == nil && connection.remoteAddress == nil)
                connection.handler = handler
                connection.write(Array("ping".utf8))
                peer = listener.accept()
                _ = "pong".withCString { write(peer, $0, 4) }
                connection.startReading()
            }
            loop.run()
            #expect(description == "UVTCPConnection(unix socket)")
            #expect(String(decoding: handler.received, as: UTF8.self) == "pong")
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = read(peer, &buffer, 16)
            #expect(count == 4 && String(decoding: buffer[..<4], as: UTF8.self) == "ping")
            _ = close(peer)
        }
    }

    @Test func aPathWhereNothingExistsIsENOENT() throws {
        try withLoop { loop in
            var result: Result<UVTCPConnection, UVTCPError>?
            var calledInside = true
            UVPipe.connect(path: "/tmp/uvcombine-no-such-dir/none.sock", on: loop) { result = $0 }
            calledInside = result != nil
            loop.run()
            #expect(!calledInside, "the completion never runs inside connect")
            let error = try #require(result?.failure)
            #expect(error.kind == .connectionFailed)
            #expect(error.name == "UV_ENOENT")
        }
    }

    @Test func aSocketFileWithoutListenerIsRefused() throws {
        let listener = try UnixListener()
        // Closed without unlinking: the file stays, no one listens.
        _ = close(listener.fd)
        defer { unlink(listener.path) }
        withLoop { loop in
            var result: Result<UVTCPConnection, UVTCPError>?
            UVPipe.connect(path: listener.path, on: loop) { result = $0 }
            loop.run()
            #expect(result?.failure?.name == "UV_ECONNREFUSED")
        }
    }

    @Test func aTooLongOrEmptyPathIsAnInvalidArgument() throws {
        withLoop { loop in
            var results: [UVTCPError] = []
            UVPipe.connect(path: "/tmp/" + String(repeating: "x", count: 200), on: loop) { results.append($0.failure!) }
            UVPipe.connect(path: "", on: loop) { results.append($0.failure!) }
            #expect(results.isEmpty)
            loop.run()
            #expect(results.map(\.kind) == [.invalidArgument, .invalidArgument])
            #expect(results.map(\.name) == ["UV_ENAMETOOLONG", "UV_EINVAL"])
        }
    }

    @Test func aCancelledAttemptNeverCompletesAndClosesItsSocket() throws {
        let listener = try UnixListener()
        defer { listener.close() }
        withLoop { loop in
            var completions = 0
            let attempt = UVPipe.connect(path: listener.path, on: loop) { _ in completions += 1 }
            attempt.cancel()
            attempt.cancel()
            loop.run()
            #expect(completions == 0)
            #expect(attempt.description == "UVPipeConnectAttempt(\(listener.path))")
        }
    }
}
