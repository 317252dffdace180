import CLibUV

/// The lower bound beside the HTTP clients: one keep-alive connection driven
/// by libuv alone, as a hand-written C client would drive it. It writes a
/// request, counts the response's bytes (it knows their number in advance,
/// so it parses nothing), and writes the next request when the last byte
/// arrived: the least a client can do per request. Reads go into one 64 KiB
/// buffer; nothing is allocated per request.
///
/// Loop thread only (the calling thread: it runs its own `uv_loop_t`).
final class BareClient {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let tcp: UnsafeMutablePointer<uv_tcp_t>
    private let connectRequest: UnsafeMutablePointer<uv_connect_t>
    private let writeRequest: UnsafeMutablePointer<uv_write_t>
    private let request: UnsafeMutableBufferPointer<CChar>
    private let buffer: UnsafeMutableRawBufferPointer
    private let responseLength: Int

    /// Bytes of the current response received so far.
    private var received = 0
    /// Requests still to send after the current one.
    private var remaining = 0
    /// Every byte read, for the throughput workload.
    private(set) var bytesRead = 0
    private var connected = false

    /// A client for `port` that sends `request` and expects responses of
    /// exactly `responseLength` bytes. Connects before returning.
    init(port: Int, request: [UInt8], responseLength: Int) {
        self.responseLength = responseLength
        loop = .allocate(capacity: 1)
        precondition(uv_loop_init(loop) == 0, "uv_loop_init")
        tcp = .allocate(capacity: 1)
        connectRequest = .allocate(capacity: 1)
        writeRequest = .allocate(capacity: 1)
        self.request = .allocate(capacity: request.count)
        _ = self.request.initialize(from: request.map { CChar(bitPattern: $0) })
        buffer = .allocate(byteCount: 64 * 1024, alignment: 16)

        uv_tcp_init(loop, tcp)
        uv_tcp_nodelay(tcp, 1)
        tcp.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        var address = sockaddr_in()
        uv_ip4_addr("127.0.0.1", Int32(port), &address)
        connectRequest.pointee.data = tcp.pointee.data
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                uv_tcp_connect(connectRequest, tcp, address) { request, status in
                    precondition(status == 0, "BareClient: connect failed: \(status)")
                    let client = Unmanaged<BareClient>.fromOpaque(request!.pointee.data).takeUnretainedValue()
                    client.connected = true
                    uv_stop(client.loop)
                }
            }
        }
        precondition(status == 0, "uv_tcp_connect: \(status)")
        uv_run(loop, UV_RUN_DEFAULT)
        precondition(connected, "BareClient: not connected")
        uv_read_start(stream, { handle, _, buffer in
            let client = Unmanaged<BareClient>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            buffer!.pointee = uv_buf_init(client.buffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                                          UInt32(client.buffer.count))
        }, { stream, count, _ in
            Unmanaged<BareClient>.fromOpaque(stream!.pointee.data).takeUnretainedValue().didRead(count)
        })
    }

    deinit {
        request.deallocate()
        buffer.deallocate()
        writeRequest.deallocate()
        connectRequest.deallocate()
        tcp.deallocate()
        loop.deallocate()
    }

    private var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// Sends `count` requests one after the other, each when the previous
    /// response has arrived in full, and returns after the last response.
    func run(requests count: Int) {
        remaining = count - 1
        received = 0
        send()
        uv_run(loop, UV_RUN_DEFAULT)
    }

    private func send() {
        var buffer = uv_buf_init(request.baseAddress, UInt32(request.count))
        let status = uv_write(writeRequest, stream, &buffer, 1) { _, status in
            precondition(status == 0, "BareClient: write failed: \(status)")
        }
        precondition(status == 0, "uv_write: \(status)")
    }

    private func didRead(_ count: Int) {
        precondition(count >= 0, "BareClient: read failed or the server closed: \(count)")
        received += count
        bytesRead += count
        guard received >= responseLength else { return }
        precondition(received == responseLength, "BareClient: more bytes than one response")
        received = 0
        if remaining == 0 {
            uv_stop(loop)
        } else {
            remaining -= 1
            send()
        }
    }

    /// Closes the connection and the loop.
    func close() {
        uv_close(UnsafeMutableRawPointer(tcp).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_run(loop, UV_RUN_DEFAULT)
        precondition(uv_loop_close(loop) == 0, "uv_loop_close")
    }
}
