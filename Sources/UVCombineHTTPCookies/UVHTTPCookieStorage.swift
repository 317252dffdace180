public import HTTPTypes
import Synchronization

/// The session-wide cookie store: a ``CookieStore`` behind a `Mutex`, as
/// `URLSessionConfiguration.httpCookieStorage` is for URLSession.
///
/// Every method takes the lock once and does only in-memory work under
/// it; it never calls out while holding it. Time comes from the caller
/// (`now`, seconds since the epoch), so a session passes its clock and a
/// test a constant.
///
/// Threading: any thread; calls are serialised by the lock.
///
/// ```swift
/// let storage = UVHTTPCookieStorage()
/// let url = CookieRequestURL(scheme: "https", host: "example.com", path: "/")
/// storage.receive(responseFields, from: url, now: now)
/// if let value = storage.cookieHeader(for: url, now: now) { request.headerFields[.cookie] = value }
/// ```
public final class UVHTTPCookieStorage: Sendable {
    /// The store; every access holds the lock.
    private let store: Mutex<CookieStore>
    /// The store's cookie count, written under the lock after every
    /// access, read without it by ``isEmpty``.
    private let cookieCount: Atomic<Int>

    /// A storage starting from `store` (empty by default).
    public init(_ store: CookieStore = CookieStore()) {
        self.store = Mutex(store)
        cookieCount = Atomic(store.count)
    }

    /// Whether the storage holds no cookie, without taking the lock (one
    /// atomic load): a session asks this for every request it issues,
    /// so an empty jar, the default, costs no lock per request. A cookie
    /// stored by another thread at the same moment may or may not be
    /// seen, as with a lock taken just before it was stored.
    ///
    /// ```swift
    /// if !storage.isEmpty, let value = storage.cookieHeader(for: url, now: now) { send(value) }
    /// ```
    public var isEmpty: Bool { cookieCount.load(ordering: .acquiring) == 0 }

    /// Runs `body` under the lock, then publishes the store's count for
    /// ``isEmpty``.
    private func locked<Result: Sendable>(_ body: (inout CookieStore) -> Result) -> Result {
        store.withLock { store in
            let result = body(&store)
            cookieCount.store(store.count, ordering: .releasing)
            return result
        }
    }

    /// Stores the `Set-Cookie` fields of a response to `url`; as
    /// ``CookieStore/receive(_:from:now:)-(HTTPFields,_,_)``.
    @discardableResult
    public func receive(_ fields: HTTPFields, from url: CookieRequestURL, now: Int64) -> [CookieStore.Outcome] {
        locked { $0.receive(fields, from: url, now: now) }
    }

    /// Stores one `Set-Cookie` field value; as
    /// ``CookieStore/receive(setCookie:from:now:)``.
    @discardableResult
    public func receive(setCookie line: String, from url: CookieRequestURL, now: Int64) -> CookieStore.Outcome {
        locked { $0.receive(setCookie: line, from: url, now: now) }
    }

    /// The `Cookie` field value for a request to `url`; as
    /// ``CookieStore/cookieHeader(for:now:)``.
    public func cookieHeader(for url: CookieRequestURL, now: Int64) -> String? {
        locked { $0.cookieHeader(for: url, now: now) }
    }

    /// Every cookie, oldest first; as ``CookieStore/cookies``.
    public var cookies: [UVHTTPCookie] {
        store.withLock { $0.cookies }
    }

    /// Removes every cookie.
    public func removeAll() {
        locked { $0.removeAll() }
    }

    /// Runs `body` with the store under the lock, for anything else
    /// (limits, removal, jar loading). `body` must not call back into this
    /// storage: the lock is not recursive.
    ///
    /// ```swift
    /// storage.withStore { $0.removeExpired(now: now) }
    /// ```
    public func withStore<Result: Sendable>(_ body: (inout CookieStore) -> Result) -> Result {
        locked { body(&$0) }
    }
}
