import CLibUV
import Foundation
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

@Suite("UVTCP.FetchPublisher")
struct UVTCPFetchPublisherTests {
    typealias Tracker = TrackingSubscriber<Data, UVTCPError>

    /// A server that reads `requestSize` bytes, then answers with `reply`
    /// and closes. Counts its connections.
    final class ReplyServer {
        let listener: UVTCPListener
        var accepted = 0
        var received: [[UInt8]] = []

        init(on loop: UVLoop, requestSize: Int, reply: [UInt8]) throws {
            let box = Unchecked<ReplyServer?>(nil)
            listener = try UVTCP.listen(port: 0, on: loop) { connection in
                guard let server = box.value else { return }
                server.accepted += 1
                let index = server.received.count
                server.received.append([])
                connection.handler = RecordingHandler(onRead: { connection, bytes in
                    server.received[index] += bytes
                    if server.received[index].count == requestSize {
                        connection.write(reply)
                        connection.close()
                    }
                })
                connection.startReading()
            }
            box.value = self
        }
    }

    @Test func sendsTheRequestAndPublishesTheReplyUntilEndOfFile() throws {
        try withLoop { loop in
            let server = try ReplyServer(on: loop, requestSize: 4, reply: Array("pong".utf8))
            let tracker = Tracker()
            let listener = server.listener
            UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: Array("ping".utf8), on: loop)
                .handleEvents(receiveCompletion: { _ in listener.close() })
                .subscribe(tracker)
            loop.run()
            #expect(tracker.values == [Data("pong".utf8)])
            #expect(tracker.completion == .finished)
            #expect(server.received == [Array("ping".utf8)])
        }
    }

    @Test func stopsAtTheLimitAndClosesTheConnection() throws {
        try withLoop { loop in
            var serverSide: UVTCPConnection?
            let serverHandler = RecordingHandler()
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.handler = serverHandler
                connection.write(pattern(100_000)) // and never closes
                connection.startReading()
            }
            let tracker = Tracker()
            UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: [], limit: 1000, on: loop).subscribe(tracker)
            serverHandler.onEnd = { _, _ in listener.close() }
            loop.run()
            #expect(tracker.subscriptionNames == ["FetchPublisher"])
            #expect(tracker.values == [Data(pattern(1000))])
            #expect(tracker.completion == .finished)
            #expect(serverHandler.ends.count == 1) // the client closed at the limit
            #expect(serverSide?.isClosed == true)
        }
    }

    @Test func nothingHappensBeforeTheFirstDemand() throws {
        try withLoop { loop in
            let server = try ReplyServer(on: loop, requestSize: 1, reply: [2])
            let listener = server.listener
            let tracker = Tracker(initialDemand: .none)
            UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: [1], on: loop)
                .handleEvents(receiveCompletion: { _ in listener.close() })
                .subscribe(tracker)
            var acceptedBeforeDemand = -1
            loop.schedule(after: loop.now.advanced(by: .milliseconds(20))) {
                acceptedBeforeDemand = server.accepted
                tracker.request(.max(1))
            }
            loop.run()
            #expect(acceptedBeforeDemand == 0)
            #expect(server.accepted == 1)
            #expect(tracker.values == [Data([2])])
            #expect(tracker.completion == .finished)
        }
    }

    @Test func failuresAreTyped() throws {
        try withLoop { loop in
            let refused = Tracker()
            let unknown = Tracker()
            let listener = try UVTCP.listen(port: 0, on: loop) { $0.close() }
            let port = listener.port
            listener.close()
            loop.run()
            UVTCP.fetch(host: "127.0.0.1", port: port, send: [1], on: loop).subscribe(refused)
            UVTCP.fetch(host: "nonexistent.invalid", port: 80, send: [1], on: loop).subscribe(unknown)
            loop.run()
            guard case .failure(let refusal)? = refused.completion, case .failure(let notFound)? = unknown.completion else {
                Issue.record("expected failures: \(refused.history), \(unknown.history)")
                return
            }
            #expect(refusal.kind == .connectionFailed)
            #expect(refusal.name == "UV_ECONNREFUSED")
            #expect(notFound.kind == .hostNotFound)
            #expect(refused.values.isEmpty && unknown.values.isEmpty)
        }
    }

    @Test func cancelClosesTheSocketInsideTheCallAndSendsNothing() throws {
        try withLoop { loop in
            let tracker = Tracker()
            var peerSawEndOfFileBeforeTheNextIteration = false
            let serverHandler = RecordingHandler()
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                connection.handler = serverHandler
                connection.startReading()
            }
            serverHandler.onRead = { connection, _ in
                // The request arrived: the client is connected and reading.
                guard let fd = connection.fileDescriptor else { return }
                tracker.cancel()
                // The loop thread waits here: only a close inside cancel()
                // can produce the end of file.
                peerSawEndOfFileBeforeTheNextIteration = waitForEndOfFile(fd, milliseconds: 5_000)
                listener.close()
            }
            UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: [1], on: loop).subscribe(tracker)
            loop.run()
            #expect(peerSawEndOfFileBeforeTheNextIteration)
            #expect(tracker.values.isEmpty)
            #expect(tracker.completion == nil)
            #expect(serverHandler.ends.count == 1)
        }
    }

    @Test func cancelWhileConnectingCallsNothingAndReleasesTheSubscriber() throws {
        weak var weakTracker: Tracker?
        try withLoop { loop in
            try {
                let server = try ReplyServer(on: loop, requestSize: 1, reply: [2])
                let tracker = Tracker()
                weakTracker = tracker
                UVTCP.fetch(host: "127.0.0.1", port: server.listener.port, send: [1], on: loop).subscribe(tracker)
                tracker.cancel()
                server.listener.close()
                loop.run()
                #expect(tracker.values.isEmpty)
                #expect(tracker.completion == nil)
            }()
        }
        #expect(weakTracker == nil)
    }

    @Test func eachSubscriptionIsANewExchangeSoRetryWorks() throws {
        // The first two connections are reset (the server closes with the
        // request unread); the third is answered.
        try withLoop { loop in
            let request = [UInt8](repeating: 7, count: 1 << 20)
            var accepted = 0
            var received = 0
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                accepted += 1
                let attempt = accepted
                connection.handler = RecordingHandler(onRead: { connection, bytes in
                    if attempt < 3 {
                        connection.close() // most of the request is still unread: reset
                        return
                    }
                    received += bytes.count
                    if received == request.count {
                        connection.write(Array("ok".utf8))
                        connection.close()
                    }
                })
                connection.startReading()
            }
            let tracker = TrackingSubscriber<Data, UVTCPError>()
            UVTCP.fetch(host: "127.0.0.1", port: listener.port, send: request, on: loop)
                .retry(2)
                .handleEvents(receiveCompletion: { _ in listener.close() })
                .subscribe(tracker)
            loop.run()
            #expect(accepted == 3)
            #expect(tracker.values == [Data("ok".utf8)])
            #expect(tracker.completion == .finished)
        }
    }
}
