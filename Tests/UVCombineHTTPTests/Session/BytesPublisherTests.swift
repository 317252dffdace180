import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

typealias PartsTracker = TrackingSubscriber<UVURLSession.ResponsePart, UVURLError>

extension PartsTracker {
    /// The parts as strings: `head(200)` and the body texts.
    var parts: [String] {
        values.map { part in
            switch part {
            case .head(let response): "head(\(response.status.code))"
            case .body(let data): String(decoding: data, as: UTF8.self)
            }
        }
    }

    /// The body bytes received so far.
    var bodyByteCount: Int { values.reduce(0) { $0 + ($1.data?.count ?? 0) } }
}

/// The streaming publisher: head, body parts, demand-driven reads.
@Suite("BytesPublisher")
struct BytesPublisherTests {
    @Test("the head, then body parts as they arrive, then finished")
    func headThenParts() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker()
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            #expect(tracker.subscriptionNames == ["BytesPublisher"])
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            #expect(tracker.parts == ["head(200)"])
            fake.last.respond("5\r\nhello\r\n")
            fake.last.respond("6\r\n world\r\n0\r\n\r\n")
            #expect(tracker.parts == ["head(200)", "hello", " world"])
            #expect(tracker.completion == .finished)
            #expect(!fake.last.isClosed, "the connection is pooled after a complete response")
        }
    }

    @Test("the request starts on the first demand")
    func startsOnDemand() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker(initialDemand: .none)
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            #expect(fake.connections.isEmpty)
            tracker.request(.max(1))
            #expect(fake.connections.count == 1)
            tracker.cancel()
        }
    }

    @Test("demand .max(1) at a time: exactly one part per request; reading stops while demand is zero")
    func demandDrivesReading() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker(initialDemand: .max(1))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nab")
            #expect(tracker.parts == ["head(200)"])
            #expect(!fake.last.isReading, "no demand: reading stopped")
            fake.last.respond("cd")
            #expect(fake.last.inbound.count == 2, "the bytes stay with the kernel")
            tracker.request(.max(1))
            #expect(tracker.parts == ["head(200)", "ab"])
            #expect(!fake.last.isReading)
            tracker.request(.max(1))
            #expect(fake.last.isReading, "demand again: reading resumed")
            fake.last.pump()
            #expect(tracker.parts == ["head(200)", "ab", "cd"])
            tracker.request(.max(1))
            fake.last.respond("ef")
            #expect(tracker.parts == ["head(200)", "ab", "cd", "ef"])
            #expect(tracker.completion == .finished, "the completion needs no demand")
        }
    }

    @Test("backpressure: a stalled subscriber holds at most one read buffer")
    func stalledSubscriberHoldsOneBuffer() {
        withFakeSession { _, fake, session in
            fake.readBufferSize = 1024
            let tracker = PartsTracker(initialDemand: .max(2))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            let body = [UInt8](repeating: 0x61, count: 100 * 1024)
            fake.last.respond(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            #expect(tracker.values.count == 2)
            #expect(!fake.last.isReading)
            #expect(fake.last.inbound.count > 90 * 1024, "the rest waits in the kernel, not in the client")
            #expect(fake.last.stopCount == 1)
            // Drain at one part per request.
            var requests = 0
            while tracker.completion == nil && requests < 1000 {
                tracker.request(.max(1))
                fake.last.pump()
                requests += 1
            }
            #expect(tracker.bodyByteCount == body.count)
            #expect(tracker.completion == .finished)
            #expect(fake.last.largestRead <= 1024)
        }
    }

    @Test("the idle read timeout does not run while the subscriber stalls; the total does")
    func timeoutsWhilePaused() {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = .seconds(5)
        configuration.totalTimeout = .seconds(100)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = PartsTracker(initialDemand: .max(1))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab")
            fake.advance(by: .seconds(50))
            #expect(tracker.completion == nil, "paused by the subscriber: no idle read timeout")
            tracker.request(.max(1))
            #expect(tracker.parts == ["head(200)", "ab"])
            tracker.request(.max(1))
            fake.advance(by: .seconds(5))
            #expect(failure(of: tracker)?.timeoutKind == .idleRead, "reading again: the server is late")
        }
    }

    @Test("cancel while paused closes the connection and sends nothing more")
    func cancelWhilePaused() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker(initialDemand: .max(1))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab")
            tracker.cancel()
            #expect(fake.last.isClosed)
            #expect(tracker.parts == ["head(200)"])
            #expect(tracker.completion == nil)
            #expect(session.engine.runningTaskCount == 0)
        }
    }

    @Test("cancel from inside a part stops the response")
    func cancelInsidePart() {
        withFakeSession { _, fake, session in
            var parts: [String] = []
            var cancellable: AnyCancellable?
            cancellable = session.bytesPublisher(for: exampleURL).sink(receiveCompletion: { _ in
                parts.append("completion")
            }, receiveValue: { part in
                if let data = part.data {
                    parts.append(String(decoding: data, as: UTF8.self))
                    cancellable?.cancel()
                }
            })
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n")
            #expect(parts == ["a"])
            #expect(fake.last.isClosed)
            _ = cancellable
        }
    }

    @Test("redirects are followed before the head goes out")
    func redirected() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker()
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("307 Temporary Redirect", body: "elsewhere", fields: ["Location: /b"]))
            fake.last.respond(response(body: "final"))
            #expect(tracker.parts == ["head(200)", "final"])
            #expect(tracker.completion == .finished)
        }
    }

    @Test("failures are typed")
    func typedFailure() {
        withFakeSession { _, fake, session in
            let tracker = PartsTracker()
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab")
            fake.last.endOfStream()
            #expect(tracker.parts == ["head(200)", "ab"])
            if case .failure(let error) = tracker.completion {
                #expect(error.code == .networkConnectionLost)
            } else {
                Issue.record("expected a failure, got \(tracker.history)")
            }
        }
    }
}
