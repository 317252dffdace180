/// A type that defines methods for encoding.
///
/// `JSONEncoder` and `PropertyListEncoder` conform, encoding to `Data`
/// (the conformances are in UVCombineFoundation, which `import UVCombine`
/// includes).
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
