import UVCombine

/// `uvcombine fetch`'s exit statuses: curl's numbers where curl has one
/// (`FetchOptions.usage` lists them for users).
enum FetchExitCode {
    static let success: Int32 = 0
    static let otherFailure: Int32 = 1
    static let usage: Int32 = 2
    static let badURL: Int32 = 3
    static let cannotFindHost: Int32 = 6
    static let cannotConnect: Int32 = 7
    static let badServerResponse: Int32 = 8
    static let httpError: Int32 = 22
    static let writeError: Int32 = 23
    static let timedOut: Int32 = 28
    static let invalidRequest: Int32 = 43
    static let redirects: Int32 = 47
    static let connectionLost: Int32 = 56
    static let tooLarge: Int32 = 63

    /// The status for a failed task.
    static func forError(_ error: UVURLError) -> Int32 {
        switch error.code {
        case .badURL: badURL
        case .unsupportedURL: otherFailure
        case .cannotFindHost: cannotFindHost
        case .cannotConnectToHost: cannotConnect
        case .badServerResponse: badServerResponse
        case .timedOut: timedOut
        case .invalidRequest: invalidRequest
        case .httpTooManyRedirects, .insecureRedirect: redirects
        case .networkConnectionLost: connectionLost
        case .dataLengthExceedsMaximum: tooLarge
        default: otherFailure
        }
    }
}
