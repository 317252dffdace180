import UVCombineHTTPCore

/// The HTTP target of a WebSocket URL, parsed without Foundation
/// (`HTTPRequestTarget`): `ws` as `http`, `wss` as `https`.
///
/// Threading: pure; any thread.
///
/// ```swift
/// let target = WebSocketTarget.parse("ws://127.0.0.1:8080/chat")
/// ```
package enum WebSocketTarget {
    /// `url` (ws, wss, http or https) as a target, or the error the task
    /// fails with when it starts.
    package static func parse(_ url: String) -> Result<HTTPRequestTarget, UVURLError> {
        var text = url
        let lowered = url.lowercased()
        if lowered.hasPrefix("ws://") {
            text = "http://" + url.dropFirst(5)
        } else if lowered.hasPrefix("wss://") {
            text = "https://" + url.dropFirst(6)
        } else if !(lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) {
            let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url
            return .failure(UVURLError(.unsupportedURL, detail: "scheme \"\(scheme)\" is not ws or wss"))
        }
        do throws(UVURLError) {
            let target = try HTTPRequestTarget(string: text)
            guard target.socketPath == nil else {
                return .failure(UVURLError(.unsupportedURL, detail: "WebSocket over a Unix domain socket is not supported"))
            }
            return .success(target)
        } catch {
            return .failure(error)
        }
    }
}
