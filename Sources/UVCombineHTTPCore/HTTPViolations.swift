/// Named traps for impossible transitions in the HTTP state machines, so a
/// crash says which rule broke and in which state. `fatalError` (as Core's
/// `trap`, which this module cannot import: it stays free of the Combine
/// core) keeps the message in release builds; `@inline(never)` keeps the
/// message formatting off the callers' fast paths. `package`: the session
/// (UVCombineHTTP) names its own impossible states with it too.
///
/// ```swift
/// if phase != .idle { httpViolation("HTTPExchangeStateMachine.start: the exchange is \(phase)") }
/// ```
@inline(never)
package func httpViolation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("UVCombineHTTP state machine violation: \(rule)", file: file, line: line)
}
