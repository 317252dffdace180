/// The subscribers of a subject: `.empty`, `.single` or `.many`, so that one
/// subscriber (the common case) costs no array. Copying the list out of a
/// lock retains storage; it never copies elements.
@usableFromInline
internal enum ConduitList<Output, Failure: Error> {
    case empty
    case single(ConduitBase<Output, Failure>)
    case many(ContiguousArray<ConduitBase<Output, Failure>>)

    @inlinable
    internal mutating func insert(_ conduit: ConduitBase<Output, Failure>) {
        switch self {
        case .empty:
            self = .single(conduit)
        case .single(let existing):
            self = .many([existing, conduit])
        case .many(var all):
            self = .empty // drop our reference so the append does not copy
            all.append(conduit)
            self = .many(all)
        }
    }

    @inlinable
    internal mutating func remove(_ conduit: ConduitBase<Output, Failure>) {
        switch self {
        case .empty:
            break
        case .single(let existing):
            if existing === conduit { self = .empty }
        case .many(var all):
            guard let index = all.firstIndex(where: { $0 === conduit }) else { return }
            self = .empty
            all.remove(at: index)
            self = all.count == 1 ? .single(all[0]) : .many(all)
        }
    }

    @inlinable
    internal var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    @inlinable
    internal var count: Int {
        switch self {
        case .empty: return 0
        case .single: return 1
        case .many(let all): return all.count
        }
    }

    @inlinable @inline(__always)
    internal func forEach(_ body: (ConduitBase<Output, Failure>) throws -> Void) rethrows {
        switch self {
        case .empty:
            break
        case .single(let conduit):
            try body(conduit)
        case .many(let all):
            for conduit in all { try body(conduit) }
        }
    }
}
