import UVCombineCore

// The session's names for the package's shared primitives (UVCombineCore's
// Helpers: `currentThreadIdentity()`, `violation(_:)`, `UncheckedSendable`).
// Forwarders only, no second copy: the call sites in SessionTask and
// SessionEngine keep their names (and SessionEngine its imports) until
// those files are next edited, when they can use Core's directly and these
// go.

/// Core's `UncheckedSendable`, named for the files of this module that do
/// not import UVCombineCore.
internal typealias UncheckedSendable<Value> = UVCombineCore.UncheckedSendable<Value>

/// The calling thread's identity, never zero, for the re-entrant delivery
/// gate: Core's `currentThreadIdentity()`.
@inlinable @inline(__always)
internal func sessionThreadID() -> UInt {
    currentThreadIdentity()
}

/// Named traps for contract violations in the session and its publishers:
/// Core's `violation(_:)`.
@inlinable @inline(__always)
internal func sessionViolation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    violation(rule, file: file, line: line)
}
