import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

typealias DataTaskTracker = TrackingSubscriber<(data: Data, response: HTTPResponse), UVURLError>

let exampleURL = URL(string: "http://example.com/a")!

extension DataTaskTracker {
    /// The bodies received, as text.
    var bodies: [String] { values.map { String(decoding: $0.data, as: UTF8.self) } }
    /// The status codes received.
    var statusCodes: [Int] { values.map(\.response.status.code) }
}

/// The data task publisher's Combine semantics, on the fake transport.
@Suite("DataTaskPublisher")
struct DataTaskPublisherTests {
    @Test("the request starts on the first demand, not on subscribe")
    func startsOnDemand() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker(initialDemand: .none)
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            #expect(tracker.subscriptionNames == ["DataTaskPublisher"])
            #expect(fake.connections.isEmpty)
            tracker.request(.max(1))
            #expect(fake.connections.count == 1)
            #expect(fake.last.host == "example.com" && fake.last.port == 80)
            // A running task holds its session; cancelling lets it go.
            tracker.cancel()
        }
    }

    @Test("one value, then finished; the request is written as expected")
    func oneValueThenFinished() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            #expect(fake.last.writtenText == "GET /a HTTP/1.1\r\nHost: example.com\r\nAccept-Encoding: gzip, deflate\r\n\r\n")
            fake.last.respond(response(body: "hello", fields: ["Content-Type: text/plain"]))
            #expect(tracker.bodies == ["hello"])
            #expect(tracker.values.first?.response.headerFields[.contentType] == "text/plain")
            #expect(tracker.completion == .finished)
            #expect(tracker.completionCount == 1)
        }
    }

    @Test("4xx and 5xx responses are values, not failures", arguments: ["404 Not Found", "500 Internal Server Error"])
    func errorStatusesAreValues(status: String) {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response(status, body: "nope"))
            #expect(tracker.statusCodes == [Int(status.prefix(3))!])
            #expect(tracker.bodies == ["nope"])
            #expect(tracker.completion == .finished)
        }
    }

    @Test("a request with a body and header fields")
    func requestWithBody() {
        withFakeSession { _, fake, session in
            var request = HTTPRequest(method: .post, scheme: "http", authority: "example.com:8080", path: "/items?x=1")
            request.headerFields[.contentType] = "application/json"
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: request, body: Data("{}".utf8)).subscribe(tracker)
            #expect(fake.last.port == 8080)
            fake.last.accept()
            #expect(fake.last.writtenText
                == "POST /items?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Type: application/json\r\nAccept-Encoding: gzip, deflate\r\nContent-Length: 2\r\n\r\n{}")
            fake.last.respond(response("201 Created"))
            #expect(tracker.statusCodes == [201])
        }
    }

    @Test("each subscription is a new request")
    func eachSubscriptionIsANewRequest() {
        withFakeSession { _, fake, session in
            let publisher = session.dataTaskPublisher(for: exampleURL)
            let first = DataTaskTracker()
            publisher.subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let second = DataTaskTracker()
            publisher.subscribe(second)
            fake.last.respond(response(body: "2"))
            #expect(first.bodies == ["1"])
            #expect(second.bodies == ["2"])
            #expect(fake.requestLines == ["GET /a HTTP/1.1", "GET /a HTTP/1.1"])
            #expect(fake.connections.count == 1, "the second request reuses the keep-alive connection")
        }
    }

    @Test("retry(1) re-issues the request after a failure")
    func retryReissues() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).retry(1).subscribe(tracker)
            fake.last.refuse()
            #expect(fake.connections.count == 2, "retry subscribed again, which connects again")
            fake.last.accept()
            fake.last.respond(response(body: "second time"))
            #expect(tracker.bodies == ["second time"])
            #expect(tracker.completion == .finished)
        }
    }

    @Test("cancel before the first demand: nothing is sent, nothing arrives")
    func cancelBeforeDemand() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker(initialDemand: .none)
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            tracker.cancel()
            #expect(fake.connections.isEmpty)
            #expect(tracker.history == ["subscription(DataTaskPublisher)"])
        }
    }

    @Test("cancel while connecting: nothing arrives, and the connection is pooled once established")
    func cancelWhileConnectingKeepsConnection() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            tracker.cancel()
            #expect(!fake.last.isClosed)
            fake.last.accept()
            #expect(fake.last.writeCount == 0)
            #expect(!fake.last.isClosed, "nothing was written: the connection stays, idle")
            #expect(!fake.last.keepsLoopAlive, "an idle connection does not keep the loop alive")
            // The next request uses it.
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(next)
            #expect(fake.connections.count == 1)
            #expect(fake.last.keepsLoopAlive)
            fake.last.respond(response(body: "ok"))
            #expect(next.bodies == ["ok"])
            #expect(tracker.history == ["subscription(DataTaskPublisher)"])
        }
    }

    @Test("cancel after the request was written closes the connection; nothing arrives")
    func cancelMidRequestClosesConnection() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            #expect(fake.last.writeCount == 1)
            tracker.cancel()
            #expect(fake.last.isClosed)
            #expect(session.engine.connectionCount == 0)
            #expect(session.engine.runningTaskCount == 0)
            #expect(session.engine.deadlineCount == 0)
            #expect(tracker.history == ["subscription(DataTaskPublisher)"])
            // The session keeps working.
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(next)
            fake.last.accept()
            fake.last.respond(response(body: "fine"))
            #expect(next.bodies == ["fine"])
        }
    }

    @Test("cancel from inside receiveValue is fine; cancel is idempotent")
    func cancelInsideDelivery() {
        withFakeSession { _, fake, session in
            var received: [Int] = []
            var completions = 0
            var cancellable: AnyCancellable?
            cancellable = session.dataTaskPublisher(for: exampleURL)
                .sink(receiveCompletion: { _ in completions += 1 }, receiveValue: {
                    received.append($0.response.status.code)
                    cancellable?.cancel()
                    cancellable?.cancel()
                })
            fake.last.accept()
            fake.last.respond(response(body: "x"))
            #expect(received == [200])
            #expect(completions == 0, "cancelled inside the value: the completion is not delivered")
            _ = cancellable
        }
    }

    @Test("the subscription is released after cancel and after completion")
    func releasedAfterCancelAndCompletion() {
        withFakeSession { _, fake, session in
            weak var cancelledSubscription: AnyObject?
            weak var finishedSubscription: AnyObject?
            do {
                let tracker = DataTaskTracker()
                session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
                fake.last.accept()
                let subscription = Subscribing.capture(session.dataTaskPublisher(for: exampleURL))
                cancelledSubscription = subscription.object
                subscription.cancel()
                fake.connections[0].respond(response(body: "done"))
                #expect(tracker.completion == .finished)
            }
            do {
                let catcher = Subscribing.capture(session.dataTaskPublisher(for: exampleURL))
                finishedSubscription = catcher.object
                catcher.request(.unlimited)
                #expect(fake.connections.count == 1, "the idle connection is reused")
                fake.last.respond(response(body: "done"))
                #expect(catcher.finished)
            }
            #expect(cancelledSubscription == nil)
            #expect(finishedSubscription == nil)
        }
    }

    @Test("demand: a subscriber asking for .max(1) gets exactly one value, then finished")
    func demandAccounting() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker(initialDemand: .max(1))
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            tracker.request(.max(3))
            #expect(fake.connections.count == 1, "later demand does not start another request")
            fake.last.accept()
            fake.last.respond(response(body: "one"))
            #expect(tracker.bodies == ["one"])
            #expect(tracker.completion == .finished)
        }
    }
}

/// Holds a subscription for lifetime tests, without a retain cycle.
final class Subscribing: Subscriber, @unchecked Sendable {
    typealias Input = (data: Data, response: HTTPResponse)
    typealias Failure = UVURLError

    private(set) var subscription: (any Subscription)?
    private(set) var finished = false

    static func capture(_ publisher: UVURLSession.DataTaskPublisher) -> Subscribing {
        let subscriber = Subscribing()
        publisher.subscribe(subscriber)
        return subscriber
    }

    var object: AnyObject? { subscription.map { $0 as AnyObject } }

    func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }

    func receive(subscription: any Subscription) { self.subscription = subscription }
    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<UVURLError>) {
        finished = true
        subscription = nil
    }
}
