/// Stops the process with `message`: the package's one trap.
///
/// `fatalError` rather than `precondition`: release builds keep the
/// message. `@inline(never)` keeps the message formatting off the callers'
/// fast paths. Every named trap below (and the HTTP module's) ends here.
///
/// ```swift
/// if broken { trap("UVCombineHTTP state machine violation: \(rule)") }
/// ```
@inlinable @inline(never)
package func trap(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}

/// Traps for a broken contract (of Combine's protocols or of this package's
/// API), so a crash says which rule broke. Any thread.
///
/// ```swift
/// if demand == .none { violation("Subscription.request(.none): demand must not be zero") }
/// ```
@inlinable @inline(never)
package func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    trap("UVCombine API violation: \(rule)", file: file, line: line)
}
