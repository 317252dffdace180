/// A unique identifier for identifying publisher streams.
///
/// Subscriptions and subscribers that are classes get one derived from their
/// object identity for free through ``CustomCombineIdentifierConvertible``.
///
/// ```swift
/// let id = CombineIdentifier()
/// print(id == CombineIdentifier()) // Prints: "false"
/// ```
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
    @usableFromInline internal let rawValue: UInt64

    /// Creates a unique identifier, never equal to any other made this way.
    /// Threading: callable from any thread.
    public init() {
        rawValue = IdentifierCounter.next()
    }

    /// Creates an identifier derived from the identity of `obj`: its
    /// address, which `description` prints in hexadecimal as Combine does.
    ///
    /// ```swift
    /// let id = CombineIdentifier(subscription)
    /// ```
    @inlinable
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    /// The identifier as a hexadecimal string, as Combine prints it.
    public var description: String {
        "0x" + String(rawValue, radix: 16)
    }
}

/// A type that provides a ``CombineIdentifier`` for use in debugging.
///
/// Classes get an identity-based default; structs must provide one.
///
/// ```swift
/// print(subscriber.combineIdentifier)
/// ```
public protocol CustomCombineIdentifierConvertible {
    /// A unique identifier for identifying publisher streams.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identifier derived from this object's identity.
    @inlinable
    public var combineIdentifier: CombineIdentifier {
        CombineIdentifier(self)
    }
}
