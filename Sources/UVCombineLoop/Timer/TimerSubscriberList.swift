/// A timer publisher's subscribers: `.empty`, `.single` or `.many`, so that
/// one subscriber (the common case) costs no array. Copying the list out of
/// the lock retains storage; it never copies elements.
@usableFromInline
internal enum TimerSubscriberList {
    case empty
    case single(TimerSubscriptionBase)
    case many(ContiguousArray<TimerSubscriptionBase>)

    @inlinable
    internal mutating func insert(_ subscription: TimerSubscriptionBase) {
        switch self {
        case .empty:
            self = .single(subscription)
        case .single(let existing):
            self = .many([existing, subscription])
        case .many(var all):
            self = .empty // drop our reference so the append does not copy
            all.append(subscription)
            self = .many(all)
        }
    }

    @usableFromInline
    internal mutating func remove(_ subscription: TimerSubscriptionBase) {
        switch self {
        case .empty:
            break
        case .single(let existing):
            if existing === subscription { self = .empty }
        case .many(var all):
            guard let index = all.firstIndex(where: { $0 === subscription }) else { return }
            self = .empty
            all.remove(at: index)
            self = all.count == 1 ? .single(all[0]) : .many(all)
        }
    }

    @inlinable @inline(__always)
    internal func forEach(_ body: (TimerSubscriptionBase) -> Void) {
        switch self {
        case .empty:
            break
        case .single(let subscription):
            body(subscription)
        case .many(let all):
            for subscription in all { body(subscription) }
        }
    }
}
