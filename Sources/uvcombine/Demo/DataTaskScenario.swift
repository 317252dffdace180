import Foundation
import Synchronization
import UVCombine

/// "Processing URL session data task results with Combine" (Apple), each
/// snippet against the embedded server:
///
/// 1. `tryMap` rejects a response that is not 200, `decode` parses the
///    JSON into a `User`.
/// 2. `retry(1)` re-issues a failed request, `catch` falls back to a
///    second session and URL; when all three fail the sink gets the error.
/// 3. `receive(on:)` moves delivery from the session's loop thread (its
///    "delegate queue") to the main loop.
/// 4. `share()` serves two subscribers from one request (the server
///    counts them).
///
/// `urlSession` runs on a loop thread of its own, as URLSession's
/// delegate queue does; the main loop waits for the sinks' completions.
struct DataTaskScenario: DemoScenario {
    let title = "Data tasks: tryMap + decode, retry + catch, receive(on:), and share() with one request"
    let source = "Apple, \"Processing URL session data task results with Combine\""
    let verdict = "decoded, retried, fell back, hopped threads, and served two subscribers with one request"

    func run(_ demo: DemoContext) -> [String] {
        let background: UVLoopThread
        do {
            background = try UVLoopThread()
        } catch {
            return ["could not start the session's loop thread: \(error)"]
        }
        var problems: [String] = []
        do {
            let urlSession = UVURLSession(loop: background.loop)
            problems += decoding(demo, urlSession: urlSession)
            say("")
            problems += retryingAndCatching(demo, sessionLoop: background.loop)
            say("")
            problems += receivingOn(demo, urlSession: urlSession, sessionLoop: background.loop)
            say("")
            problems += sharing(demo)
        }
        do {
            try background.shutdown()
        } catch {
            problems.append("the session's loop thread did not shut down cleanly: \(error)")
        }
        return problems
    }

    // MARK: tryMap and decode

    private func decoding(_ demo: DemoContext, urlSession: UVURLSession) -> [String] {
        let log = demo.log
        log("urlSession.dataTaskPublisher(for: url)")
        log("    .tryMap() { guard statusCode == 200 else { throw URLError(.badServerResponse) }; return element.data }")
        log("    .decode(type: User.self, decoder: JSONDecoder())")
        var problems: [String] = []
        for path in ["/endpoint", "/missing-user"] {
            let latch = Latch(loop: demo.loop, count: 1)
            let users = Shared<[User]>([])
            let failure = Shared<URLError.Code?>(nil)
            log("url = \(path)")
            let cancellable = urlSession
                .dataTaskPublisher(for: demo.server.url(path))
                .tryMap() { element -> Data in
                    guard element.response.status.code == 200 else {
                        throw URLError(.badServerResponse)
                    }
                    return element.data
                }
                .decode(type: User.self, decoder: JSONDecoder())
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion {
                        failure.update { $0 = (error as? URLError)?.code }
                        log("Received completion: failure(\(Self.describe(error))).")
                    } else {
                        log("Received completion: \(completion).")
                    }
                    latch.signal()
                }, receiveValue: { user in
                    users.update { $0.append(user) }
                    log("Received user: \(user).")
                })
            demo.run()
            cancellable.cancel()
            if path == "/endpoint" {
                if users.value != [DemoRoutes.user] || failure.value != nil {
                    problems.append("decode: expected \(DemoRoutes.user), saw \(users.value)")
                }
            } else if !users.value.isEmpty || failure.value != .badServerResponse {
                problems.append("tryMap: a 404 should fail with URLError(.badServerResponse), saw \(users.value), \(String(describing: failure.value))")
            }
        }
        return problems
    }

    // MARK: retry and catch

    private func retryingAndCatching(_ demo: DemoContext, sessionLoop: UVLoop) -> [String] {
        let log = demo.log
        log("let pub = urlSession.dataTaskPublisher(for: url)")
        log("    .retry(1)")
        log("    .catch() { _ in self.fallbackUrlSession.dataTaskPublisher(for: fallbackURL) }")
        var problems: [String] = []
        let cases: [(url: String, fallback: String, story: String)] = [
            ("/flaky", "/fallback", "the first request fails (connection dropped), the retry succeeds"),
            ("/down", "/fallback", "the request and its retry fail, the fallback URL succeeds"),
            ("/down", "/down", "all three fail: the sink receives the failure"),
        ]
        for (url, fallbackURL, story) in cases {
            log("url = \(url), fallbackURL = \(fallbackURL): \(story)")
            // Fresh sessions: no pooled keep-alive connection, whose
            // transparent retry would hide the first failure from retry(1).
            let urlSession = UVURLSession(loop: sessionLoop)
            let fallbackUrlSession = UVURLSession(loop: sessionLoop)
            let hitsBefore = (url: demo.server.hits(url), fallback: demo.server.hits(fallbackURL))
            let latch = Latch(loop: demo.loop, count: 1)
            let bodies = Shared<[Data]>([])
            let failure = Shared<UVURLError?>(nil)
            let pub = urlSession
                .dataTaskPublisher(for: demo.server.url(url))
                .handleEvents(receiveCompletion: {
                    if case .failure(let error) = $0 { log("the data task failed: \(error)") }
                })
                .retry(1)
                .catch() { _ in
                    fallbackUrlSession.dataTaskPublisher(for: demo.server.url(fallbackURL))
                }
            let cancellable = pub
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion { failure.update { $0 = error } }
                    log("Received completion: \(completion).")
                    latch.signal()
                }, receiveValue: { element in
                    bodies.update { $0.append(element.data) }
                    log("Received data: \(element.data).")
                })
            demo.run()
            cancellable.cancel()

            let requests = demo.server.hits(url) - hitsBefore.url
            let fallbacks = demo.server.hits(fallbackURL) - hitsBefore.fallback
            switch url {
            case "/flaky":
                log("requests: \(requests) to \(url), \(fallbacks) to \(fallbackURL)")
                if bodies.value != [Data(DemoRoutes.flaky)] || failure.value != nil || requests != 2 || fallbacks != 0 {
                    problems.append("retry: expected the retry's data after 2 requests and no fallback, saw \(bodies.value), \(requests) requests, \(fallbacks) fallbacks")
                }
            case _ where fallbackURL == "/fallback":
                log("requests: \(requests) to \(url), \(fallbacks) to \(fallbackURL)")
                if bodies.value != [Data(DemoRoutes.fallback)] || failure.value != nil || requests != 2 || fallbacks != 1 {
                    problems.append("catch: expected the fallback's data after 2 failed requests, saw \(bodies.value), \(requests) requests, \(fallbacks) fallbacks")
                }
            default:
                log("requests: \(requests) to \(url) (the fallback included)")
                if !bodies.value.isEmpty || failure.value?.code != .networkConnectionLost || requests != 3 {
                    problems.append("all failing: expected a networkConnectionLost failure after 3 requests, saw \(String(describing: failure.value)), \(requests) requests")
                }
            }
        }
        return problems
    }

    // MARK: receive(on:)

    private func receivingOn(_ demo: DemoContext, urlSession: UVURLSession, sessionLoop: UVLoop) -> [String] {
        let log = demo.log
        log("urlSession.dataTaskPublisher(for: url)")
        log("    .receive(on: loop)   // DispatchQueue.main in the seed: the main thread's loop")
        let latch = Latch(loop: demo.loop, count: 1)
        let onSessionThread = Shared<[Bool]>([])
        var onMainLoop: [Bool] = []
        let cancellable = urlSession
            .dataTaskPublisher(for: demo.server.url("/endpoint"))
            .handleEvents(receiveOutput: { _ in
                onSessionThread.update { $0.append(sessionLoop.isInLoop) }
                log("the data task delivers on the session's loop thread")
            })
            .receive(on: demo.loop)
            .sink(receiveCompletion: {
                log("Received completion: \($0).")
                latch.signal()
            }, receiveValue: {
                onMainLoop.append(demo.loop.isInLoop)
                log("Received data: \($0.data). (on the main loop: \(demo.loop.isInLoop))")
            })
        demo.run()
        cancellable.cancel()
        if onSessionThread.value != [true] || onMainLoop != [true] {
            return ["receive(on:): expected delivery on the session's thread, then on the main loop; saw \(onSessionThread.value), \(onMainLoop)"]
        }
        return []
    }

    // MARK: share

    private func sharing(_ demo: DemoContext) -> [String] {
        let log = demo.log
        // The main loop's session: both subscribers attach before the loop
        // runs again, so neither can miss the response (the seed's caveat:
        // otherwise use makeConnectable()).
        let urlSession = UVURLSession(loop: demo.loop)
        let requestsBefore = demo.server.hits("/endpoint")
        log("let sharedPublisher = urlSession.dataTaskPublisher(for: url).print(\"data task\").share()")
        let sharedPublisher = urlSession
            .dataTaskPublisher(for: demo.server.url("/endpoint"))
            .print("data task", to: LogStream(log: log))
            .share()

        var ids: [String] = []
        var statuses: [Int] = []
        var completions: [String] = []
        log("cancellable1 = sharedPublisher.tryMap { … }.decode(type: User.self, …).receive(on: loop).sink(…)")
        let cancellable1 = sharedPublisher
            .tryMap() {
                guard $0.data.count > 0 else { throw URLError(.zeroByteResource) }
                return $0.data
            }
            .decode(type: User.self, decoder: JSONDecoder())
            .receive(on: demo.loop)
            .sink(receiveCompletion: { completions.append("1: \($0)"); log("Received completion 1: \($0).") },
                  receiveValue: { ids.append($0.userID); log("Received id: \($0.userID).") })
        log("cancellable2 = sharedPublisher.map() { $0.response }.sink(…)")
        let cancellable2 = sharedPublisher
            .map() {
                $0.response
            }
            .sink(receiveCompletion: { completions.append("2: \($0)"); log("Received completion 2: \($0).") },
                  receiveValue: { response in
                      statuses.append(response.status.code)
                      log("Received HTTP status: \(response.status.code).")
                  })
        demo.run()
        cancellable1.cancel()
        cancellable2.cancel()

        let requests = demo.server.hits("/endpoint") - requestsBefore
        log("The server saw \(requests) request\(requests == 1 ? "" : "s") for both subscribers.")
        var problems: [String] = []
        if requests != 1 { problems.append("share(): expected one request, the server saw \(requests)") }
        if ids != [DemoRoutes.user.userID] { problems.append("share(): subscriber 1 received ids \(ids)") }
        if statuses != [200] { problems.append("share(): subscriber 2 received statuses \(statuses)") }
        if Set(completions) != ["1: finished", "2: finished"] {
            problems.append("share(): completions \(completions)")
        }
        return problems
    }

    /// `URLError`'s code by name, for the log (its description on Linux is
    /// NSError's).
    private static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "\(error)" }
        switch urlError.code {
        case .badServerResponse: return "URLError(.badServerResponse)"
        case .zeroByteResource: return "URLError(.zeroByteResource)"
        default: return "URLError(\(urlError.code.rawValue))"
        }
    }
}

/// Counts down completions that may arrive on any thread; while any are
/// outstanding the loop keeps running (``UVLoop/keepAlive()``).
final class Latch: Sendable {
    private let remaining: Mutex<Int>
    private let token: AnyCancellable

    init(loop: UVLoop, count: Int) {
        remaining = Mutex(count)
        token = loop.keepAlive()
    }

    func signal() {
        let done = remaining.withLock { remaining -> Bool in
            remaining -= 1
            return remaining == 0
        }
        if done { token.cancel() }
    }
}

/// A `TextOutputStream` for `print(_:to:)` that writes through the log.
struct LogStream: TextOutputStream {
    let log: DemoLog

    mutating func write(_ string: String) {
        let line = string.trimmingCharacters(in: .newlines)
        if !line.isEmpty { log(line) }
    }
}
