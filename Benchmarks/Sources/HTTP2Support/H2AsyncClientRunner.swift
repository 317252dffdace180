import AsyncHTTPClient
import LoopSupport
import NIOCore
import NIOPosix
import NIOSSL

/// AsyncHTTPClient 1.37 as the other peer of the HTTP/2 workloads:
/// `client.execute(request:eventLoop:)` with an `HTTPClient.Request` made
/// for every request (the spelling its users write), `width` in flight,
/// each completion starting the next on the client's event loop until
/// `total` have run; the calling thread waits for the batch.
///
/// Over TLS AsyncHTTPClient negotiates `h2` by ALPN (`httpVersion`
/// `.automatic`, its default) and multiplexes one connection per event
/// loop; its group has one thread, as the session has one loop. Its work
/// runs on that thread, so compare it by the process's CPU time.
///
/// ```swift
/// let runner = H2AsyncClientRunner(url: nginx.urlString(.tls), trustRoot: nginx.certificatePath, connections: 1)
/// runner.run(total: 3_000, width: 100)
/// runner.close()
/// ```
public final class H2AsyncClientRunner: @unchecked Sendable {
    // @unchecked Sendable: the counters are touched on the event loop only.

    private let group: MultiThreadedEventLoopGroup
    private let eventLoop: any EventLoop
    private let client: HTTPClient
    private let url: String
    /// Body bytes received.
    public let accumulator = ByteCounter()
    private var toStart = 0
    private var toFinish = 0
    private var failure: (any Error)?
    private var done: EventLoopPromise<Void>?
    /// The major HTTP version of the last response (for the workload's
    /// check): 2 for HTTP/2.
    public private(set) var lastMajorVersion: Int?

    /// A client of `url` trusting `trustRoot` (PEM) for https, with up to
    /// `connections` HTTP/1.1 connections per host.
    public init(url: String, trustRoot: String?, connections: Int) {
        self.url = url
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
        var configuration = HTTPClient.Configuration()
        if let trustRoot {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(trustRoot)
            configuration.tlsConfiguration = tls
        }
        configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    /// Runs `total` requests, `width` at a time; returns when all finished.
    public func run(total: Int, width: Int) {
        precondition(total >= width, "H2AsyncClientRunner: fewer requests than slots")
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
            fatalError("H2AsyncClientRunner: a request failed: \(error)")
        }
    }

    private func start() {
        toStart -= 1
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url)
        } catch {
            fatalError("HTTPClient.Request: \(error)")
        }
        client.execute(request: request, eventLoop: .delegateAndChannel(on: eventLoop)).whenComplete { result in
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
            fatalError("H2AsyncClientRunner.close: \(error)")
        }
    }
}
