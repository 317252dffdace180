import HTTPTypes
import UVCombineCore
import UVCombineHTTP2
import UVCombineHTTPCore
import UVCombineLoop

/// Drives an ``HTTP2ClientConnection`` over a real TCP connection on a
/// UVLoop, as the session's engine will: reads go in, output goes out
/// after every call, events go to the ``EventRecorder``. `onEvent` lets a
/// test react (open more streams, release a held one, finish).
final class SocketDriver: UVTCPConnectionHandler {
    let h2: HTTP2ClientConnection
    let recorder = EventRecorder()
    var tcp: UVTCPConnection?
    let start = ContinuousClock.now
    var endedWith: UVTCPError??
    /// The guard timer ended the run.
    var timedOut = false
    /// After each read's events (and the output flushed).
    var afterRead: ((SocketDriver) -> Void)?

    init(configuration: HTTP2Configuration = HTTP2Configuration()) throws {
        h2 = try HTTP2ClientConnection(configuration: configuration)
        h2.delegate = recorder
    }

    var now: HTTPDeadline {
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        return HTTPDeadline(uptimeNanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }

    func flush() {
        guard let tcp, !tcp.isClosed else { return }
        var out: [UInt8] = []
        h2.produceOutput(into: &out)
        if !out.isEmpty { _ = tcp.write(out) }
    }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        h2.receive(bytes, now: now)
        flush()
        afterRead?(self)
        flush()
        if h2.isFinished { close() }
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        endedWith = .some(error)
        h2.connectionEnded(detail: error.map { "\($0)" } ?? "end of file")
        close()
    }

    func close() {
        tcp?.close()
        tcp = nil
        afterRead = nil
        guardTimer?.cancel()
        guardTimer = nil
    }

    /// Ends a run that hangs.
    var guardTimer: (any Cancellable)?

    /// Connects to 127.0.0.1:`port`, calls `ready` once connected (open
    /// streams there), and runs the loop until the connection closed or
    /// `timeout` passed (then the test fails on its expectations).
    func run(port: Int, timeoutSeconds: Int = 20, ready: @escaping (SocketDriver) throws -> Void) throws {
        let loop = try UVLoop()
        var failure: (any Error)?
        UVTCP.connect(host: "127.0.0.1", port: port, on: loop) { result in
            switch result {
            case .success(let connection):
                self.tcp = connection
                connection.handler = self
                connection.startReading()
                do { try ready(self) } catch { failure = error; self.close(); return }
                self.flush()
            case .failure(let error):
                failure = error
            }
        }
        guardTimer = loop.schedule(after: loop.now.advanced(by: .seconds(timeoutSeconds)), interval: .seconds(3600)) { [weak self] in
            self?.timedOut = true
            self?.close()
        }
        loop.run()
        close()
        loop.run()
        try loop.close()
        if let failure { throw failure }
    }
}
