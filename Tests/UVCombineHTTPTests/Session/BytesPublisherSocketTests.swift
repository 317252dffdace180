import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// What one streamed response gave a subscriber that asked for one part at
/// a time.
struct OneAtATimeOutcome {
    var parts: [String]
    var completion: Subscribers.Completion<UVURLError>?
    /// How many times `.max(1)` was requested, the first included.
    var requests: Int
    var elapsed: Duration
}

/// Streams `url` asking for `.max(1)` per part: the loop runs until it has
/// nothing to do (the stream paused for want of demand, or the task
/// ended), then one more part is requested, from the loop's own thread
/// while the loop is not running.
func streamOneAtATime(_ url: URL, session: UVURLSession, loop: UVLoop) -> OneAtATimeOutcome {
    let tracker = PartsTracker(initialDemand: .max(1))
    let start = ContinuousClock.now
    session.bytesPublisher(for: url).subscribe(tracker)
    var requests = 1
    loop.run()
    while tracker.completion == nil && requests < 100 {
        tracker.request(.max(1))
        requests += 1
        loop.run()
    }
    return OneAtATimeOutcome(parts: tracker.parts, completion: tracker.completion, requests: requests,
                             elapsed: ContinuousClock.now - start)
}

/// Issue 17, bug 1: a streamed response read with `.max(1)` demand at a
/// time ends with `.finished` on a keep-alive connection, however its
/// bytes were cut into reads, on real sockets.
@Suite("BytesPublisher on sockets, one part at a time")
struct BytesPublisherSocketTests {
    /// The idle read timeout is long (the old bug showed as this timeout
    /// firing instead of `.finished`), and the test must end well before it.
    static func session(on loop: UVLoop) -> UVURLSession {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = .seconds(20)
        return UVURLSession(loop: loop, configuration: configuration)
    }

    @Test("head and body in one read (Content-Length: 5, keep-alive): .finished right after the body part")
    func headAndBodyInOneRead() throws {
        let server = try TestHTTPServer(routes: ["/hello": .text("hello")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = Self.session(on: loop)
            let outcome = streamOneAtATime(server.url("/hello"), session: session, loop: loop)
            #expect(outcome.parts == ["head(200)", "hello"])
            #expect(outcome.completion == .finished)
            #expect(outcome.requests == 2, "the completion needs no demand of its own")
            #expect(outcome.elapsed < .seconds(10), "not ended by the idle read timeout")
            // The connection went back to the pool: the next request reuses it.
            let again = streamOneAtATime(server.url("/hello"), session: session, loop: loop)
            #expect(again.completion == .finished)
            #expect(server.connectionCount == 1)
        }
    }

    @Test("the body split across reads: every part, then .finished")
    func bodySplitAcrossReads() throws {
        let body = Array("hello, split world".utf8)
        let server = try TestHTTPServer(routes: [
            "/slow": .fault(.slowBody(chunks: 3, delay: .milliseconds(10)), body: body),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let outcome = streamOneAtATime(server.url("/slow"), session: Self.session(on: loop), loop: loop)
            #expect(outcome.parts.first == "head(200)")
            #expect(outcome.parts.dropFirst().joined() == "hello, split world")
            #expect(outcome.completion == .finished)
            #expect(outcome.requests == outcome.parts.count, "the last part ends the response: no extra demand")
            #expect(outcome.elapsed < .seconds(10))
        }
    }

    @Test("chunked: every chunk, then .finished (the last chunk may need one more read)")
    func chunked() throws {
        let server = try TestHTTPServer(routes: [
            "/chunked": .fault(.chunked(chunkSize: 4), body: Array("hello chunked".utf8)),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let outcome = streamOneAtATime(server.url("/chunked"), session: Self.session(on: loop), loop: loop)
            #expect(outcome.parts.first == "head(200)")
            #expect(outcome.parts.dropFirst().joined() == "hello chunked")
            #expect(outcome.completion == .finished)
            #expect(outcome.requests <= outcome.parts.count + 1)
            #expect(outcome.elapsed < .seconds(10))
        }
    }

    @Test("a zero-length body (Content-Length: 0, and chunked): the head, then .finished")
    func zeroLengthBody() throws {
        let server = try TestHTTPServer(routes: [
            "/empty": .text(""),
            "/empty-chunked": .fault(.chunked(chunkSize: 4), body: []),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = Self.session(on: loop)
            for path in ["/empty", "/empty-chunked"] {
                let outcome = streamOneAtATime(server.url(path), session: session, loop: loop)
                #expect(outcome.parts == ["head(200)"], "\(path)")
                #expect(outcome.completion == .finished, "\(path)")
                #expect(outcome.requests <= 2, "\(path)")
                #expect(outcome.elapsed < .seconds(10), "\(path)")
            }
        }
    }

    @Test("demand from another thread, one part at a time, with the loop on its own thread: .finished",
          arguments: ["/hello", "/slow", "/chunked", "/empty"])
    func demandFromAnotherThread(path: String) throws {
        let server = try TestHTTPServer(routes: [
            "/hello": .text("hello"),
            "/slow": .fault(.slowBody(chunks: 3, delay: .milliseconds(5)), body: Array("abcdefghi".utf8)),
            "/chunked": .fault(.chunked(chunkSize: 3), body: Array("abcdefghi".utf8)),
            "/empty": .text(""),
        ])
        defer { server.shutdown() }
        let background = try UVLoopThread()
        do {
            var configuration = UVURLSession.Configuration()
            configuration.idleReadTimeout = .seconds(20)
            let session = UVURLSession(loop: background.loop, configuration: configuration)
            let events = DispatchSemaphore(value: 0)
            let tracker = PartsTracker(initialDemand: .max(1), onValue: { _ in events.signal() })
            let finished = DispatchSemaphore(value: 0)
            let ended = Locked(false)
            let completionWatcher = session.bytesPublisher(for: server.url(path))
                .handleEvents(receiveCompletion: { _ in
                    ended.withLock { $0 = true }
                    finished.signal()
                    events.signal()
                })
            completionWatcher.subscribe(tracker)
            let start = ContinuousClock.now
            var requests = 1
            // Each part (or the completion) wakes this thread, which asks
            // for the next part from here, not from the loop's thread.
            while !ended.value && requests < 100 {
                guard events.wait(timeout: .now() + 15) == .success else { break }
                if ended.value { break }
                tracker.request(.max(1))
                requests += 1
            }
            #expect(finished.wait(timeout: .now() + 15) == .success, "\(path): \(tracker.parts)")
            // The completion is on its way to the tracker on the loop
            // thread: let that delivery finish.
            _ = onLoop(background.loop) { 0 }
            #expect(tracker.completion == .finished, "\(path)")
            #expect(tracker.parts.first == "head(200)")
            #expect(ContinuousClock.now - start < .seconds(10), "\(path): not ended by the idle read timeout")
        }
        try background.shutdown()
    }
}
