import UVCombineCore

/// Named traps for impossible transitions in the HTTP state machines, so a
/// crash says which rule broke and in which state: Core's one `trap`, with
/// this module's prefix.
@inline(__always)
internal func httpViolation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    trap("UVCombineHTTP state machine violation: \(rule)", file: file, line: line)
}
