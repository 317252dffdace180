import HTTPTypes
import UVCombineLoop

/// What one request of a task cost, and where its time went: Foundation's
/// `URLSessionTaskTransactionMetrics`, with monotonic instants on the
/// loop's `uv_hrtime` clock (``/UVCombineLoop/UVLoop/SchedulerTimeType``)
/// in place of `Date`s.
///
/// A task has one transaction per request it sent: the first, one per
/// redirect followed, and one per transparent retry on a fresh connection
/// (the retried one then has no ``response``).
///
/// The instants, in the order they happen (each nil when the step did not
/// happen in this transaction, e.g. every connection step on a reused
/// connection):
///
/// | here | URLSession | curl `-w` (from ``fetchStart``) |
/// | --- | --- | --- |
/// | ``fetchStart`` | `fetchStartDate` | (the start) |
/// | ``domainLookupStart`` / ``domainLookupEnd`` | `domainLookupStartDate` / `…EndDate` | `time_namelookup` |
/// | ``connectStart`` / ``connectEnd`` | `connectStartDate` / `…EndDate` | `time_connect` (the TCP part) |
/// | ``secureConnectionStart`` / ``secureConnectionEnd`` | `secureConnectionStartDate` / `…EndDate` | `time_appconnect` |
/// | ``requestStart`` / ``requestEnd`` | `requestStartDate` / `…EndDate` | `time_pretransfer` (start) |
/// | ``responseStart`` / ``responseEnd`` | `responseStartDate` / `…EndDate` | `time_starttransfer` (start) |
///
/// Unlike URLSession's, ``connectEnd`` is when TCP connected (TLS is
/// ``secureConnectionStart``…``secureConnectionEnd`` after it), as curl's
/// `time_connect` is. ``requestEnd`` is the last write completion of the
/// request (the kernel took its last bytes).
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// if let first = metrics.transactionMetrics.first,
///    let start = first.fetchStart, let end = first.responseEnd {
///     print("took", start.distance(to: end), "reused:", first.isReusedConnection)
/// }
/// ```
public struct UVURLSessionTaskTransactionMetrics: Sendable, CustomStringConvertible {
    /// One instant on the loop's monotonic clock.
    public typealias Instant = UVLoop.SchedulerTimeType

    /// The request as it was sent (a redirect's, after the first).
    public var request: HTTPRequest
    /// The response head, or nil when none came (a failure, a retry).
    public var response: HTTPResponse?

    /// The transaction began: the task started, or followed a redirect.
    public var fetchStart: Instant?
    /// Name resolution began (a fresh connection only).
    public var domainLookupStart: Instant?
    /// Name resolution ended (at once for a numeric host).
    public var domainLookupEnd: Instant?
    /// The TCP (or Unix socket) connect began.
    public var connectStart: Instant?
    /// TCP connected (before TLS).
    public var connectEnd: Instant?
    /// The TLS handshake began (`https` only).
    public var secureConnectionStart: Instant?
    /// The TLS handshake completed.
    public var secureConnectionEnd: Instant?
    /// The request's first byte was handed to the connection.
    public var requestStart: Instant?
    /// The kernel took the request's last byte.
    public var requestEnd: Instant?
    /// The response's first byte arrived.
    public var responseStart: Instant?
    /// The response's last byte arrived.
    public var responseEnd: Instant?

    /// The request head's bytes as written (the proxy's rewritten head
    /// through a forwarding proxy).
    public var countOfRequestHeaderBytesSent = 0
    /// The request body's bytes handed to the connection (framing
    /// included for a chunked body).
    public var countOfRequestBodyBytesSent = 0
    /// The response head's bytes as received (interim `1xx` heads
    /// included).
    public var countOfResponseHeaderBytesReceived = 0
    /// The response body's bytes as received: before decoding, chunk
    /// framing included (as URLSession counts them).
    public var countOfResponseBodyBytesReceived = 0

    /// The connection had carried an exchange before this one.
    public var isReusedConnection = false
    /// The connection goes to (or tunnels through) a proxy.
    public var isProxyConnection = false
    /// The protocol spoken: `"http/1.1"`.
    public var networkProtocolName: String?
    /// The local end of the connection (nil for a Unix domain socket).
    public var localAddress: String?
    /// The local port.
    public var localPort: Int?
    /// The address connected to (the proxy's through a proxy; nil for a
    /// Unix domain socket), whatever name the URL gave (`localhost`
    /// gives `127.0.0.1`).
    public var remoteAddress: String?
    /// The port connected to.
    public var remotePort: Int?

    /// A transaction for `request` whose steps are all still to come.
    ///
    /// ```swift
    /// let empty = UVURLSessionTaskTransactionMetrics(request: HTTPRequest(method: .get, scheme: "http",
    ///                                                                      authority: "a", path: "/"))
    /// ```
    public init(request: HTTPRequest) {
        self.request = request
    }

    /// e.g. `Transaction(GET http://127.0.0.1:8080/ -> 200, reused, 1234 µs)`.
    public var description: String {
        var text = "Transaction(\(request.method) \(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
        if let response { text += " -> \(response.status.code)" }
        if isReusedConnection { text += ", reused" }
        if let start = fetchStart, let end = responseEnd {
            text += ", \((end.uptimeNanoseconds &- start.uptimeNanoseconds) / 1000) µs"
        }
        return text + ")"
    }
}
