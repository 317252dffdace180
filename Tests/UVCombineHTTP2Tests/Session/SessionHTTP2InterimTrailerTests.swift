import Foundation
import HTTPTypes
import Testing
import TestServerSupport
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// 1xx interim responses and trailers (issue 33, "trailers, 1xx"), over
/// HTTP/2 and HTTP/1.1 alike, against a ``ScriptedTCPServer`` that sends
/// a `103 Early Hints` (with a `link` field) before a `200` whose body is
/// followed by a trailer field.
///
/// What is decided, as URLSession does: a data task's completion and a
/// stream's parts see the final response only (URLSession hands 1xx to
/// `urlSession(_:task:didReceiveInformationalResponse:)` alone, a delegate
/// callback these publishers do not have); trailer fields are read and
/// dropped (URLSession's `HTTPURLResponse` has no trailers). The final
/// head, its fields and the whole body arrive intact, and the connection
/// stays usable.
@Suite("UVURLSession: 1xx and trailers over HTTP/2 and HTTP/1.1 (scripted peer)")
struct SessionHTTP2InterimTrailerTests {
    static let body = patternBytes(3000)

    /// Records the statuses of the heads and the body bytes of one stream.
    final class PartRecorder: Subscriber {
        typealias Input = UVURLSession.ResponsePart
        typealias Failure = UVURLError
        var statuses: [Int] = []
        var fields: [HTTPFields] = []
        var body: [UInt8] = []
        var completion: Subscribers.Completion<UVURLError>?

        func receive(subscription: any Subscription) { subscription.request(.unlimited) }
        func receive(_ input: UVURLSession.ResponsePart) -> Subscribers.Demand {
            switch input {
            case .head(let response):
                statuses.append(response.status.code)
                fields.append(response.headerFields)
            case .body(let data):
                body += data
            }
            return .none
        }
        func receive(completion: Subscribers.Completion<UVURLError>) { self.completion = completion }
    }

    /// A data task and a stream, one after the other on one connection,
    /// against `server`; then what each saw.
    static func exchange(port: Int, version: HTTPVersionPreference) throws -> (Outcomes, PartRecorder, Int) {
        let outcomes = Outcomes()
        let recorder = PartRecorder()
        var connections = 0
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: version)
            outcomes.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(port)", "/first")))
            _ = loop.run()
            session.bytesPublisher(for: h2Request("127.0.0.1:\(port)", "/second")).subscribe(recorder)
            _ = loop.run()
            connections = counter.connections
            session.invalidateAndCancel()
        }
        return (outcomes, recorder, connections)
    }

    static func expectFinalResponseOnly(_ outcomes: Outcomes, _ recorder: PartRecorder, connections: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .success(let value)? = outcomes.values[0] else {
            Issue.record("\(String(describing: outcomes.values[0]))", sourceLocation: sourceLocation)
            return
        }
        #expect(value.response.status == .ok, sourceLocation: sourceLocation)
        #expect(Array(value.data) == body, "the body intact", sourceLocation: sourceLocation)
        #expect(value.response.headerFields[HTTPField.Name("x-final")!] == "yes", sourceLocation: sourceLocation)
        #expect(value.response.headerFields[HTTPField.Name("link")!] == nil, "the 103's field stays with the 103", sourceLocation: sourceLocation)
        #expect(value.response.headerFields[HTTPField.Name("x-checksum")!] == nil, "trailers are dropped",
                sourceLocation: sourceLocation)
        #expect(recorder.statuses == [200], "no 1xx head among the parts", sourceLocation: sourceLocation)
        #expect(recorder.fields.first?[HTTPField.Name("x-checksum")!] == nil, sourceLocation: sourceLocation)
        #expect(recorder.body == body, sourceLocation: sourceLocation)
        #expect(recorder.completion.map { if case .finished = $0 { true } else { false } } == true,
                "\(String(describing: recorder.completion))", sourceLocation: sourceLocation)
        #expect(connections == 1, "the connection serves the second request", sourceLocation: sourceLocation)
    }

    @Test("HTTP/2: HEADERS 103, HEADERS 200, DATA, trailer HEADERS: the 200 and its body, twice on one connection")
    func overHTTP2() throws {
        let server = try ScriptedTCPServer { peer in
            guard peer.h2Handshake() else { return }
            for count in 1...2 {
                guard let streams = peer.readRequests(count), let stream = streams.last else { return }
                peer.write(Frame.response(stream: stream, status: 103, fields: [("link", "</style.css>; rel=preload")])
                           + Frame.response(stream: stream, status: 200, fields: [("x-final", "yes")])
                           + Frame.dataFrame(stream: stream, Array(Self.body[..<1000]))
                           + Frame.dataFrame(stream: stream, Array(Self.body[1000...]))
                           + Frame.trailers(stream: stream, [("x-checksum", "abc")]))
            }
            _ = peer.awaitClose()
        }
        let (outcomes, recorder, connections) = try Self.exchange(port: server.port, version: .http2PriorKnowledge)
        Self.expectFinalResponseOnly(outcomes, recorder, connections: connections)
        let peer = try #require(server.wait())
        #expect(peer.frames.filter { $0.type == Frame.rstStream }.isEmpty, "no stream was reset")
    }

    @Test("HTTP/1.1: 103 Early Hints, then a chunked 200 with a trailer: the 200 and its body, twice on one connection")
    func overHTTP11() throws {
        let chunked = Array("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8)
            + Array("HTTP/1.1 200 OK\r\nX-Final: yes\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n".utf8)
            + Array("3e8\r\n".utf8) + Array(Self.body[..<1000]) + Array("\r\n7d0\r\n".utf8) + Array(Self.body[1000...])
            + Array("\r\n0\r\nX-Checksum: abc\r\n\r\n".utf8)
        let server = try ScriptedTCPServer { peer in
            for count in 1...2 {
                guard peer.read(until: { String(decoding: $0, as: UTF8.self).components(separatedBy: "\r\n\r\n").count > count })
                else { return }
                peer.write(chunked)
            }
            _ = peer.awaitClose()
        }
        let (outcomes, recorder, connections) = try Self.exchange(port: server.port, version: .http1_1)
        Self.expectFinalResponseOnly(outcomes, recorder, connections: connections)
        server.wait()
    }
}
