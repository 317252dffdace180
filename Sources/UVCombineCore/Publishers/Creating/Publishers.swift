/// A namespace for types that serve as publishers.
///
/// ```swift
/// let doubled: Publishers.Map<Just<Int>, Int> = Just(2).map { $0 * 2 }
/// ```
public enum Publishers {}
