import Foundation
import LoopSupport
import UVCombine

/// Runs data tasks on a ``UVURLSession`` with the spelling users write,
/// `session.dataTaskPublisher(for: url).sink { … }` made for every request
/// (the publisher, its request and the sink each time), `width` in flight,
/// each completion starting the next from inside its `receiveCompletion`
/// on the loop's thread, until `total` have run.
///
/// The session's HTTP version is the workload's: `.http2PriorKnowledge`
/// (h2c), `.automatic` over TLS (ALPN picks `h2`; the server's certificate
/// is the trust root), or `.http1_1` with `width` connections.
///
/// Loop thread: the calling thread runs the loop (``makeLoop()``).
///
/// ```swift
/// let runner = H2SessionRunner(url: nginx.url(.h2c), version: .http2PriorKnowledge, connections: 1)
/// runner.run(total: 3_000, width: 100)
/// runner.close()
/// ```
public final class H2SessionRunner {
    /// The runner's loop (the calling thread's).
    public let loop: UVLoop
    /// The session the tasks run on.
    public let session: UVURLSession
    /// Body bytes received.
    public let accumulator = ByteCounter()
    private let url: URL
    private var slots: [Slot] = []
    private var toStart = 0
    private var toFinish = 0
    private var failure: UVURLError?

    /// A session on a loop of the calling thread speaking `version`, with
    /// up to `connections` HTTP/1.1 connections per host (one HTTP/2
    /// connection, the default); `trustRoot` is a PEM file for https.
    public init(url: URL, version: HTTPVersionPreference, connections: Int, trustRoot: String? = nil) {
        self.url = url
        loop = makeLoop()
        var configuration = UVURLSession.Configuration()
        configuration.httpVersion = version
        configuration.maximumConnectionsPerHost = connections
        if let trustRoot { configuration.tls.trustRoots = .pemFile(trustRoot) }
        session = UVURLSession(loop: loop, configuration: configuration)
    }

    /// Runs one request with a metrics handler and returns the protocol it
    /// used (`"h2"`, `"http/1.1"`): the workload's check, outside the
    /// measured region.
    public func negotiatedProtocol() -> String? {
        nonisolated(unsafe) var name: String?
        var options = UVURLSession.RequestOptions()
        options.metricsHandler = UVURLSession.MetricsHandler { metrics in
            name = metrics.transactionMetrics.last?.networkProtocolName
        }
        var failure: UVURLError?
        let cancellable = session.dataTaskPublisher(for: url, options: options).sink(
            receiveCompletion: { [loop] completion in
                if case .failure(let error) = completion { failure = error }
                loop.stop()
            }, receiveValue: { _ in })
        loop.run()
        cancellable.cancel()
        if let failure { fatalError("H2SessionRunner: the check request failed: \(failure)") }
        return name
    }

    /// Runs `total` tasks, `width` at a time; returns when all finished.
    public func run(total: Int, width: Int) {
        precondition(total >= width, "H2SessionRunner: fewer tasks than slots")
        while slots.count < width { slots.append(Slot(runner: self)) }
        toStart = total
        toFinish = total
        for slot in slots.prefix(width) { start(slot) }
        loop.run()
        if let failure { fatalError("H2SessionRunner: a data task failed: \(failure)") }
        precondition(toFinish == 0, "H2SessionRunner: \(toFinish) tasks did not finish")
    }

    fileprivate func start(_ slot: Slot) {
        toStart -= 1
        // As written in place; closures capturing one object allocate no
        // context.
        slot.cancellable = session.dataTaskPublisher(for: url).sink(
            receiveCompletion: { slot.finished($0) }, receiveValue: { slot.received($0.data) })
    }

    fileprivate func finished(_ slot: Slot, _ completion: Subscribers.Completion<UVURLError>) {
        if case .failure(let error) = completion, failure == nil { failure = error }
        toFinish -= 1
        if toStart > 0 && failure == nil {
            start(slot)
        } else if toFinish == 0 || failure != nil {
            loop.stop()
        }
    }

    /// Ends the session, lets its connections close, closes the loop.
    public func close() {
        for slot in slots { slot.cancellable = nil }
        slots = []
        session.invalidateAndCancel()
        finish(loop)
    }

    /// One request in flight at a time.
    fileprivate final class Slot {
        unowned let runner: H2SessionRunner
        var cancellable: AnyCancellable?

        init(runner: H2SessionRunner) {
            self.runner = runner
        }

        func received(_ data: Data) {
            runner.accumulator.add(data.count)
        }

        func finished(_ completion: Subscribers.Completion<UVURLError>) {
            runner.finished(self, completion)
        }
    }
}
