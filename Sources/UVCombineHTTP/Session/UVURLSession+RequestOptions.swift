import FoundationEssentials
import HTTPTypes
import UVCombineHTTPCore
import UVCombineHTTPClient

// The publishers that take per-request options, in Foundation's types.
extension UVURLSession {
    /// Returns a publisher that fetches `url` with a GET request, with
    /// `options` in place of the session's settings where they say so;
    /// otherwise as ``dataTaskPublisher(for:)-(URL)``.
    ///
    /// ```swift
    /// session.dataTaskPublisher(for: url, options: .init(totalTimeout: .seconds(3)))
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// ```
    public func dataTaskPublisher(for url: URL, options: RequestOptions) -> DataTaskPublisher {
        DataTaskPublisher(task: taskRequest(url: url, options: options), session: self)
    }

    /// Returns a publisher that sends `request` with `body`, with `options`
    /// in place of the session's settings where they say so; otherwise as
    /// ``dataTaskPublisher(for:body:)``.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/slow")
    /// let publisher = session.dataTaskPublisher(for: request, options: .init(idleReadTimeout: .seconds(1)))
    /// ```
    public func dataTaskPublisher(for request: HTTPRequest, body: Data? = nil,
                                  options: RequestOptions) -> DataTaskPublisher {
        DataTaskPublisher(task: taskRequest(request: request, body: body, options: options), session: self)
    }

    /// Returns a publisher that streams the response to a GET of `url`,
    /// with `options` in place of the session's settings where they say
    /// so; otherwise as ``bytesPublisher(for:)-(URL)``.
    ///
    /// ```swift
    /// let parts = session.bytesPublisher(for: url, options: .init(totalTimeout: .seconds(30)))
    /// ```
    public func bytesPublisher(for url: URL, options: RequestOptions) -> BytesPublisher {
        BytesPublisher(task: taskRequest(url: url, options: options), session: self)
    }

    /// Returns a publisher that sends `request` with `body` and streams
    /// the response, with `options` in place of the session's settings
    /// where they say so; otherwise as ``bytesPublisher(for:body:)``.
    ///
    /// ```swift
    /// let parts = session.bytesPublisher(for: request, options: .init(idleReadTimeout: .seconds(5)))
    /// ```
    public func bytesPublisher(for request: HTTPRequest, body: Data? = nil,
                               options: RequestOptions) -> BytesPublisher {
        BytesPublisher(task: taskRequest(request: request, body: body, options: options), session: self)
    }
}

extension UVURLSession.DataTaskPublisher {
    /// The per-request settings each subscription uses (the default
    /// options when the publisher was made without any).
    ///
    /// ```swift
    /// print(publisher.options.totalTimeout as Any) // Prints: "nil"
    /// ```
    public var options: UVURLSession.RequestOptions { task.options }

    /// Creates a publisher that sends `request` with `body` on `session`,
    /// with `options` in place of the session's settings where they say so.
    ///
    /// ```swift
    /// let publisher = UVURLSession.DataTaskPublisher(
    ///     request: request, options: .init(totalTimeout: .seconds(5)), session: session)
    /// ```
    public init(request: HTTPRequest, body: Data? = nil, options: UVURLSession.RequestOptions,
                session: UVURLSession) {
        self.init(task: session.taskRequest(request: request, body: body, options: options), session: session)
    }
}

extension UVURLSession.BytesPublisher {
    /// The per-request settings each subscription uses (the default
    /// options when the publisher was made without any).
    ///
    /// ```swift
    /// print(parts.options.idleReadTimeout as Any) // Prints: "nil"
    /// ```
    public var options: UVURLSession.RequestOptions { task.options }

    /// Creates a publisher that streams the response to `request` (with
    /// `body`) on `session`, with `options` in place of the session's
    /// settings where they say so.
    ///
    /// ```swift
    /// let parts = UVURLSession.BytesPublisher(
    ///     request: request, options: .init(idleReadTimeout: .seconds(5)), session: session)
    /// ```
    public init(request: HTTPRequest, body: Data? = nil, options: UVURLSession.RequestOptions,
                session: UVURLSession) {
        self.init(task: session.taskRequest(request: request, body: body, options: options), session: session)
    }
}
