import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The data-task seed scenarios again, on real sockets: the client's loop
/// runs on the test thread, `TestHTTPServer` on its own loop thread, and
/// the server's request counter says how many requests each pipeline made.
/// Cancellables are held with `withExtendedLifetime` around `run()`: the
/// optimiser may end a local's lifetime at its last use, and a released
/// `AnyCancellable` cancels.
@Suite("Seed: data task publisher (sockets)")
struct SessionSocketSeedTests {
    @Test("tryMap checks the status, decode(type:decoder:) makes a User; a 500 becomes the tryMap error")
    func tryMapAndDecode() throws {
        let server = try TestHTTPServer(routes: [
            "/user": .text(userJSON),
            "/broken": .text("oops", status: .internalServerError),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let urlSession = UVURLSession(loop: loop)
            func pipeline(_ path: String) -> AnyPublisher<User, any Error> {
                urlSession
                    .dataTaskPublisher(for: server.url(path))
                    .tryMap() { element -> Data in
                        guard element.response.status.code == 200 else {
                            throw URLError(.badServerResponse)
                        }
                        return element.data
                    }
                    .decode(type: User.self, decoder: JSONDecoder())
                    .eraseToAnyPublisher()
            }
            var users: [User] = []
            var completions: [String] = []
            var failure: (any Error)?
            let good = pipeline("/user")
                .sink(receiveCompletion: { completions.append("\($0)") }, receiveValue: { users.append($0) })
            let bad = pipeline("/broken")
                .sink(receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
                      receiveValue: { users.append($0) })
            withExtendedLifetime((good, bad)) { _ = loop.run() }
            #expect(users == [User(name: "Ada", userID: "a1")])
            #expect(completions == ["finished"])
            #expect((failure as? URLError)?.code == .badServerResponse)
            #expect(server.requestCount == 2)
        }
    }

    @Test("retry(1), then catch to a fallback URL: the primary sees two requests, the fallback one")
    func retryThenCatch() throws {
        let primary = try TestHTTPServer(routes: ["/data": .fault(.malformedStatusLine)])
        defer { primary.shutdown() }
        let fallback = try TestHTTPServer(routes: ["/data": .text("fallback")])
        defer { fallback.shutdown() }
        withRealLoop { loop in
            let urlSession = UVURLSession(loop: loop)
            var received: [String] = []
            var completions: [String] = []
            let cancellable = urlSession
                .dataTaskPublisher(for: primary.url("/data"))
                .retry(1)
                .catch() { _ in
                    urlSession.dataTaskPublisher(for: fallback.url("/data"))
                }
                .sink(receiveCompletion: { completions.append("\($0)") },
                      receiveValue: { received.append(String(decoding: $0.data, as: UTF8.self)) })
            withExtendedLifetime(cancellable) { _ = loop.run() }
            #expect(received == ["fallback"])
            #expect(completions == ["finished"])
            #expect(primary.requestCount == 2, "the request and its retry")
            #expect(fallback.requestCount == 1)
        }
    }

    @Test("receive(on: loop): values arrive on the loop thread, in a later iteration than the read")
    func receiveOnLoop() throws {
        let server = try TestHTTPServer(routes: ["/": .text("12345")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let urlSession = UVURLSession(loop: loop)
            var received: [String] = []
            var onLoop: [Bool] = []
            let cancellable = urlSession
                .dataTaskPublisher(for: server.url("/"))
                .receive(on: loop)
                .sink(receiveCompletion: { received.append("\($0)"); onLoop.append(loop.isInLoop) },
                      receiveValue: { received.append("data \($0.data.count)"); onLoop.append(loop.isInLoop) })
            withExtendedLifetime(cancellable) { _ = loop.run() }
            #expect(received == ["data 5", "finished"])
            #expect(onLoop == [true, true])
        }
    }

    @Test("share(): two subscribers, one request (the server counts)")
    func shareOneRequest() throws {
        let server = try TestHTTPServer(routes: ["/user": .text(userJSON)])
        defer { server.shutdown() }
        withRealLoop { loop in
            let urlSession = UVURLSession(loop: loop)
            var log: [String] = []
            let sharedPublisher = urlSession
                .dataTaskPublisher(for: server.url("/user"))
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
                .map() { $0.response }
                .sink(receiveCompletion: { log.append("completion 2: \($0)") },
                      receiveValue: { log.append("status: \($0.status.code)") })
            withExtendedLifetime((cancellable1, cancellable2)) { _ = loop.run() }
            #expect(server.requestCount == 1, "the data task ran once")
            #expect(log == ["status: 200", "completion 2: finished", "id: a1", "completion 1: finished"])
        }
    }

    @Test("share().makeConnectable(): no request until connect(); both subscribers get the data")
    func makeConnectable() throws {
        let server = try TestHTTPServer(routes: ["/": .text("twelve bytes")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let urlSession = UVURLSession(loop: loop)
            var log: [String] = []
            let connectable = urlSession
                .dataTaskPublisher(for: server.url("/"))
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
            // Subscribed but not connected: the loop has nothing to do.
            withExtendedLifetime((cancellable1, cancellable2)) { _ = loop.run() }
            #expect(server.requestCount == 0, "nothing before connect()")
            #expect(log.isEmpty)

            let connection = connectable.connect()
            withExtendedLifetime((cancellable1, cancellable2, connection)) { _ = loop.run() }
            #expect(server.requestCount == 1)
            #expect(log == [
                "Received data 1: 12 bytes.", "Received data 2: 12 bytes.",
                "Received completion 1: finished.", "Received completion 2: finished.",
            ])
        }
    }
}
