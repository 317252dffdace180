/// Named traps for impossible transitions in the HTTP state machines, so a
/// crash says which rule broke and in which state.

@inline(never)
internal func httpViolation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    // fatalError rather than precondition: release builds keep the message.
    fatalError("UVCombineHTTP state machine violation: \(rule)", file: file, line: line)
}
