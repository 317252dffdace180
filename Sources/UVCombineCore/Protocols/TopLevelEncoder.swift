#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type that defines methods for encoding.
///
/// `JSONEncoder` and `PropertyListEncoder` conform, encoding to `Data`.
/// Use it with ``Publisher/encode(encoder:)``.
///
/// ```swift
/// struct Reading: Encodable { let celsius: Double }
/// let c = Just(Reading(celsius: 21.5))
///     .encode(encoder: JSONEncoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print(String(decoding: $0, as: UTF8.self)) })
/// // Prints: "{"celsius":21.5}"
/// ```
public protocol TopLevelEncoder {
    /// The type this encoder produces.
    associatedtype Output

    /// Encodes an instance of the indicated type.
    func encode<T: Encodable>(_ value: T) throws -> Output
}

extension JSONEncoder: TopLevelEncoder {
    /// `JSONEncoder` encodes to `Data`.
    public typealias Output = Data
}

extension PropertyListEncoder: TopLevelEncoder {
    /// `PropertyListEncoder` encodes to `Data`.
    public typealias Output = Data
}
