import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import UVCombine
import UVCombineHTTPCore

/// `uvcombine fetch`'s cookie engine, as curl's: off unless `-b FILE` or
/// `-c FILE` asks; then one store for the whole run, loaded from the `-b`
/// jars, filled by every response's `Set-Cookie` (the session stores them,
/// redirects included), and written to `-c`'s file in curl's Netscape
/// format when the run ends.
///
/// The `Cookie` field of each hop is the engine's cookies for its URL
/// followed by `-b 'n=v'`'s string, in one field, as curl joins them.
/// Main thread (the tool's loop thread).
final class FetchCookies {
    let storage: UVHTTPCookieStorage
    private let jarPath: String?

    /// Nil when the options ask for no cookie engine.
    init?(options: FetchOptions) {
        guard options.usesCookieEngine else { return nil }
        storage = UVHTTPCookieStorage()
        jarPath = options.cookieJar
        let now = Self.now
        for path in options.cookieFiles where !path.isEmpty {
            // As curl: a file that cannot be read loads nothing.
            let text = path == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                : (FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? "")
            storage.withStore { _ = $0.load(jar: text, now: now) }
        }
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Sets `fields`' `Cookie` to the engine's cookies for `target`, then
    /// `custom` (`-b 'n=v'`, already in `fields` from the plan). A `Cookie`
    /// given with `-H` stays as it is.
    func merge(into fields: inout HTTPFields, for target: HTTPRequestTarget, custom: String?) {
        let current = fields[values: .cookie].joined(separator: "; ")
        guard current.isEmpty || current == custom else { return }
        let url = CookieRequestURL(scheme: target.scheme == .https ? "https" : "http", host: target.host,
                                   path: target.target)
        let engine = storage.cookieHeader(for: url, now: Self.now)
        let value = [engine, custom].compactMap { $0 }.joined(separator: "; ")
        // One field line, as curl sends it (the subscript would split the
        // value at each "; ").
        fields[.cookie] = nil
        if !value.isEmpty { fields.append(HTTPField(name: .cookie, value: value)) }
    }

    /// Writes the jar to `-c`'s file (`-`: standard output); the error,
    /// if writing failed.
    func writeJar() -> String? {
        guard let jarPath else { return nil }
        let text = storage.jar(now: Self.now)
        if jarPath == "-" {
            FetchOutput.writeStandardOutput(Array(text.utf8))
            return nil
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: jarPath))
            return nil
        } catch {
            return "\(error)"
        }
    }
}
