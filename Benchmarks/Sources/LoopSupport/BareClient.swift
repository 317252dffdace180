import CLibUV

/// The lower bound beside the HTTP clients: keep-alive connections driven
/// by libuv alone, as a hand-written C client would drive them. Each
/// connection writes a request, counts the response's bytes (it knows their
/// number in advance, so it parses nothing), and writes the next request
/// when the last byte arrived: the least a client can do per request. Reads
/// go into one 64 KiB buffer shared by the connections (the loop runs one
/// read callback at a time); nothing is allocated per request.
///
/// Used by HTTPBenchmarks (against its in-process server) and
/// NginxBenchmarks (against nginx), and by NginxProfile under callgrind.
///
/// Loop thread only (the calling thread: it runs its own `uv_loop_t`).
///
/// ```swift
/// let client = BareClient(port: 8080, request: Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8),
///                         responseLength: 250, connections: 64)
/// client.run(requests: 3_200) // 64 in flight, one per connection
/// client.close()
/// ```
public final class BareClient {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let request: UnsafeMutableBufferPointer<CChar>
    fileprivate let buffer: UnsafeMutableRawBufferPointer
    fileprivate let responseLength: Int
    private var connections: [Connection] = []

    /// Requests not sent yet, and requests whose responses have not fully
    /// arrived yet, in the current run.
    private var toStart = 0
    private var toFinish = 0
    /// Every byte read, for the throughput workloads.
    public private(set) var bytesRead = 0
    private var connected = 0

    /// A client with `connections` connections to `port` on 127.0.0.1
    /// that sends `request` and expects responses of exactly
    /// `responseLength` bytes. Connects before returning.
    public init(port: Int, request: [UInt8], responseLength: Int, connections: Int = 1) {
        self.responseLength = responseLength
        loop = .allocate(capacity: 1)
        precondition(uv_loop_init(loop) == 0, "uv_loop_init")
        self.request = .allocate(capacity: request.count)
        _ = self.request.initialize(from: request.map { CChar(bitPattern: $0) })
        buffer = .allocate(byteCount: 64 * 1024, alignment: 16)

        for _ in 0..<connections {
            self.connections.append(Connection(client: self, port: port))
        }
        uv_run(loop, UV_RUN_DEFAULT)
        precondition(connected == connections, "BareClient: \(connected) of \(connections) connected")
        for connection in self.connections { connection.startReading() }
    }

    deinit {
        request.deallocate()
        buffer.deallocate()
        loop.deallocate()
    }

    fileprivate func didConnect() {
        connected += 1
        if connected == connections.count { uv_stop(loop) }
    }

    /// Sends `count` requests, as many at once as there are connections
    /// (each connection sends its next request when its previous response
    /// has arrived in full), and returns after the last response.
    public func run(requests count: Int) {
        precondition(count >= connections.count, "BareClient: fewer requests than connections")
        toStart = count
        toFinish = count
        for connection in connections {
            toStart -= 1
            connection.send(request)
        }
        uv_run(loop, UV_RUN_DEFAULT)
        precondition(toFinish == 0, "BareClient: \(toFinish) responses missing")
    }

    /// A response arrived in full on `connection`.
    fileprivate func responseEnded(on connection: Connection) {
        toFinish -= 1
        if toStart > 0 {
            toStart -= 1
            connection.send(request)
        } else if toFinish == 0 {
            uv_stop(loop)
        }
    }

    fileprivate func count(_ bytes: Int) {
        bytesRead += bytes
    }

    /// Closes the connections and the loop.
    public func close() {
        for connection in connections { connection.close() }
        uv_run(loop, UV_RUN_DEFAULT)
        connections = []
        precondition(uv_loop_close(loop) == 0, "uv_loop_close")
    }
}

/// One keep-alive connection of a ``BareClient``.
private final class Connection {
    unowned let client: BareClient
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    let connectRequest: UnsafeMutablePointer<uv_connect_t>
    let writeRequest: UnsafeMutablePointer<uv_write_t>
    /// Bytes of the current response received so far.
    var received = 0

    init(client: BareClient, port: Int) {
        self.client = client
        tcp = .allocate(capacity: 1)
        connectRequest = .allocate(capacity: 1)
        writeRequest = .allocate(capacity: 1)
        uv_tcp_init(client.loop, tcp)
        uv_tcp_nodelay(tcp, 1)
        tcp.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        connectRequest.pointee.data = tcp.pointee.data
        var address = sockaddr_in()
        uv_ip4_addr("127.0.0.1", Int32(port), &address)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                uv_tcp_connect(connectRequest, tcp, address) { request, status in
                    precondition(status == 0, "BareClient: connect failed: \(status)")
                    let connection = Unmanaged<Connection>.fromOpaque(request!.pointee.data).takeUnretainedValue()
                    connection.client.didConnect()
                }
            }
        }
        precondition(status == 0, "uv_tcp_connect: \(status)")
    }

    deinit {
        writeRequest.deallocate()
        connectRequest.deallocate()
        tcp.deallocate()
    }

    var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self)
    }

    func startReading() {
        uv_read_start(stream, { handle, _, buffer in
            let connection = Unmanaged<Connection>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            let shared = connection.client.buffer
            buffer!.pointee = uv_buf_init(shared.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(shared.count))
        }, { stream, count, _ in
            Unmanaged<Connection>.fromOpaque(stream!.pointee.data).takeUnretainedValue().didRead(count)
        })
    }

    func send(_ request: UnsafeMutableBufferPointer<CChar>) {
        var buffer = uv_buf_init(request.baseAddress, UInt32(request.count))
        let status = uv_write(writeRequest, stream, &buffer, 1) { _, status in
            precondition(status == 0, "BareClient: write failed: \(status)")
        }
        precondition(status == 0, "uv_write: \(status)")
    }

    func didRead(_ count: Int) {
        precondition(count >= 0, "BareClient: read failed or the server closed: \(count)")
        received += count
        client.count(count)
        let length = client.responseLength
        guard received >= length else { return }
        precondition(received == length, "BareClient: more bytes than one response")
        received = 0
        client.responseEnded(on: self)
    }

    func close() {
        // Retained until the close callback: the handle's memory is ours.
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
        uv_close(UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            Unmanaged<Connection>.fromOpaque(handle!.pointee.data).release()
        }
    }
}
