import HTTPTypes
import UVCombineHTTP2

/// Records a client connection's events as values, with each stream's body
/// collected. Consumes what it receives unless the stream is held
/// (`held`), which is how the tests play a subscriber with no demand.
final class EventRecorder: HTTP2ConnectionDelegate {
    enum Record: Equatable {
        case settings(maxConcurrentStreams: Int?)
        case ping(UInt64)
        case goAway(last: Int32, code: HTTP2ErrorCode)
        case connectionFailed(HTTP2Error.Kind)
        case informational(Int32, Int)
        case head(Int32, Int)
        case trailers(Int32, [String])
        case end(Int32)
        case failed(Int32, HTTP2Error.Kind, retryable: Bool)
        case uploadWanted(Int32)
    }

    var records: [Record] = []
    /// Ends seen (cheaper than `ended` for the measurements).
    var endCount = 0
    /// Off for measurements: bodies are consumed, not kept, and only ends
    /// are counted.
    var keepsRecords = true
    var bodies: [Int32: [UInt8]] = [:]
    var heads: [Int32: HTTPResponse] = [:]
    var errors: [Int32: HTTP2Error] = [:]
    var connectionError: HTTP2Error?
    var trailerFields: [Int32: HTTPFields] = [:]
    /// Streams whose consumer takes nothing.
    var held: Set<Int32> = []
    /// Called on .uploadWanted.
    var onUploadWanted: ((HTTP2ClientConnection, HTTP2StreamID) -> Void)?

    func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event) {
        switch event {
        case .settingsReceived(let settings): records.append(.settings(maxConcurrentStreams: settings.maxConcurrentStreams))
        case .pingAcknowledged(let rtt): records.append(.ping(rtt))
        case .goAwayReceived(let last, let code, _): records.append(.goAway(last: last.rawValue, code: code))
        case .connectionFailed(let error):
            connectionError = error
            records.append(.connectionFailed(error.kind))
        case .informationalHead(let id, let response): records.append(.informational(id.rawValue, response.status.code))
        case .head(let id, let response):
            heads[id.rawValue] = response
            records.append(.head(id.rawValue, response.status.code))
        case .data(let id, let bytes) where !keepsRecords:
            connection.consume(bytes.count, on: id)
        case .end where !keepsRecords:
            endCount += 1
        case .head where !keepsRecords:
            break
        case .data(let id, let bytes):
            bodies[id.rawValue, default: []].append(contentsOf: bytes)
            if !held.contains(id.rawValue) { connection.consume(bytes.count, on: id) }
        case .trailers(let id, let fields):
            trailerFields[id.rawValue] = fields
            records.append(.trailers(id.rawValue, fields.map { "\($0.name.canonicalName): \($0.value)" }))
        case .end(let id):
            endCount += 1
            records.append(.end(id.rawValue))
        case .streamFailed(let id, let error):
            errors[id.rawValue] = error
            records.append(.failed(id.rawValue, error.kind, retryable: error.isRetryable))
        case .uploadWanted(let id):
            records.append(.uploadWanted(id.rawValue))
            onUploadWanted?(connection, id)
        }
    }

    var ended: [Int32] { records.compactMap { if case .end(let id) = $0 { id } else { nil } } }
    var failed: [Int32] { records.compactMap { if case .failed(let id, _, _) = $0 { id } else { nil } } }
}
