/// Cookie paths: the default path and path-match of RFC 6265 section 5.1.4.
///
/// Threading: pure functions; any thread.
internal enum CookiePath {
    /// The path of a request target without its query and fragment; `/`
    /// when empty.
    internal static func requestPath(_ target: some StringProtocol) -> String {
        let text = Substring(target)
        let end = text.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? text.endIndex
        return end == text.startIndex ? "/" : String(text[..<end])
    }

    /// The default-path: `/` unless the path starts with `/` and has
    /// another `/`; then everything before the last `/`.
    ///
    /// `/docs/index.html` gives `/docs`; `/index.html`, `docs` and the
    /// empty path give `/`.
    internal static func defaultPath(_ path: String) -> String {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")),
              last != bytes.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// Path-match: equal, or `cookiePath` is a prefix of `requestPath`
    /// that ends with `/` or is followed by `/` in it.
    internal static func matches(requestPath: String, cookiePath: String) -> Bool {
        let request = requestPath.utf8
        let cookie = cookiePath.utf8
        guard request.count >= cookie.count, request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }
}
