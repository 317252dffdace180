/// A data task's timeouts; `nil` turns one off.
///
/// Defaults follow URLSession: 60 s without a byte
/// (`timeoutIntervalForRequest`) and 7 days in all
/// (`timeoutIntervalForResource`). The connect timeout is the session's
/// (``UVURLSession/Configuration/connectTimeout``).
///
/// A session's timeouts come from its configuration; one request can
/// override them with ``UVURLSession/RequestOptions``
/// (``overridden(by:)``).
///
/// ```swift
/// var timeouts = RequestTimeouts()
/// timeouts.idleRead = .seconds(5)
/// timeouts.total = .seconds(30)
/// ```
///
/// Threading: a value type; `Sendable`.
public struct RequestTimeouts: Sendable, Equatable {
    /// The longest wait for the next response byte once the request is
    /// being written. Default 60 s.
    public var idleRead: Duration? = .seconds(60)
    /// The longest a task may take in all, redirects and retries
    /// included. Default 7 days.
    public var total: Duration? = .seconds(7 * 24 * 3600)

    /// The defaults above.
    public init() {}
}

extension RequestTimeouts {
    /// The timeouts in nanoseconds (``HTTPDeadline/nanoseconds(of:)``),
    /// converted once per session instead of once or twice per request.
    ///
    /// Threading: a value type; `Sendable`.
    package struct Nanoseconds: Sendable {
        /// ``RequestTimeouts/idleRead`` in nanoseconds.
        package let idleRead: UInt64?
        /// ``RequestTimeouts/total`` in nanoseconds.
        package let total: UInt64?

        /// `timeouts` converted.
        package init(_ timeouts: RequestTimeouts) {
            idleRead = timeouts.idleRead.map(HTTPDeadline.nanoseconds(of:))
            total = timeouts.total.map(HTTPDeadline.nanoseconds(of:))
        }
    }
}
