#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import UVCombineHTTPCookies

// Cookies (UVURLSession.Configuration.httpCookieStorage): the `Cookie`
// field added as each request is issued (the first, each redirect's, each
// hop's for its own URL) and the `Set-Cookie` fields of every response
// head stored (redirects included). While the store is empty and the
// response sets none, each costs one atomic load (UVHTTPCookieStorage's
// isEmpty) and no lock: cookies are on by default, so every request pays
// it (issue 32).
extension SessionEngine {
    // MARK: Cookies

    /// Seconds since the epoch, the cookies' clock (`time(2)`: the vDSO,
    /// no system call).
    package static var cookieNow: Int64 { Int64(time(nil)) }

    /// Puts the storage's cookies for the task's current request into a
    /// `Cookie` field, replacing the one it added for the previous hop.
    /// A request that carries its own `Cookie` field keeps it.
    package func applyCookies(to task: SessionTask, from storage: UVHTTPCookieStorage) {
        if task.addedCookieField {
            task.addedCookieField = false
            task.request.headerFields[.cookie] = nil
        }
        guard !storage.isEmpty, task.request.headerFields[.cookie] == nil,
              let url = CookieRequestURL(task.request),
              let value = storage.cookieHeader(for: url, now: Self.cookieNow) else { return }
        // One field line (RFC 6265 5.4): HTTPFields' subscript would split
        // the value at each "; " into lines of their own.
        task.request.headerFields.append(HTTPField(name: .cookie, value: value))
        task.addedCookieField = true
        // The prepared head has no Cookie field.
        task.usesPreparedHead = false
    }

    /// Stores the `Set-Cookie` fields of a response to the task's
    /// current request.
    package func storeCookies(of response: HTTPResponse, for task: SessionTask, in storage: UVHTTPCookieStorage) {
        guard response.headerFields.contains(.setCookie), let url = CookieRequestURL(task.request) else { return }
        storage.receive(response.headerFields, from: url, now: Self.cookieNow)
    }
}
