/// A type that defines methods for decoding.
///
/// `JSONDecoder` and `PropertyListDecoder` conform, decoding from `Data`
/// (the conformances are in UVCombineFoundation, which `import UVCombine`
/// includes).
/// Use it with ``Publisher/decode(type:decoder:)``.
///
/// ```swift
/// struct Reading: Decodable { let celsius: Double }
/// let c = Just(Data(#"{"celsius": 21.5}"#.utf8))
///     .decode(type: Reading.self, decoder: JSONDecoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0.celsius) })
/// // Prints: "21.5"
/// ```
public protocol TopLevelDecoder {
    /// The type this decoder accepts.
    associatedtype Input

    /// Decodes an instance of the indicated type.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}
