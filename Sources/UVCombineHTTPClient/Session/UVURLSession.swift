import HTTPTypes
import UVCombineLoop
import UVCombineHTTPCore

/// An HTTP/1.1 client bound to a ``/UVCombineLoop/UVLoop``, with Combine publishers for
/// its data tasks: Foundation's `URLSession` with the loop in place of the
/// delegate queue.
///
/// ```swift
/// let session = UVURLSession(loop: loop)
/// let cancellable = session
///     .dataTaskPublisher(for: URL(string: "http://127.0.0.1:8080/user")!)
///     .tryMap { element -> Data in
///         guard element.response.status == .ok else { throw URLError(.badServerResponse) }
///         return element.data
///     }
///     .decode(type: User.self, decoder: JSONDecoder())
///     .sink(receiveCompletion: { print("Received completion: \($0).") },
///           receiveValue: { user in print("Received user: \(user).") })
/// loop.run()
/// ```
///
/// What a session does for its tasks:
/// - Keeps connections per (scheme, host, port), at most
///   ``Configuration/maximumConnectionsPerHost``, reusing keep-alive
///   connections; requests beyond the limit wait in order. Idle
///   connections close after ``Configuration/connectionIdleTimeout`` and
///   never keep `loop.run()` from returning.
/// - Honours `Connection: close` from either side; retries an idempotent
///   request once, transparently, when a reused keep-alive connection
///   turns out to have been closed by the server before any response byte.
/// - Follows redirects per ``Configuration/redirectPolicy``; enforces the
///   connect, idle read and total timeouts and the response limits.
/// - Fails each task that cannot complete with a typed ``UVURLError``
///   (docs/http-protocol-core.md lists them); the loop, the pool and every
///   other task keep working.
/// - Speaks `https` with OpenSSL 3 (TLS 1.2 and 1.3, SNI, ALPN
///   `http/1.1`), verifying the server's certificate and host name against
///   the system's trusted roots or ``Configuration/tls``'s; TLS connections
///   are pooled and reused like plain ones (docs/tls.md).
///
/// Threading: create a session, its publishers, and subscribe, request or
/// cancel from any thread; the work runs on the loop's thread and values
/// arrive there. A session lives as long as it is referenced (publishers
/// and running tasks reference it); when it goes, its idle connections
/// close. ``invalidateAndCancel()`` ends it earlier.
public final class UVURLSession: Sendable, CustomStringConvertible {
    /// The loop whose thread runs the session's I/O and delivers values.
    public let loop: UVLoop
    /// The limits, timeouts and redirect policy in force.
    public let configuration: Configuration
    package let engine: SessionEngine
    /// The task request last made from a URL (``TaskRequestMemo``).
    package let taskRequestMemo = TaskRequestMemo()

    /// Creates a session whose connections and deliveries run on `loop`.
    ///
    /// Any thread. Nothing is opened until the first task starts.
    ///
    /// ```swift
    /// let loop = try UVLoop()
    /// var configuration = UVURLSession.Configuration()
    /// configuration.idleReadTimeout = .seconds(10)
    /// let session = UVURLSession(loop: loop, configuration: configuration)
    /// ```
    public convenience init(loop: UVLoop, configuration: Configuration = .default) {
        self.init(loop: loop, configuration: configuration,
                  transport: UVLoopTransport(loop: loop, tls: configuration.tls,
                                             connectionAttemptDelay: configuration.connectionAttemptDelay))
    }

    /// The shared session on ``/UVCombineLoop/UVLoop/default``, with the default
    /// configuration, as `URLSession.shared`: for programs that run the
    /// default loop (`UVLoop.default.run()`). Libraries and tests should
    /// make their own sessions on their own loops.
    ///
    /// ```swift
    /// let cancellable = UVURLSession.shared.dataTaskPublisher(for: url)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// UVLoop.default.run()
    /// ```
    public static let shared = UVURLSession(loop: .default)

    /// A session over `transport` (tests pass a fake).
    package init(loop: UVLoop, configuration: Configuration, transport: any HTTPTransport) {
        precondition(configuration.maximumConnectionsPerHost >= 1,
                     "UVURLSession.Configuration: maximumConnectionsPerHost must be at least 1")
        self.loop = loop
        self.configuration = configuration
        engine = SessionEngine(loop: loop, configuration: configuration, transport: transport)
    }

    deinit {
        // Closes the idle connections and the timer. Nothing is running:
        // every task holds the session.
        engine.submit(.shutdown)
    }

    /// Fails every running task with `.cancelled` ("the session was shut
    /// down"), closes every connection, and makes later tasks fail with
    /// `.resourceUnavailable`. Any thread; takes effect on the loop thread.
    ///
    /// ```swift
    /// session.invalidateAndCancel()
    /// ```
    public func invalidateAndCancel() {
        engine.submit(.shutdown)
    }

    /// `UVURLSession`.
    public var description: String { "UVURLSession" }
}
