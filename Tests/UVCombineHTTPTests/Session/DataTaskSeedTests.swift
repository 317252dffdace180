import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The seed's custom type ("Processing URL session data task results with
/// Combine").
struct User: Codable, Equatable {
    let name: String
    let userID: String
}

let userJSON = #"{"name":"Ada","userID":"a1"}"#

/// The data-task seed scenarios (seeds 000 and 003), with the API map's
/// edits only: a `UVURLSession` on a loop, `HTTPResponse` in place of
/// `HTTPURLResponse`, `receive(on: loop)`. Here on the fake transport, so
/// the request count is exact; the same scenarios run against a real server
/// in `SessionSocketSeedTests`.
@Suite("Seed: data task publisher (fake transport)")
struct DataTaskSeedTests {
    @Test("tryMap checks the status, decode(type:decoder:) makes a User")
    func tryMapAndDecode() {
        withFakeSession { _, fake, urlSession in
            var users: [User] = []
            var completions: [String] = []
            let url = URL(string: "http://example.com/endpoint")!
            let cancellable = urlSession
                .dataTaskPublisher(for: url)
                .tryMap() { element -> Data in
                    guard element.response.status.code == 200 else {
                        throw URLError(.badServerResponse)
                    }
                    return element.data
                }
                .decode(type: User.self, decoder: JSONDecoder())
                .sink(receiveCompletion: { completions.append("\($0)") },
                      receiveValue: { user in users.append(user) })
            fake.last.accept()
            fake.last.respond(response(body: userJSON, fields: ["Content-Type: application/json"]))
            #expect(users == [User(name: "Ada", userID: "a1")])
            #expect(completions == ["finished"])

            // A 500 is a value for the data task, which tryMap turns into an error.
            var failed: (any Error)?
            let second = urlSession.dataTaskPublisher(for: url)
                .tryMap() { element -> Data in
                    guard element.response.status.code == 200 else { throw URLError(.badServerResponse) }
                    return element.data
                }
                .decode(type: User.self, decoder: JSONDecoder())
                .sink(receiveCompletion: { if case .failure(let error) = $0 { failed = error } },
                      receiveValue: { _ in })
            fake.last.respond(response("500 Internal Server Error"))
            #expect((failed as? URLError)?.code == .badServerResponse)
            _ = (cancellable, second)
        }
    }

    @Test("retry(1), then catch with a fallback URL: three requests when both primary attempts fail")
    func retryThenCatch() throws {
        withFakeSession { loop, fake, urlSession in
            let fallbackTransport = FakeTransport()
            let fallbackUrlSession = UVURLSession(loop: loop, configuration: .init(), transport: fallbackTransport)
            let url = URL(string: "http://primary.example/data")!
            let fallbackURL = URL(string: "http://fallback.example/data")!
            var received: [Data] = []
            var completions: [String] = []

            let pub = urlSession
                .dataTaskPublisher(for: url)
                .retry(1)
                .catch() { _ in
                    fallbackUrlSession.dataTaskPublisher(for: fallbackURL)
                }
            let cancellable = pub
                .sink(receiveCompletion: { completions.append("\($0)") },
                      receiveValue: { received.append($0.data) })

            // The original request and the retry both meet a broken server.
            fake.last.accept()
            fake.last.respond("garbage\r\n\r\n")
            fake.last.accept()
            fake.last.respond("garbage\r\n\r\n")
            #expect(fake.requestLines == ["GET /data HTTP/1.1", "GET /data HTTP/1.1"])
            #expect(fallbackTransport.connections.count == 1)
            fallbackTransport.last.accept()
            fallbackTransport.last.respond(response(body: "fallback"))
            #expect(fallbackTransport.requestLines == ["GET /data HTTP/1.1"])
            #expect(received == [Data("fallback".utf8)])
            #expect(completions == ["finished"])
            _ = cancellable
        }
    }

    @Test("retry(1) succeeds on the retry: the fallback is never asked")
    func retrySucceeds() {
        withFakeSession { loop, fake, urlSession in
            let fallbackTransport = FakeTransport()
            let fallbackUrlSession = UVURLSession(loop: loop, configuration: .init(), transport: fallbackTransport)
            var received: [String] = []
            let cancellable = urlSession
                .dataTaskPublisher(for: exampleURL)
                .retry(1)
                .catch() { _ in fallbackUrlSession.dataTaskPublisher(for: URL(string: "http://fallback.example/")!) }
                .sink(receiveCompletion: { _ in }, receiveValue: { received.append(String(decoding: $0.data, as: UTF8.self)) })
            fake.last.refuse()
            fake.last.accept()
            fake.last.respond(response(body: "primary"))
            #expect(received == ["primary"])
            #expect(fallbackTransport.connections.isEmpty)
            _ = cancellable
        }
    }

    @Test("receive(on: loop) delivers on the loop, after the current iteration")
    func receiveOnLoop() {
        withFakeSession { loop, fake, urlSession in
            var received: [String] = []
            let cancellable = urlSession
                .dataTaskPublisher(for: exampleURL)
                .receive(on: loop)
                .sink(receiveCompletion: { received.append("\($0)") },
                      receiveValue: { received.append("data \($0.data.count)") })
            fake.last.accept()
            fake.last.respond(response(body: "12345"))
            #expect(received.isEmpty, "hopped: nothing arrives inside the read callback")
            loop.run()
            #expect(received == ["data 5", "finished"])
            _ = cancellable
        }
    }

    @Test("share(): two subscribers, one request")
    func shareOneRequest() {
        withFakeSession { loop, fake, urlSession in
            var log: [String] = []
            let sharedPublisher = urlSession
                .dataTaskPublisher(for: URL(string: "http://example.com/user")!)
                .share()

            let cancellable1 = sharedPublisher
                .tryMap() {
                    guard $0.data.count > 0 else { throw URLError(.zeroByteResource) }
                    return $0.data
                }
                .decode(type: User.self, decoder: JSONDecoder())
                .receive(on: loop)
                .sink(receiveCompletion: { log.append("completion 1: \($0)") },
                      receiveValue: { log.append("id: \($0.userID)") })

            let cancellable2 = sharedPublisher
                .map() {
                    $0.response
                }
                .sink(receiveCompletion: { log.append("completion 2: \($0)") },
                      receiveValue: { response in log.append("status: \(response.status.code)") })

            fake.last.accept()
            fake.last.respond(response(body: userJSON))
            loop.run()
            #expect(fake.requestLines == ["GET /user HTTP/1.1"], "the data task ran once")
            #expect(log == ["status: 200", "completion 2: finished", "id: a1", "completion 1: finished"])
            _ = (cancellable1, cancellable2)
        }
    }

    @Test("share().makeConnectable(): no request until connect(); both subscribers get the data")
    func makeConnectable() {
        withFakeSession { _, fake, urlSession in
            var log: [String] = []
            let connectable = urlSession
                .dataTaskPublisher(for: exampleURL)
                .map() { $0.data }
                .catch() { _ in Just(Data()) }
                .share()
                .makeConnectable()

            let cancellable1 = connectable
                .sink(receiveCompletion: { log.append("Received completion 1: \($0).") },
                      receiveValue: { log.append("Received data 1: \($0.count) bytes.") })
            let cancellable2 = connectable
                .sink(receiveCompletion: { log.append("Received completion 2: \($0).") },
                      receiveValue: { log.append("Received data 2: \($0.count) bytes.") })
            #expect(fake.connections.isEmpty, "nothing before connect()")

            let connection = connectable.connect()
            #expect(fake.connections.count == 1)
            fake.last.accept()
            fake.last.respond(response(body: "twelve bytes"))
            #expect(fake.requestLines.count == 1)
            #expect(log == [
                "Received data 1: 12 bytes.", "Received data 2: 12 bytes.",
                "Received completion 1: finished.", "Received completion 2: finished.",
            ])
            _ = (cancellable1, cancellable2, connection)
        }
    }

    @Test("share(): a late subscriber sees only the completion")
    func shareLateSubscriber() {
        withFakeSession { _, fake, urlSession in
            var log: [String] = []
            let shared = urlSession.dataTaskPublisher(for: exampleURL).map(\.data).catch { _ in Just(Data()) }.share()
            let first = shared.sink(receiveCompletion: { log.append("1: \($0)") }, receiveValue: { log.append("1: \($0.count)") })
            fake.last.accept()
            fake.last.respond(response(body: "abc"))
            let late = shared.sink(receiveCompletion: { log.append("2: \($0)") }, receiveValue: { log.append("2: \($0.count)") })
            #expect(log == ["1: 3", "1: finished", "2: finished"])
            #expect(fake.requestLines.count == 1)
            _ = (first, late)
        }
    }
}
