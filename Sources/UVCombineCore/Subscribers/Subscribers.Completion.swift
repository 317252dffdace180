extension Subscribers {
    /// A signal that a publisher doesn't produce additional elements, either
    /// due to normal completion or an error.
    ///
    /// ```swift
    /// let done: Subscribers.Completion<Never> = .finished
    /// ```
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher finished normally.
        case finished
        /// The publisher stopped publishing due to the indicated error.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

/// The keys Combine uses when coding a completion.
private enum CompletionCodingKeys: String, CodingKey {
    case success
    case error
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
    /// Encodes as Combine does: `{"success": true}` when finished,
    /// `{"success": false, "error": …}` on failure.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(Subscribers.Completion<Never>.finished)
    /// print(String(decoding: json, as: UTF8.self)) // Prints: "{"success":true}"
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CompletionCodingKeys.self)
        switch self {
        case .finished:
            try container.encode(true, forKey: .success)
        case .failure(let error):
            try container.encode(false, forKey: .success)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
    /// Decodes the form that ``encode(to:)`` writes.
    ///
    /// ```swift
    /// let json = Data(#"{"success":true}"#.utf8)
    /// let completion = try JSONDecoder().decode(Subscribers.Completion<Never>.self, from: json)
    /// print(completion) // Prints: "finished"
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CompletionCodingKeys.self)
        if try container.decode(Bool.self, forKey: .success) {
            self = .finished
        } else {
            self = .failure(try container.decode(Failure.self, forKey: .error))
        }
    }
}

extension Subscribers.Completion {
    /// The same completion with its error transformed.
    @inlinable
    internal func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Subscribers.Completion<NewFailure> {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(transform(error))
        }
    }

    /// The same completion with its error erased to `any Error`.
    @inlinable
    internal var eraseError: Subscribers.Completion<any Error> {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(error)
        }
    }
}
