/// The error a data task fails with: one typed, documented error in the
/// spirit of Foundation's `URLError`.
///
/// Every transport or protocol problem (an invalid URL, an unsupported
/// scheme, a refused connection, a malformed response, a timeout, too many
/// redirects, a cancelled task) fails the one task concerned with a
/// `UVURLError`; the loop, the pool and every other task keep working.
/// HTTP 4xx and 5xx responses are *not* errors: they arrive as values.
///
/// - `code` says what kind of failure it was (`URLError`'s codes and raw
///   values where one exists).
/// - `detail` says precisely what went wrong, for example
///   `"conflicting Content-Length values"` from the response parser or
///   `"CR in value of header field \"X-Trace\""` from the request writer.
/// - `underlyingErrorName` is the libuv error name when libuv reported the
///   failure, for example `"UV_ECONNREFUSED"`, or OpenSSL's name for a TLS
///   failure: `"X509_V_ERR_CERT_HAS_EXPIRED"` for a certificate,
///   `"SSL_ERROR_SSL"` for the handshake or the TLS records.
/// - `timeoutKind` says which deadline passed when `code` is `.timedOut`.
///
/// Two errors are equal when their codes are equal, as with `URLError`, so
/// `catch` clauses and tests can match on the code alone:
///
/// ```swift
/// do {
///     let target = try HTTPRequestTarget(url: URL(string: "ftp://example.com/")!)
/// } catch let error {
///     print(error.code == .unsupportedURL) // Prints: "true"
///     print(error)       // Prints: "unsupported URL (scheme "ftp" is not http or https)"
/// }
/// ```
///
/// Threading: a value type; `Sendable`.
public struct UVURLError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// What kind of failure an error reports. Raw values follow `URLError`
    /// where `URLError` has the same code; codes of our own use -1300 and
    /// below.
    ///
    /// ```swift
    /// let error = UVURLError(.cannotFindHost, underlyingErrorName: "UV_EAI_NONAME")
    /// print(error.code, error.code.rawValue) // Prints: "cannotFindHost -1003"
    /// ```
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The numeric value, `URLError`'s where it has the same code.
        public let rawValue: Int

        /// Creates a code from its numeric value.
        ///
        /// ```swift
        /// print(UVURLError.Code(rawValue: -1000) == .badURL) // Prints: "true"
        /// ```
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The URL is malformed: no host, a bad port, CR, LF or NUL in it,
        /// user info, or a request target that cannot be sent.
        public static let badURL = Code(rawValue: -1000)
        /// A deadline passed; `UVURLError.timeoutKind` says which one.
        public static let timedOut = Code(rawValue: -1001)
        /// The URL's scheme is not `http` or `https`, or a redirect pointed
        /// at such a URL.
        public static let unsupportedURL = Code(rawValue: -1002)
        /// The host name did not resolve (`UV_EAI_NONAME` and friends).
        public static let cannotFindHost = Code(rawValue: -1003)
        /// The TCP connection could not be made (`UV_ECONNREFUSED`, ...).
        public static let cannotConnectToHost = Code(rawValue: -1004)
        /// The connection closed or failed while the request was in flight:
        /// reset, or end of stream before the response was complete.
        public static let networkConnectionLost = Code(rawValue: -1005)
        /// More redirects than the policy allows, or a redirect cycle.
        public static let httpTooManyRedirects = Code(rawValue: -1007)
        /// The server sent bytes that are not a valid HTTP/1.1 response;
        /// `detail` names the rule that was broken.
        public static let badServerResponse = Code(rawValue: -1011)
        /// The task was cancelled. A cancelled Combine subscription sends
        /// nothing downstream; this code reaches callers of the C API and the
        /// pool's bookkeeping.
        public static let cancelled = Code(rawValue: -999)
        /// The response body is longer than the configured maximum.
        public static let dataLengthExceedsMaximum = Code(rawValue: -1103)
        /// The response body's content coding (`Content-Encoding: gzip` or
        /// `deflate`) could not be undone: a corrupt or truncated stream;
        /// `detail` says which, with zlib's message. The connection is
        /// closed.
        public static let cannotDecodeContentData = Code(rawValue: -1016)
        /// A resource the task needed was not available, for example the
        /// session was shut down before the task started.
        public static let resourceUnavailable = Code(rawValue: -1008)
        /// The request cannot be written: a method that is not an RFC 9110
        /// token, CR, LF or NUL in a header field, or conflicting framing
        /// fields. Nothing was sent.
        public static let invalidRequest = Code(rawValue: -1300)
        /// A redirect from `https` to `http` was refused because the policy
        /// does not allow downgrades.
        public static let insecureRedirect = Code(rawValue: -1301)
        /// The TLS handshake failed for a reason other than the server's
        /// certificate: no protocol version or cipher in common, an alert
        /// from the server, a server that does not speak TLS, the
        /// connection closing mid-handshake, or a CA bundle that cannot be
        /// loaded. `detail` is OpenSSL's reason
        /// (`"error:0A00042E:SSL routines::tlsv1 alert protocol version"`).
        public static let secureConnectionFailed = Code(rawValue: -1200)
        /// The server's certificate (or one in its chain) has expired;
        /// `detail` is OpenSSL's `"certificate has expired"`.
        public static let serverCertificateHasBadDate = Code(rawValue: -1201)
        /// The server's certificate chain is invalid for a reason that has
        /// no code of its own (a bad signature, a CA certificate that may
        /// not sign, a revoked certificate); `detail` is OpenSSL's reason.
        public static let serverCertificateUntrusted = Code(rawValue: -1202)
        /// The server's certificate chain does not lead to a trusted root
        /// (self-signed, or issued by a CA that is not in the trust roots);
        /// `detail` is OpenSSL's reason, e.g. `"unable to get local issuer
        /// certificate"`.
        public static let serverCertificateHasUnknownRoot = Code(rawValue: -1203)
        /// The server's certificate (or one in its chain) is not valid yet.
        public static let serverCertificateNotYetValid = Code(rawValue: -1204)
        /// The server's certificate does not name the URL's host (`detail`
        /// is OpenSSL's `"hostname mismatch"` or `"IP address mismatch"`).
        /// `URLError` folds this into `.serverCertificateUntrusted`.
        public static let serverCertificateHostnameMismatch = Code(rawValue: -1310)
        /// The TLS layer failed after the handshake: a record that does not
        /// decrypt or parse, or an alert from the server. `detail` is
        /// OpenSSL's reason.
        public static let tlsProtocolError = Code(rawValue: -1311)
        /// The proxy's host name did not resolve (curl's exit 5, "Couldn't
        /// resolve proxy"); ``UVURLSession/ProxyConfiguration``.
        public static let cannotFindProxyHost = Code(rawValue: -1320)
        /// The TCP connection to the proxy could not be made
        /// (`UV_ECONNREFUSED`, ...).
        public static let cannotConnectToProxy = Code(rawValue: -1321)
        /// The proxy answered a `CONNECT` (the tunnel for an `https` URL)
        /// with `407 Proxy Authentication Required`: no credentials were
        /// configured, or the proxy refused them. `detail` names the
        /// proxy and the tunnel asked for. (Through an `http` URL's
        /// absolute-form request, a 407 is an ordinary response.)
        public static let proxyAuthenticationRequired = Code(rawValue: -1322)
        /// The proxy did not open the tunnel for an `https` URL: it
        /// answered `CONNECT` with a status other than 2xx and 407
        /// (`detail` gives it, e.g. `"CONNECT example.com:443: 403
        /// Forbidden"`), sent a malformed answer, or closed the connection
        /// before answering. The proxy's response body is never delivered.
        public static let proxyConnectFailed = Code(rawValue: -1323)
        /// A streamed request body's publisher failed: `detail` names the
        /// publisher's error (`"the body publisher failed: ..."`). The
        /// connection is closed; the server saw an incomplete request.
        public static let requestBodyFailed = Code(rawValue: -1330)
        /// A streamed request body did not match the length it announced
        /// (`Content-Length`): its publisher finished early or sent more.
        /// `detail` gives both counts. The connection is closed.
        public static let requestBodyLengthMismatch = Code(rawValue: -1331)
        /// A file to upload could not be opened, examined or read (a
        /// missing file, a directory, no permission); `detail` names the
        /// file and the system's error.
        public static let cannotOpenFile = Code(rawValue: -3000)

        /// The code's name, as in `URLError.Code`.
        public var description: String {
            switch self {
            case .badURL: "badURL"
            case .timedOut: "timedOut"
            case .unsupportedURL: "unsupportedURL"
            case .cannotFindHost: "cannotFindHost"
            case .cannotConnectToHost: "cannotConnectToHost"
            case .networkConnectionLost: "networkConnectionLost"
            case .httpTooManyRedirects: "httpTooManyRedirects"
            case .badServerResponse: "badServerResponse"
            case .cancelled: "cancelled"
            case .dataLengthExceedsMaximum: "dataLengthExceedsMaximum"
            case .cannotDecodeContentData: "cannotDecodeContentData"
            case .resourceUnavailable: "resourceUnavailable"
            case .invalidRequest: "invalidRequest"
            case .insecureRedirect: "insecureRedirect"
            case .secureConnectionFailed: "secureConnectionFailed"
            case .serverCertificateHasBadDate: "serverCertificateHasBadDate"
            case .serverCertificateUntrusted: "serverCertificateUntrusted"
            case .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot"
            case .serverCertificateNotYetValid: "serverCertificateNotYetValid"
            case .serverCertificateHostnameMismatch: "serverCertificateHostnameMismatch"
            case .tlsProtocolError: "tlsProtocolError"
            case .cannotFindProxyHost: "cannotFindProxyHost"
            case .cannotConnectToProxy: "cannotConnectToProxy"
            case .proxyAuthenticationRequired: "proxyAuthenticationRequired"
            case .proxyConnectFailed: "proxyConnectFailed"
            case .requestBodyFailed: "requestBodyFailed"
            case .requestBodyLengthMismatch: "requestBodyLengthMismatch"
            case .cannotOpenFile: "cannotOpenFile"
            default: "code(\(rawValue))"
            }
        }

        /// A short sentence for the code, used by `UVURLError.description`.
        internal var summary: String {
            switch self {
            case .badURL: "bad URL"
            case .timedOut: "the request timed out"
            case .unsupportedURL: "unsupported URL"
            case .cannotFindHost: "cannot find host"
            case .cannotConnectToHost: "cannot connect to host"
            case .networkConnectionLost: "the network connection was lost"
            case .httpTooManyRedirects: "too many HTTP redirects"
            case .badServerResponse: "bad server response"
            case .cancelled: "cancelled"
            case .dataLengthExceedsMaximum: "the response body exceeds the maximum length"
            case .cannotDecodeContentData: "cannot decode the response body's content encoding"
            case .resourceUnavailable: "resource unavailable"
            case .invalidRequest: "invalid request"
            case .insecureRedirect: "refused redirect from https to http"
            case .secureConnectionFailed: "a TLS error occurred and a secure connection to the server cannot be made"
            case .serverCertificateHasBadDate: "the server's certificate has expired"
            case .serverCertificateUntrusted: "the server's certificate is not trusted"
            case .serverCertificateHasUnknownRoot: "the server's certificate is not signed by a trusted root"
            case .serverCertificateNotYetValid: "the server's certificate is not yet valid"
            case .serverCertificateHostnameMismatch: "the server's certificate does not name the host"
            case .tlsProtocolError: "the TLS connection failed"
            case .cannotFindProxyHost: "cannot find the proxy host"
            case .cannotConnectToProxy: "cannot connect to the proxy"
            case .proxyAuthenticationRequired: "the proxy requires authentication"
            case .proxyConnectFailed: "the proxy did not open a tunnel"
            case .requestBodyFailed: "the request body could not be sent"
            case .requestBodyLengthMismatch: "the request body does not match its length"
            case .cannotOpenFile: "cannot open file"
            default: "error \(rawValue)"
            }
        }
    }

    /// Which deadline passed, for errors with code `.timedOut`.
    ///
    /// ```swift
    /// let error = UVURLError.timedOut(.idleRead)
    /// print(error.timeoutKind == .idleRead) // Prints: "true"
    /// ```
    public enum TimeoutKind: Sendable, Hashable, CustomStringConvertible {
        /// The TCP connection (including name resolution) was not
        /// established in time.
        case connect
        /// No byte of the response arrived for longer than the idle read
        /// timeout (`URLSessionConfiguration.timeoutIntervalForRequest`).
        case idleRead
        /// The whole task, redirects included, took longer than the total
        /// timeout (`timeoutIntervalForResource`).
        case total

        /// `connect`, `idle read` or `total`.
        public var description: String {
            switch self {
            case .connect: "connect"
            case .idleRead: "idle read"
            case .total: "total"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// Precisely what went wrong, when there is more to say than the code.
    public let detail: String?
    /// The libuv error name, such as `"UV_ECONNREFUSED"`, when libuv
    /// reported the failure; OpenSSL's, such as
    /// `"X509_V_ERR_HOSTNAME_MISMATCH"`, for a TLS failure.
    public let underlyingErrorName: String?
    /// Which deadline passed, when `code` is `.timedOut`.
    public let timeoutKind: TimeoutKind?

    /// Creates an error.
    ///
    /// ```swift
    /// let error = UVURLError(.cannotConnectToHost, underlyingErrorName: "UV_ECONNREFUSED")
    /// print(error) // Prints: "cannot connect to host [UV_ECONNREFUSED]"
    /// ```
    public init(
        _ code: Code,
        detail: String? = nil,
        underlyingErrorName: String? = nil,
        timeoutKind: TimeoutKind? = nil
    ) {
        self.code = code
        self.detail = detail
        self.underlyingErrorName = underlyingErrorName
        self.timeoutKind = timeoutKind
    }

    /// A `.timedOut` error for the given deadline.
    ///
    /// ```swift
    /// print(UVURLError.timedOut(.connect)) // Prints: "the request timed out (connect timeout)"
    /// ```
    public static func timedOut(_ kind: TimeoutKind) -> UVURLError {
        UVURLError(.timedOut, detail: "\(kind) timeout", timeoutKind: kind)
    }

    /// The code's summary, then the detail in parentheses and the libuv
    /// error name in brackets when present.
    public var description: String {
        var text = code.summary
        if let detail { text += " (\(detail))" }
        if let underlyingErrorName { text += " [\(underlyingErrorName)]" }
        return text
    }

    /// Errors are equal when their codes are, as with `URLError`.
    public static func == (lhs: UVURLError, rhs: UVURLError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// Shorthand used by the parser: a `.badServerResponse` with a detail.
    internal static func badResponse(_ detail: String) -> UVURLError {
        UVURLError(.badServerResponse, detail: detail)
    }
}
