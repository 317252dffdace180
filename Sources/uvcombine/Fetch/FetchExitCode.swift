import UVCombine

/// `uvcombine fetch`'s exit statuses: curl's numbers where curl has one
/// (`FetchOptions.usage` lists them for users).
enum FetchExitCode {
    static let success: Int32 = 0
    static let otherFailure: Int32 = 1
    static let usage: Int32 = 2
    static let badURL: Int32 = 3
    /// curl's "a feature, protocol or option was not found built-in".
    static let notBuiltIn: Int32 = 4
    /// curl's "Couldn't resolve proxy".
    static let cannotFindProxy: Int32 = 5
    static let cannotFindHost: Int32 = 6
    static let cannotConnect: Int32 = 7
    static let badServerResponse: Int32 = 8
    static let httpError: Int32 = 22
    static let writeError: Int32 = 23
    /// A file to send (`-T`) cannot be read.
    static let readError: Int32 = 26
    static let timedOut: Int32 = 28
    static let tlsHandshake: Int32 = 35
    static let invalidRequest: Int32 = 43
    static let redirects: Int32 = 47
    /// The connection closed before any response byte (curl's "Empty
    /// reply from server").
    static let emptyReply: Int32 = 52
    /// Also curl's status for a proxy that answers CONNECT with anything
    /// but 2xx (curl 7.88: "CONNECT tunnel failed, response 403").
    static let connectionLost: Int32 = 56
    static let peerCertificate: Int32 = 60
    static let badContentEncoding: Int32 = 61
    static let tooLarge: Int32 = 63
    /// The `--cacert` file cannot be read.
    static let caCertificateFile: Int32 = 77

    /// The status for a failed task.
    static func forError(_ error: UVURLError) -> Int32 {
        switch error.code {
        case .badURL: badURL
        case .unsupportedURL: otherFailure
        case .cannotFindHost: cannotFindHost
        case .cannotConnectToHost, .cannotConnectToProxy: cannotConnect
        case .cannotFindProxyHost: cannotFindProxy
        case .proxyAuthenticationRequired, .proxyConnectFailed: connectionLost
        case .badServerResponse: badServerResponse
        case .timedOut: timedOut
        case .invalidRequest: invalidRequest
        case .httpTooManyRedirects, .insecureRedirect: redirects
        case .networkConnectionLost where error.detail == "connection closed before the response began": emptyReply
        case .networkConnectionLost: connectionLost
        case .dataLengthExceedsMaximum: tooLarge
        case .cannotDecodeContentData: badContentEncoding
        case .secureConnectionFailed, .tlsProtocolError: tlsHandshake
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .serverCertificateHostnameMismatch: peerCertificate
        default: otherFailure
        }
    }
}
