/// Named traps for contract violations, so a crash says which rule broke.

@inlinable @inline(never)
internal func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("UVCombine API violation: \(rule)", file: file, line: line)
}
