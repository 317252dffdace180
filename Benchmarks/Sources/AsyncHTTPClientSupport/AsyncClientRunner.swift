import AsyncHTTPClient
import LoopSupport
import NIOCore
import NIOPosix
import NIOSSL

/// Runs requests on AsyncHTTPClient 1.37 the way LoopSupport's
/// `SessionRunner` runs them on UVURLSession, for the workloads that
/// compare the two (HTTPBenchmarks, HTTP2Benchmarks, HTTP2Profile):
/// `client.execute(request:eventLoop:)`, which collects the body as the
/// session's data task does, `width` in flight at a time, each completion
/// starting the next on the client's event loop, until `total` have run.
/// The calling thread waits for the whole batch.
///
/// The client has an event-loop group of one thread, as the session has
/// one loop, and may open up to `connections` HTTP/1.1 connections per
/// host; over TLS it negotiates `h2` by ALPN (`httpVersion` `.automatic`,
/// its default) and multiplexes one connection per event loop. Its work
/// runs on that thread, so compare it by the process's CPU time. This is
/// the futures API on the event loop: no thread hop per request (the
/// async/await API adds one).
///
/// With `requestPerTask` the `HTTPClient.Request` is made for every
/// request (the spelling its users write); otherwise once.
///
/// Threading: `run` and `close` from one thread; the counters are touched
/// on the event loop only.
///
/// ```swift
/// let runner = AsyncClientRunner(url: nginx.urlString(.tls), connections: 1,
///                                trustRoot: nginx.certificatePath, requestPerTask: true)
/// runner.run(total: 3_000, width: 100)
/// runner.close()
/// ```
public final class AsyncClientRunner: @unchecked Sendable {
    // @unchecked Sendable: the counters are touched on the event loop only.

    private let group: MultiThreadedEventLoopGroup
    private let eventLoop: any EventLoop
    private let client: HTTPClient
    private let url: String
    /// The request made once, unless `requestPerTask`.
    private let request: HTTPClient.Request?
    /// Body bytes received.
    public let accumulator = ByteCounter()
    private var toStart = 0
    private var toFinish = 0
    private var failure: (any Error)?
    private var done: EventLoopPromise<Void>?
    /// The major HTTP version of the last response (for a workload's
    /// check): 2 for HTTP/2.
    public private(set) var lastMajorVersion: Int?

    /// A client of `url` with up to `connections` HTTP/1.1 connections per
    /// host, trusting `trustRoot` (PEM) for https. `decompression`:
    /// AsyncHTTPClient decodes gzip and deflate bodies (without a ratio
    /// limit, as UVURLSession).
    public init(url: String, connections: Int, trustRoot: String? = nil, decompression: Bool = false,
                requestPerTask: Bool = false) {
        self.url = url
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
        var configuration = HTTPClient.Configuration()
        if let trustRoot {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(trustRoot)
            configuration.tlsConfiguration = tls
        }
        if decompression {
            configuration.decompression = .enabled(limit: .none)
        }
        configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        request = requestPerTask ? nil : Self.makeRequest(url)
    }

    /// Runs `total` requests, `width` at a time; returns when all finished.
    public func run(total: Int, width: Int) {
        precondition(total >= width, "AsyncClientRunner: fewer requests than slots")
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
            fatalError("AsyncClientRunner: a request failed: \(error)")
        }
    }

    private static func makeRequest(_ url: String) -> HTTPClient.Request {
        do {
            return try HTTPClient.Request(url: url)
        } catch {
            fatalError("HTTPClient.Request: \(error)")
        }
    }

    private func start() {
        toStart -= 1
        client.execute(request: request ?? Self.makeRequest(url), eventLoop: .delegateAndChannel(on: eventLoop))
            .whenComplete { result in
                self.finished(result)
            }
    }

    private func finished(_ result: Result<HTTPClient.Response, any Error>) {
        switch result {
        case .success(let response):
            accumulator.add(response.body?.readableBytes ?? 0)
            lastMajorVersion = response.version.major
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

    /// Shuts the client and its event loop down.
    public func close() {
        do {
            try client.syncShutdown()
            try group.syncShutdownGracefully()
        } catch {
            fatalError("AsyncClientRunner.close: \(error)")
        }
    }
}
