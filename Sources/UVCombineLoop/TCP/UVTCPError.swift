import CLibUV

/// Why a TCP operation failed: a ``Kind`` saying what went wrong, and the
/// libuv error behind it (`UV_ECONNREFUSED`, `UV_EAI_NONAME`, ...).
///
/// The description reads `connection failed: UV_ECONNREFUSED: connection
/// refused`. Map it by ``kind``; log ``name``. Threading: a value type; use
/// it anywhere.
///
/// ```swift
/// UVTCP.connect(host: "nonexistent.invalid", port: 80, on: loop) { result in
///     if case .failure(let error) = result, error.kind == .hostNotFound {
///         print(error.name) // Prints: "UV_EAI_NONAME"
///     }
/// }
/// ```
public struct UVTCPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, independent of the exact libuv code.
    ///
    /// ```swift
    /// if case .failure(let error) = result, error.kind == .connectionFailed {
    ///     print(error.name) // Prints: "UV_ECONNREFUSED"
    /// }
    /// ```
    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// A port outside `0...65535` (`1...65535` to connect), or a listen
        /// address that is not a numeric IPv4 or IPv6 address
        /// (`UV_EINVAL`).
        case invalidArgument
        /// The resolver knows no address for the host (`UV_EAI_NONAME`,
        /// `UV_EAI_NODATA`).
        case hostNotFound
        /// The resolver failed otherwise (`UV_EAI_AGAIN`, `UV_EAI_FAIL`, ...).
        case resolutionFailed
        /// Every address of the host refused or could not be reached; the
        /// error is the last address's (`UV_ECONNREFUSED`,
        /// `UV_ENETUNREACH`, `UV_ETIMEDOUT` from the kernel, ...).
        case connectionFailed
        /// The connect timeout passed before a connection was established
        /// (`UV_ETIMEDOUT`).
        case timedOut
        /// An established connection broke while reading or writing
        /// (`UV_ECONNRESET`, `UV_EPIPE`, ...).
        case connectionLost
        /// The connection was closed (`UV_ENOTCONN`): it cannot be read.
        case closed
        /// The connection already has a reader (`UV_EALREADY`).
        case alreadyReading
        /// Binding or listening failed (`UV_EADDRINUSE`, `UV_EACCES`, ...).
        case listenFailed

        /// The kind in words, e.g. `host not found`.
        public var description: String {
            switch self {
            case .invalidArgument: return "invalid argument"
            case .hostNotFound: return "host not found"
            case .resolutionFailed: return "host resolution failed"
            case .connectionFailed: return "connection failed"
            case .timedOut: return "connect timed out"
            case .connectionLost: return "connection lost"
            case .closed: return "connection closed"
            case .alreadyReading: return "connection already has a reader"
            case .listenFailed: return "listen failed"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The libuv error behind it.
    public let error: UVError

    /// Pairs a kind with the libuv error behind it.
    ///
    /// ```swift
    /// let error = UVTCPError(.connectionFailed, UVError(code: UV_ECONNREFUSED.rawValue))
    /// ```
    public init(_ kind: Kind, _ error: UVError) {
        self.kind = kind
        self.error = error
    }

    /// The libuv error's name with its `UV_` prefix, e.g. `UV_ECONNREFUSED`.
    public var name: String { "UV_\(error.name)" }

    /// `<kind>: UV_<name>: <message>`, e.g.
    /// `host not found: UV_EAI_NONAME: unknown node or service`.
    public var description: String { "\(kind): \(error)" }

    internal init(_ kind: Kind, code: Int32) {
        self.init(kind, UVError(code: code))
    }

    /// A resolver status (`uv_getaddrinfo`) as an error.
    internal static func resolution(_ status: Int32) -> UVTCPError {
        let notFound = status == UV_EAI_NONAME.rawValue || status == UV_EAI_NODATA.rawValue
        return UVTCPError(notFound ? .hostNotFound : .resolutionFailed, code: status)
    }
}
