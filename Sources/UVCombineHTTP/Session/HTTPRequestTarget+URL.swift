import FoundationEssentials
import UVCombineHTTPCore

extension HTTPRequestTarget {
    /// Checks and takes apart a Foundation `URL`: its `absoluteString`,
    /// parsed by the protocol core (which imports no Foundation module).
    ///
    /// ```swift
    /// let target = try HTTPRequestTarget(url: URL(string: "http://127.0.0.1:8080/a")!)
    /// print(target.authority) // Prints: "127.0.0.1:8080"
    /// ```
    ///
    /// Threading: a value; any thread.
    ///
    /// - Throws: `.badURL` or `.unsupportedURL`, as `HTTPRequestTarget(string:)`
    ///   (UVCombineHTTPCore) throws them.
    public init(url: URL) throws(UVURLError) {
        guard let reference = HTTPURLReference(parsing: url.absoluteString) else {
            throw UVURLError(.badURL, detail: "not a valid URL")
        }
        try self.init(reference: reference)
    }
}
