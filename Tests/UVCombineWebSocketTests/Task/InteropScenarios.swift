import Foundation
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineWebSocket

/// The scenarios run against each server nobody here wrote (python's
/// websockets, node's ws), with and without permessage-deflate.
enum InteropScenarios {
    static let echoSizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20]

    static func url(_ server: EchoServer, _ path: String, secure: Bool = false) -> URL {
        URL(string: "\(secure ? "wss" : "ws")://127.0.0.1:\(server.port)\(path)")!
    }

    /// Text and binary messages of every size in `echoSizes` echo intact.
    static func echo(_ kind: EchoServer.Kind, deflate: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        var messages: [UVWebSocketTask.Message] = []
        for size in echoSizes {
            messages.append(.string(sampleText(size)))
            messages.append(.data(noise(size)))
        }
        var exchange: EchoExchange?
        try withWebSocketSession { session in
            let task = session.webSocketTask(with: url(server, "/echo"))
            task.maximumMessageSize = 32 << 20
            exchange = EchoExchange(task: task, messages: messages)
            exchange!.start()
        }
        let result = try #require(exchange)
        #expect(result.errors.isEmpty, "\(result.errors) \(String(decoding: result.task.closeReason ?? Data(), as: UTF8.self))")
        #expect(result.received.count == messages.count)
        for (sent, echoed) in zip(messages, result.received) where sent != echoed {
            Issue.record("echo differs for a message of \(sent)")
        }
        #expect((result.task.compression != nil) == deflate)
        #expect(result.task.closeCode == .normalClosure)
        #expect(result.finalReceive?.reason == .closed)
    }

    /// Messages sent in 1000-byte fragments come back whole; with
    /// `serverFragments`, the server fragments its echo too.
    static func fragmented(_ kind: EchoServer.Kind, deflate: Bool, serverFragments: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        let messages: [UVWebSocketTask.Message] = [.string(sampleText(100_000)), .data(noise(54_321))]
        var exchange: EchoExchange?
        try withWebSocketSession { session in
            var options = UVWebSocketTask.Options()
            options.maximumFrameSize = 1000
            let task = session.webSocketTask(with: url(server, serverFragments ? "/fragmented" : "/echo"), options: options)
            exchange = EchoExchange(task: task, messages: messages)
            exchange!.start()
        }
        let result = try #require(exchange)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.received == messages)
    }

    /// A ping gets its pong; the async form too.
    static func ping(_ kind: EchoServer.Kind, deflate: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        let outcome = Outcome()
        try withWebSocketSession { session in
            let task = session.webSocketTask(with: url(server, "/echo"))
            task.resume()
            task.sendPing { error in
                outcome.pongError = error
                outcome.pongs += 1
                task.sendPing { error in
                    outcome.pongs += error == nil ? 1 : 0
                    task.cancel(with: .normalClosure, reason: nil)
                }
            }
        }
        #expect(outcome.pongError == nil)
        #expect(outcome.pongs == 2)
    }

    /// The client closes: the server answers with 1000, the messages
    /// publisher finishes, the send publisher finishes after the handshake.
    static func clientClose(_ kind: EchoServer.Kind, deflate: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        let outcome = Outcome()
        var cancellables: [AnyCancellable] = []
        var task: UVWebSocketTask?
        try withWebSocketSession { session in
            let socket = session.webSocketTask(with: url(server, "/echo"))
            task = socket
            socket.messages.sink(receiveCompletion: { outcome.messagesCompletion = $0 },
                                 receiveValue: { outcome.messages.append($0) })
                .store(in: &cancellables)
            socket.sendPublisher(["one", "two", "three"].publisher.map { UVWebSocketTask.Message.string($0) })
                .sink(receiveCompletion: { outcome.sendCompletion = $0 }, receiveValue: { _ in })
                .store(in: &cancellables)
        }
        // Echoes that arrived before the close frame went out are delivered;
        // the rest are dropped (the client is closing).
        #expect(outcome.messages == Array([UVWebSocketTask.Message.string("one"), .string("two"), .string("three")]
            .prefix(outcome.messages.count)))
        #expect(outcome.sendCompletion == .finished)
        #expect(outcome.messagesCompletion == .finished)
        #expect(task?.closeCode == .normalClosure)
        #expect(task?.state == .completed)
    }

    /// The server closes with 4001 and a reason after echoing.
    static func serverClose(_ kind: EchoServer.Kind, deflate: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        let outcome = Outcome()
        var task: UVWebSocketTask?
        try withWebSocketSession { session in
            let socket = session.webSocketTask(with: url(server, "/close/4001"))
            task = socket
            socket.resume()
            socket.send(.string("hi")) { _ in }
            socket.receive { first in
                outcome.firstReceive = first
                socket.receive { second in outcome.secondReceive = second }
            }
        }
        #expect(outcome.firstReceive == .success(.string("hi")))
        #expect(outcome.secondReceive == .failure(WebSocketError(.closed, closeCode: WebSocketCloseCode(rawValue: 4001))))
        #expect(task?.closeCode == WebSocketCloseCode(rawValue: 4001))
        #expect(task?.closeReason == Data("server says bye".utf8))
    }

    /// The server drops TCP without a close frame: 1006.
    static func abruptClose(_ kind: EchoServer.Kind, deflate: Bool) throws {
        let server = try EchoServer(kind, deflate: deflate)
        defer { server.stop() }
        let outcome = Outcome()
        var task: UVWebSocketTask?
        try withWebSocketSession { session in
            let socket = session.webSocketTask(with: url(server, "/drop"))
            task = socket
            socket.messages.sink(receiveCompletion: { outcome.messagesCompletion = $0 },
                                 receiveValue: { outcome.messages.append($0) })
                .store(in: &outcome.cancellables)
            socket.send(.string("hi")) { _ in }
        }
        #expect(outcome.messages.count <= 1)
        guard case .failure(let error) = outcome.messagesCompletion else {
            Issue.record("expected a failure, got \(String(describing: outcome.messagesCompletion))")
            return
        }
        // An RST (python's abort) reports the transport's error, a FIN 1006.
        switch error.reason {
        case .abnormalClosure, .transport: break
        default: Issue.record("unexpected \(error)")
        }
        #expect(error.closeCode == .abnormalClosure)
        #expect(task?.closeCode == .abnormalClosure)
        outcome.cancellables = []
    }

    /// Loop-thread results of a scenario.
    final class Outcome: @unchecked Sendable {
        var pongError: WebSocketError?
        var pongs = 0
        var messages: [UVWebSocketTask.Message] = []
        var messagesCompletion: Subscribers.Completion<WebSocketError>?
        var sendCompletion: Subscribers.Completion<WebSocketError>?
        var firstReceive: Result<UVWebSocketTask.Message, WebSocketError>?
        var secondReceive: Result<UVWebSocketTask.Message, WebSocketError>?
        var cancellables: [AnyCancellable] = []
    }
}
