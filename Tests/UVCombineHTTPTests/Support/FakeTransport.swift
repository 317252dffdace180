import Foundation
import Testing
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop

/// An in-memory transport the tests drive event by event, on virtual time.
///
/// It keeps the transport contract: nothing calls back synchronously from a
/// call the session makes; every event happens when the test asks for it
/// (`accept()`, `respond(_:)`, `advance(by:)`, ...), on the loop thread (the
/// test thread, which ran the loop last).
final class FakeTransport: HTTPTransport {
    /// Virtual monotonic time.
    var now = HTTPDeadline(uptimeNanoseconds: 1_000_000_000_000)
    weak var timerHandler: (any HTTPTimerHandler)?
    /// The deadline the session timer is armed for.
    private(set) var armedDeadline: HTTPDeadline?
    /// Every connection ever opened, in order.
    private(set) var connections: [FakeConnection] = []
    private(set) var isShutDown = false
    /// How many bytes one read delivers at most (the read buffer size).
    var readBufferSize = 64 * 1024

    func armTimer(at deadline: HTTPDeadline) { armedDeadline = deadline }
    func disarmTimer() { armedDeadline = nil }
    func shutdown() { isShutDown = true }

    func connect(to key: ConnectionKey, handler: any HTTPConnectionHandler) -> any HTTPConnectionIO {
        let connection = FakeConnection(transport: self, key: key, handler: handler)
        connections.append(connection)
        return connection
    }

    /// Moves virtual time on and fires the timer when its deadline passed.
    func advance(by duration: Duration) {
        now = now.advanced(by: duration)
        fireTimerIfDue()
    }

    func fireTimerIfDue() {
        while let deadline = armedDeadline, deadline <= now {
            armedDeadline = nil
            timerHandler?.timerFired()
        }
    }

    /// The latest connection.
    var last: FakeConnection { connections.last! }

    /// Connections the session has not closed.
    var openConnections: [FakeConnection] { connections.filter { !$0.isClosed } }

    /// Every request line written on any connection, in order of
    /// connections.
    var requestLines: [String] { connections.flatMap(\.requestLines) }
}

/// One fake TCP connection: records what the session wrote and what it
/// asked for; the test plays the server.
final class FakeConnection: HTTPConnectionIO {
    enum State: Equatable { case connecting, connected, failed }

    unowned let transport: FakeTransport
    /// Where the session asked to connect (an `https` key is a TLS
    /// connection for the real transport; here, bytes are plaintext).
    let key: ConnectionKey
    var host: String { key.host }
    var port: Int { key.port }
    /// Held until closed, as the real transport does.
    private(set) var handler: (any HTTPConnectionHandler)?
    private(set) var state = State.connecting
    private(set) var written: [UInt8] = []
    private(set) var writeCount = 0
    private(set) var pendingWrites = 0
    private(set) var isReading = false
    private(set) var keepsLoopAlive = true
    private(set) var isClosed = false
    /// Bytes "in the kernel": sent by the server, not read yet.
    private(set) var inbound: [UInt8] = []
    /// How many times reading was stopped.
    private(set) var stopCount = 0
    /// The largest chunk handed to the session.
    private(set) var largestRead = 0
    /// Whether written bytes are kept (allocation tests turn it off).
    var recordsWrites = true

    init(transport: FakeTransport, key: ConnectionKey, handler: any HTTPConnectionHandler) {
        self.transport = transport
        self.key = key
        self.handler = handler
    }

    // MARK: HTTPConnectionIO

    func write(_ bytes: [UInt8]) {
        precondition(!isClosed, "write after close")
        precondition(state == .connected, "write before connect")
        if recordsWrites { written += bytes }
        writeCount += 1
        pendingWrites += 1
    }

    func startReading() {
        precondition(!isClosed, "startReading after close")
        isReading = true
    }

    func stopReading() {
        if isReading { stopCount += 1 }
        isReading = false
    }

    func setKeepsLoopAlive(_ keepsAlive: Bool) { keepsLoopAlive = keepsAlive }

    func close() {
        isClosed = true
        isReading = false
        handler = nil
    }

    // MARK: Playing the server

    /// The TCP connection is established.
    func accept() {
        precondition(state == .connecting && !isClosed)
        state = .connected
        handler!.connectionDidConnect()
    }

    /// Connecting fails with `error`.
    func refuse(_ error: UVURLError = UVURLError(.cannotConnectToHost, underlyingErrorName: "UV_ECONNREFUSED")) {
        precondition(state == .connecting && !isClosed)
        state = .failed
        handler!.connectionDidFailToConnect(error)
    }

    var hasPendingWrites: Bool { pendingWrites > 0 }

    /// Every write in flight completes (the kernel took the bytes).
    func completeWrites() {
        pendingWrites = 0
    }

    /// The oldest write in flight fails.
    func failWrite(_ error: UVURLError = UVURLError(.networkConnectionLost, underlyingErrorName: "UV_EPIPE")) {
        precondition(pendingWrites > 0)
        pendingWrites -= 1
        handler!.connectionDidFail(error)
    }

    /// The server sends `text`: writes complete, then the bytes are read as
    /// far as the session reads.
    func respond(_ text: String) {
        respond(bytes: Array(text.utf8))
    }

    func respond(bytes: [UInt8]) {
        completeWrites()
        send(bytes: bytes)
    }

    /// The server sends `text` while the session's writes are still in
    /// flight.
    func send(_ text: String) {
        send(bytes: Array(text.utf8))
    }

    func send(bytes: [UInt8]) {
        inbound += bytes
        pump()
    }

    /// Delivers buffered bytes, one read buffer at a time, while the
    /// session reads.
    func pump() {
        while isReading, !isClosed, !inbound.isEmpty {
            let count = min(transport.readBufferSize, inbound.count)
            let chunk = Array(inbound[..<count])
            inbound.removeFirst(count)
            largestRead = max(largestRead, count)
            chunk.withUnsafeBytes { handler!.connectionDidRead($0) }
        }
    }

    /// Completes the writes and hands `bytes` to the session as one read,
    /// without buffering (allocation tests: the fake allocates nothing).
    func respondDirectly(_ bytes: UnsafeRawBufferPointer) {
        completeWrites()
        precondition(isReading && !isClosed)
        handler!.connectionDidRead(bytes)
    }

    /// The server closes its side (after the bytes already sent are read).
    func endOfStream() {
        pump()
        guard !isClosed else { return }
        precondition(inbound.isEmpty, "end of stream while unread bytes remain")
        handler!.connectionDidReachEndOfStream()
    }

    /// The connection is reset.
    func reset(_ error: UVURLError = UVURLError(.networkConnectionLost, underlyingErrorName: "UV_ECONNRESET")) {
        guard !isClosed else { return }
        handler!.connectionDidFail(error)
    }

    /// Everything written, as text.
    var writtenText: String { String(decoding: written, as: UTF8.self) }

    /// The request lines written, e.g. `GET /a HTTP/1.1`.
    var requestLines: [String] {
        writtenText.components(separatedBy: "\r\n").filter { $0.hasSuffix(" HTTP/1.1") }
    }
}

/// A response with a `Content-Length` body.
func response(_ status: String = "200 OK", body: String = "", fields: [String] = []) -> String {
    var text = "HTTP/1.1 \(status)\r\n"
    for field in fields { text += field + "\r\n" }
    text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    return text
}

/// Runs `body` with a fresh loop whose thread is the calling thread, a fake
/// transport and a session over it. Afterwards the session is released,
/// which closes its connections, and the loop is closed
/// (`uv_loop_close == 0`).
func withFakeSession(
    configuration: UVURLSession.Configuration = .init(),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (UVLoop, FakeTransport, UVURLSession) throws -> Void
) rethrows {
    let loop: UVLoop
    do {
        loop = try UVLoop()
    } catch {
        Issue.record("UVLoop() failed: \(error)", sourceLocation: sourceLocation)
        return
    }
    // The calling thread becomes the loop's thread.
    loop.run(.noWait)
    let transport = FakeTransport()
    weak var weakSession: UVURLSession?
    do {
        let session = UVURLSession(loop: loop, configuration: configuration, transport: transport)
        weakSession = session
        try body(loop, transport, session)
    }
    // Work scheduled for the loop (deliveries, hops) runs before the end.
    loop.run()
    #expect(weakSession == nil, "the session must be released", sourceLocation: sourceLocation)
    #expect(transport.openConnections.isEmpty, "releasing the session closes its connections",
            sourceLocation: sourceLocation)
    #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) {
        try loop.close()
    }
}
