import Synchronization

/// The process-wide counter behind `CombineIdentifier()`. The high bit is set
/// so these never collide with identifiers made from object addresses, whose
/// high bit is always clear on the platforms we support.
internal enum IdentifierCounter {
    private static let counter = Atomic<UInt64>(0)

    internal static func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue | (1 << 63)
    }
}
