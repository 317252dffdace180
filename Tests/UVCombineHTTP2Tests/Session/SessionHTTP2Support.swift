import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// Counts the session's connections, and those that speak HTTP/2
/// (SessionWireObserver). Loop thread.
final class ConnectionCounter: SessionWireObserver {
    var connections = 0
    var http2Connections = 0
    func sessionWillWrite(_ bytes: UnsafeRawBufferPointer) {}
    func sessionDidRead(_ bytes: UnsafeRawBufferPointer) {}
    func sessionDidConnect() { connections += 1 }
    func sessionDidConnectHTTP2() { http2Connections += 1 }
}

/// A loop for one test, closed at the end (`uv_loop_close` must be 0).
func withH2Loop(sourceLocation: SourceLocation = #_sourceLocation, _ body: (UVLoop) throws -> Void) throws {
    let loop = try UVLoop()
    try body(loop)
    _ = loop.run()
    #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) { try loop.close() }
}

/// A session with `version`, its connections counted.
func makeH2Session(_ loop: UVLoop, version: HTTPVersionPreference = .http2PriorKnowledge,
                   configure: (inout UVURLSession.Configuration) -> Void = { _ in }) -> (UVURLSession, ConnectionCounter) {
    var configuration = UVURLSession.Configuration()
    configuration.httpVersion = version
    configure(&configuration)
    let session = UVURLSession(loop: loop, configuration: configuration)
    let counter = ConnectionCounter()
    session.engine.wireObserver = counter
    return (session, counter)
}

/// Outcomes of data tasks run together until all are done.
final class Outcomes {
    var values: [Int: Result<(data: Data, response: HTTPResponse), UVURLError>] = [:]
    var cancellables: [AnyCancellable] = []

    func start(_ index: Int, _ publisher: UVURLSession.DataTaskPublisher, whenAll count: Int? = nil, stop loop: UVLoop? = nil) {
        cancellables.append(publisher.sink(receiveCompletion: { [self] completion in
            if case .failure(let error) = completion { values[index] = .failure(error) }
            if let count, values.count == count { loop?.stop() }
        }, receiveValue: { [self] in values[index] = .success($0) }))
    }

    func bodies() -> [Int: String] {
        values.compactMapValues { if case .success(let v) = $0 { String(decoding: v.data, as: UTF8.self) } else { nil } }
    }

    func errors() -> [Int: UVURLError] {
        values.compactMapValues { if case .failure(let e) = $0 { e } else { nil } }
    }
}

/// A streaming subscriber that asks for `initial` parts and then only
/// what the test asks for.
final class HeldSubscriber: Subscriber {
    typealias Input = UVURLSession.ResponsePart
    typealias Failure = UVURLError
    var subscription: (any Subscription)?
    var bodyBytes = 0
    var parts = 0
    var completion: Subscribers.Completion<UVURLError>?
    var onPart: (() -> Void)?
    let initial: Subscribers.Demand

    init(initial: Subscribers.Demand) { self.initial = initial }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(initial)
    }

    func receive(_ input: UVURLSession.ResponsePart) -> Subscribers.Demand {
        parts += 1
        if case .body(let data) = input { bodyBytes += data.count }
        onPart?()
        return .none
    }

    func receive(completion: Subscribers.Completion<UVURLError>) { self.completion = completion }
}

/// `count` deterministic bytes.
func patternBytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

/// A GET for `path` on `authority`.
func h2Request(_ authority: String, _ path: String, scheme: String = "http") -> HTTPRequest {
    HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
}
