import CLibUV
import Testing
import UVCombineCore
import UVCombineLoop

#if canImport(Glibc)
import Glibc
#endif

/// A connection handler made of closures, recording what arrived. Loop
/// thread only, like every handler.
final class RecordingHandler: UVTCPConnectionHandler {
    var received: [UInt8] = []
    var reads = 0
    var ends: [UVTCPError?] = []
    var writableNotifications = 0
    var onRead: ((UVTCPConnection, UnsafeRawBufferPointer) -> Void)?
    var onEnd: ((UVTCPConnection, UVTCPError?) -> Void)?
    var onWritable: ((UVTCPConnection) -> Void)?
    /// Whether to copy the bytes into `received` (off for allocation tests).
    var records = true

    init(onRead: ((UVTCPConnection, UnsafeRawBufferPointer) -> Void)? = nil,
         onEnd: ((UVTCPConnection, UVTCPError?) -> Void)? = nil) {
        self.onRead = onRead
        self.onEnd = onEnd
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        reads += 1
        if records { received.append(contentsOf: bytes) }
        onRead?(connection, bytes)
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        ends.append(error)
        onEnd?(connection, error)
    }

    func connectionDidBecomeWritable(_ connection: UVTCPConnection) {
        writableNotifications += 1
        onWritable?(connection)
    }
}

/// Echoes everything back; the connection closes itself at end of file.
final class EchoHandler: UVTCPConnectionHandler {
    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        connection.write(Array(bytes))
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {}
}

/// An echo server on `host`, port 0. Accepted connections are kept in
/// `connections`.
final class EchoServer {
    let listener: UVTCPListener
    var connections: [UVTCPConnection] = []

    init(host: String = "127.0.0.1", on loop: UVLoop) throws {
        let box = Unchecked<EchoServer?>(nil)
        listener = try UVTCP.listen(host: host, port: 0, on: loop) { connection in
            box.value?.connections.append(connection)
            connection.handler = EchoHandler()
            connection.startReading()
        }
        box.value = self
    }

    var port: Int { listener.port }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}

/// Blocks until socket `fd` reads end of file (its peer closed), or the
/// time passes; returns whether it did. Peeks, so the loop still reads the
/// end of file itself later. Bytes still unread count as "not yet".
func waitForEndOfFile(_ fd: Int32, milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) == 1 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
}

/// Bytes 0, 1, 2, ... 255, 0, 1, ... of length `count`.
func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0) }
}
