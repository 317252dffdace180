import TestServerSupport

/// The HTTP/2 server side of a ``ScriptedTCPServer`` connection, spoken
/// with crafted frames (`Frame`): the session's hostile-peer, zero-window,
/// 1xx and trailer tests (SessionHTTP2HostilePeerTests,
/// SessionHTTP2InterimTrailerTests).
extension ScriptedTCPServer.Connection {
    /// The frames the client sent so far (after its preface).
    var frames: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] { Frame.parse(received) }

    /// Reads the client's preface and SETTINGS, then sends ours (with
    /// `settings` entries) and the acknowledgement of theirs. The session
    /// opens no stream before our SETTINGS. False when the client closed.
    func h2Handshake(settings: [(UInt16, UInt32)] = []) -> Bool {
        guard read(until: { Frame.parse($0).contains { $0.type == Frame.settings && $0.flags & Frame.ack == 0 } }) else {
            return false
        }
        return write(Frame.settings(settings) + Frame.make(type: Frame.settings, flags: Frame.ack))
    }

    /// Reads until the client sent `count` HEADERS frames: their stream ids.
    func readRequests(_ count: Int) -> [UInt32]? {
        guard read(until: { Frame.parse($0).filter { $0.type == Frame.headers }.count >= count }) else { return nil }
        return frames.filter { $0.type == Frame.headers }.map(\.stream)
    }

    /// The error code of the client's GOAWAY, if it sent one.
    var clientGoAwayCode: UInt32? { Frame.goAwayCode(in: received) }

    /// The DATA payload bytes the client sent on `stream`.
    func uploadedBytes(on stream: UInt32) -> Int {
        frames.filter { $0.type == Frame.data && $0.stream == stream }.reduce(0) { $0 + $1.payload.count }
    }

    /// Whether the client ended `stream` (END_STREAM on HEADERS or DATA).
    func requestEnded(on stream: UInt32) -> Bool {
        frames.contains { ($0.type == Frame.data || $0.type == Frame.headers) && $0.stream == stream && $0.flags & Frame.endStream != 0 }
    }
}

extension Frame {
    /// A response HEADERS block: `:status` (a literal, so any code) and
    /// `fields`, with END_HEADERS and optionally END_STREAM.
    static func response(stream: UInt32, status: Int, fields: [(String, String)] = [], endStream: Bool = false) -> [UInt8] {
        var block = hpackLiteral(":status", String(status))
        for (name, value) in fields { block += hpackLiteral(name, value) }
        return make(type: headers, flags: endHeaders | (endStream ? Frame.endStream : 0), stream: stream, payload: block)
    }

    /// A trailer block (fields only) ending the stream.
    static func trailers(stream: UInt32, _ fields: [(String, String)]) -> [UInt8] {
        make(type: headers, flags: endHeaders | endStream, stream: stream,
             payload: fields.flatMap { hpackLiteral($0.0, $0.1) })
    }

    /// DATA on `stream`.
    static func dataFrame(stream: UInt32, _ bytes: [UInt8], endStream: Bool = false) -> [UInt8] {
        make(type: data, flags: endStream ? Frame.endStream : 0, stream: stream, payload: bytes)
    }

    /// WINDOW_UPDATE on `stream` (0: the connection) by `increment`.
    static func windowUpdateFrame(stream: UInt32, _ increment: UInt32) -> [UInt8] {
        make(type: windowUpdate, stream: stream, payload: bigEndian(increment))
    }
}
