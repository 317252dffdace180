import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import NIOCore
import NIOPosix

/// Runs requests on AsyncHTTPClient the way ``SessionRunner`` runs them on
/// UVURLSession: one request made once and executed for every task
/// (`execute(request:eventLoop:)`, which collects the body as
/// UVURLSession's data task does), `width` in flight at a time, each
/// completion starting the next on the client's event loop, until `total`
/// have run. The client has an event-loop group of one thread, as the
/// session has one loop, and may open as many connections as requests are
/// in flight. The calling thread waits for the whole batch.
///
/// This is the futures API on the event loop: no thread hop per request.
/// (The async/await API adds a hop per request.)
final class ClientRunner: @unchecked Sendable {
    // @unchecked Sendable: the counters are touched on the event loop only.

    let group: MultiThreadedEventLoopGroup
    let eventLoop: any EventLoop
    let client: HTTPClient
    let request: HTTPClient.Request
    let accumulator = Accumulator()
    private var toStart = 0
    private var toFinish = 0
    private var failure: (any Error)?
    private var done: EventLoopPromise<Void>?

    /// `decompression`: AsyncHTTPClient decodes gzip and deflate bodies
    /// (without a ratio limit, as UVURLSession).
    init(url: URL, maximumConnectionsPerHost: Int, decompression: Bool = false) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
        var configuration = HTTPClient.Configuration()
        if decompression {
            configuration.decompression = .enabled(limit: .none)
        }
        configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost)
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        do {
            request = try HTTPClient.Request(url: url)
        } catch {
            fatalError("HTTPClient.Request: \(error)")
        }
    }

    /// Runs `total` requests, `width` at a time; returns when all finished.
    func run(total: Int, width: Int) {
        precondition(total >= width, "ClientRunner: fewer requests than slots")
        let done = eventLoop.makePromise(of: Void.self)
        eventLoop.execute {
            self.done = done
            self.toStart = total
            self.toFinish = total
            for _ in 0..<width { self.start() }
        }
        do {
            try done.futureResult.wait()
        } catch {
            fatalError("ClientRunner: a request failed: \(error)")
        }
    }

    private func start() {
        toStart -= 1
        client.execute(request: request, eventLoop: .delegateAndChannel(on: eventLoop)).whenComplete { result in
            self.finished(result)
        }
    }

    private func finished(_ result: Result<HTTPClient.Response, any Error>) {
        switch result {
        case .success(let response):
            accumulator.add(response.body?.readableBytes ?? 0)
        case .failure(let error):
            if failure == nil { failure = error }
        }
        toFinish -= 1
        if let failure {
            done?.fail(failure)
            done = nil
        } else if toStart > 0 {
            start()
        } else if toFinish == 0 {
            done?.succeed(())
            done = nil
        }
    }

    func close() {
        do {
            try client.syncShutdown()
            try group.syncShutdownGracefully()
        } catch {
            fatalError("ClientRunner.close: \(error)")
        }
    }
}
