import CUVCombineLazyLibraries
import HTTPTypes
import UVCombineHTTP2
import UVCombineHTTPCore

/// An nghttp2 SERVER session in the test process: the peer of the client
/// under test, bytes shuttled in memory (``pump(_:_:now:)``). It records
/// what the client sent (requests, bodies, WINDOW_UPDATE and RST_STREAM
/// frames) and answers as the test says (``respond``), or not at all
/// until the test calls ``submitResponse(_:_:)``.
final class InMemoryServer {
    struct Request {
        var fields: [(String, String)] = []
        var body: [UInt8] = []
        var ended = false
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
    }

    struct Response {
        var status = 200
        var fields: [(String, String)] = []
        var body: [UInt8] = []
        var trailers: [(String, String)]? = nil
        var informational: [Int] = []
    }

    private(set) var session: OpaquePointer!
    var requests: [Int32: Request] = [:]
    /// The order requests ended in.
    var completed: [Int32] = []
    /// WINDOW_UPDATE increments received, by stream (0: the connection).
    var windowUpdates: [Int32: [Int32]] = [:]
    var resets: [Int32: UInt32] = [:]
    var goAways: [UInt32] = []
    /// Streams whose HEADERS arrived, in order; the most open at once.
    var opened: [Int32] = []
    var open: Set<Int32> = []
    var maxOpen = 0
    /// Answers a complete request; nil leaves it for the test.
    var respond: ((Int32, Request) -> Response?)? = { _, _ in Response(body: Array("hello".utf8)) }
    private var outgoing: [Int32: (body: [UInt8], offset: Int, trailers: [(String, String)]?)] = [:]

    init(settings: [(Int32, UInt32)] = [], options: (OpaquePointer) -> Void = { _ in }) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            let server = InMemoryServer.from(user)
            let id = frame!.pointee.hd.stream_id
            if server.requests[id] == nil {
                server.requests[id] = Request()
                server.opened.append(id)
                server.open.insert(id)
                server.maxOpen = max(server.maxOpen, server.open.count)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let server = InMemoryServer.from(user)
            let id = frame!.pointee.hd.stream_id
            server.requests[id]?.fields.append((String(decoding: UnsafeRawBufferPointer(start: name, count: nameLength), as: UTF8.self),
                                               String(decoding: UnsafeRawBufferPointer(start: value, count: valueLength), as: UTF8.self)))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            InMemoryServer.from(user).requests[id]?.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            InMemoryServer.from(user).frameReceived(frame!.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, _, user in
            let server = InMemoryServer.from(user)
            server.open.remove(id)
            server.outgoing[id] = nil
            return 0
        }
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        options(option!)
        var made: OpaquePointer?
        nghttp2_session_server_new2(&made, callbacks, nil, option)
        session = made
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.0, value: $0.1) }
        nghttp2_submit_settings(session, 0, &entries, entries.count)
    }

    deinit { nghttp2_session_del(session) }

    static func from(_ user: UnsafeMutableRawPointer?) -> InMemoryServer {
        Unmanaged<InMemoryServer>.fromOpaque(user!).takeUnretainedValue()
    }

    private func frameReceived(_ frame: nghttp2_frame) {
        let id = frame.hd.stream_id
        switch UInt32(frame.hd.type) {
        case NGHTTP2_WINDOW_UPDATE.rawValue:
            windowUpdates[id, default: []].append(frame.window_update.window_size_increment)
        case NGHTTP2_RST_STREAM.rawValue:
            resets[id] = frame.rst_stream.error_code
        case NGHTTP2_GOAWAY.rawValue:
            goAways.append(frame.goaway.error_code)
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
            if frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, var request = requests[id] {
                request.ended = true
                requests[id] = request
                completed.append(id)
                if let response = respond?(id, request) { submitResponse(id, response) }
            }
        default:
            break
        }
    }

    /// Queues a response: 1xx heads, the head, the body (as the client's
    /// window allows), trailers.
    func submitResponse(_ id: Int32, _ response: Response) {
        for code in response.informational {
            withHeaders([(":status", String(code))]) { nv, count in
                _ = nghttp2_submit_headers(session, 0, id, nil, nv, count, nil)
            }
        }
        outgoing[id] = (response.body, 0, response.trailers)
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, id, buffer, length, flags, _, user in
            let server = InMemoryServer.from(user)
            guard var out = server.outgoing[id] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
            let n = min(length, out.body.count - out.offset)
            out.body.withUnsafeBytes { source in
                buffer!.update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + out.offset, count: n)
            }
            out.offset += n
            server.outgoing[id] = out
            if out.offset == out.body.count {
                flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
                if let trailers = out.trailers {
                    flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue)
                    server.withHeaders(trailers) { nv, count in _ = nghttp2_submit_trailer(server.session, id, nv, count) }
                }
            }
            return n
        }
        withHeaders([(":status", String(response.status))] + response.fields) { nv, count in
            _ = nghttp2_submit_response(session, id, nv, count, &provider)
        }
    }

    func withHeaders(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> Void) {
        var flat: [UInt8] = []
        var spans: [(Int, Int, Int, Int)] = []
        for (name, value) in fields {
            let n = flat.count
            flat.append(contentsOf: name.utf8)
            let v = flat.count
            flat.append(contentsOf: value.utf8)
            spans.append((n, v - n, v, flat.count - v))
        }
        flat.withUnsafeMutableBufferPointer { storage in
            let base = storage.baseAddress!
            let vectors = spans.map { nghttp2_nv(name: base + $0.0, value: base + $0.2, namelen: $0.1, valuelen: $0.3, flags: 0) }
            vectors.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    func reset(_ id: Int32, code: HTTP2ErrorCode) {
        nghttp2_submit_rst_stream(session, 0, id, code.rawValue)
    }

    func goAway(lastStreamID: Int32, code: HTTP2ErrorCode = .noError) {
        nghttp2_submit_goaway(session, 0, lastStreamID, code.rawValue, nil, 0)
    }

    func receive(_ bytes: [UInt8]) {
        let result = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress!, $0.count) }
        precondition(result == bytes.count, "the test server refused the client's bytes: \(String(cString: nghttp2_strerror(Int32(result))))")
    }

    func output() -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            var pointer: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &pointer)
            if n <= 0 { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: n))
        }
        return bytes
    }

    /// Shuttles bytes both ways until neither side has anything to say.
    /// How many bytes went each way.
    @discardableResult
    static func pump(_ client: HTTP2ClientConnection, _ server: InMemoryServer, now: UInt64 = 0,
                     clientBytes: inout [UInt8]) -> (toServer: Int, toClient: Int) {
        var toServer = 0, toClient = 0
        for _ in 0..<10_000 {
            var out: [UInt8] = []
            client.produceOutput(into: &out)
            clientBytes.append(contentsOf: out)
            if !out.isEmpty { server.receive(out) }
            let back = server.output()
            if !back.isEmpty {
                back.withUnsafeBytes { client.receive($0, now: HTTPDeadline(uptimeNanoseconds: now)) }
            }
            toServer += out.count
            toClient += back.count
            if out.isEmpty && back.isEmpty { break }
        }
        return (toServer, toClient)
    }

    @discardableResult
    static func pump(_ client: HTTP2ClientConnection, _ server: InMemoryServer, now: UInt64 = 0) -> (toServer: Int, toClient: Int) {
        var ignored: [UInt8] = []
        return pump(client, server, now: now, clientBytes: &ignored)
    }
}
