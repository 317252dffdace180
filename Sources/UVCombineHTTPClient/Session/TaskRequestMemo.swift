import Synchronization

/// The last URL a session made a publisher for, and the task request made
/// from it: `session.dataTaskPublisher(for: url)` written out for every
/// request (the spelling of Apple's articles and of most programs that
/// poll one endpoint) then checks the URL, builds the `HTTPRequest` and
/// serialises its head once, not once per request.
///
/// What it saves, per in-place request (issue 32, callgrind and the
/// benchmarks' malloc counter, `NginxProfile inPlace`): the URL's parse and
/// checks, the request's pseudo-header storage and the prepared head's
/// bytes, about 40,000 instructions and 7 mallocs of the 12. A different
/// URL replaces the entry (one comparison of the URL's string, which for
/// the same `URL` value is one comparison of its storage's address).
///
/// Only for URLs with default ``UVURLSession/RequestOptions``: a task
/// request made from a URL depends on nothing but the URL's string and the
/// session's configuration, which does not change.
///
/// Threading: any thread (publishers are made on any thread); one
/// uncontended lock per lookup, the hit retained under it.
///
/// ```swift
/// let memo = TaskRequestMemo()
/// if let task = memo.task(for: "http://127.0.0.1:8080/a") { print(task.request) }
/// ```
package struct TaskRequestMemo: ~Copyable, Sendable {
    // A tuple, not a private nested struct: the debug build's compiler
    // (6.3.1) crashed on a private type inside this ~Copyable struct's
    // Mutex ("Global is external, but doesn't have external or weak
    // linkage").
    private let entry = Mutex<(url: String, task: HTTPTaskRequest)?>(nil)

    package init() {}

    /// The task request remembered for `url`, or nil.
    package func task(for url: String) -> HTTPTaskRequest? {
        entry.withLock { entry in
            guard let entry, entry.url == url else { return nil }
            return entry.task
        }
    }

    /// Remembers `task` as the one made for `url`, replacing the entry.
    package func remember(_ task: HTTPTaskRequest, for url: String) {
        let replaced = entry.withLock { entry in
            let old = entry
            entry = (url: url, task: task)
            return old
        }
        // The old entry is released here, outside the lock.
        _ = replaced
    }
}
