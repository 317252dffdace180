import Synchronization

/// A publisher that allows for recording a series of inputs and a
/// completion, for later playback to each subscriber.
///
/// Each subscriber gets the recorded values in order, as many as it
/// requests, then the recorded completion (which needs no demand). A
/// recording without values completes right after the subscription.
/// Threading: values are delivered on the requesting thread; a request made
/// re-entrantly from `receive(_:)` joins the loop already running.
///
/// ```swift
/// let record = Record<Int, Never> { recording in
///     recording.receive(1)
///     recording.receive(2)
///     recording.receive(completion: .finished)
/// }
/// let c = record.sink { print($0) }
/// // Prints: "1 2"
/// ```
public struct Record<Output, Failure: Error>: Publisher {
    /// The recorded output and completion.
    public let recording: Recording

    /// Creates a publisher to interactively record a series of outputs and a
    /// completion.
    ///
    /// ```swift
    /// let r = Record<Int, Never> { $0.receive(1); $0.receive(completion: .finished) }
    /// ```
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a record publisher from an existing recording.
    ///
    /// ```swift
    /// let r = Record(recording: Record<Int, Never>.Recording(output: [1, 2], completion: .finished))
    /// ```
    @inlinable
    public init(recording: Recording) {
        self.recording = recording
    }

    /// Creates a record publisher to publish the provided records.
    ///
    /// ```swift
    /// let r = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
    /// ```
    @inlinable
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        self.recording = Recording(output: output, completion: completion)
    }

    /// Plays the recording back to `subscriber`.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        if recording.output.isEmpty {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: recording.completion)
        } else {
            subscriber.receive(subscription: Inner(downstream: subscriber, output: recording.output,
                                                   completion: recording.completion))
        }
    }

    /// A recorded sequence of outputs, followed by a completion.
    ///
    /// Recording a value after the completion, or a second completion, traps
    /// with a message naming the rule. A recording whose completion was
    /// never set completes with `.finished`.
    ///
    /// ```swift
    /// var recording = Record<Int, Never>.Recording()
    /// recording.receive(1)
    /// recording.receive(completion: .finished)
    /// ```
    public struct Recording {
        /// The recorded values' type.
        public typealias Input = Output

        /// The output recorded so far.
        public private(set) var output: [Output]

        /// The completion recorded; `.finished` until one is received.
        public private(set) var completion: Subscribers.Completion<Failure>

        private var isComplete: Bool

        /// Creates an empty recording, ready to receive values.
        public init() {
            output = []
            completion = .finished
            isComplete = false
        }

        /// Creates a complete recording with the given output and completion.
        ///
        /// ```swift
        /// let r = Record<Int, Never>.Recording(output: [1, 2])
        /// ```
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            self.output = output
            self.completion = completion
            isComplete = true
        }

        /// Adds an output to the recording. Traps after the completion.
        public mutating func receive(_ input: Input) {
            if isComplete { violation("Record.Recording.receive(_:) after the completion was recorded") }
            output.append(input)
        }

        /// Adds a completion to the recording. Traps if one was recorded
        /// already.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            if isComplete { violation("Record.Recording.receive(completion:) called more than once") }
            self.completion = completion
            isComplete = true
        }
    }
}

extension Record: Codable where Output: Codable, Failure: Codable {}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    private enum CodingKeys: String, CodingKey {
        case output
        case completion
    }

    /// Decodes a complete recording: `output` and `completion`.
    ///
    /// ```swift
    /// let json = Data(#"{"output":[1,2],"completion":{"success":true}}"#.utf8)
    /// let recording = try JSONDecoder().decode(Record<Int, Never>.Recording.self, from: json)
    /// print(recording.output) // Prints: "[1, 2]"
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(output: try container.decode([Output].self, forKey: .output),
                  completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
    }

    /// Encodes `output` and `completion`.
    ///
    /// ```swift
    /// let recording = Record<Int, Never>.Recording(output: [1, 2], completion: .finished)
    /// let json = try JSONEncoder().encode(recording)
    /// // {"output":[1,2],"completion":{"success":true}}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }

    /// Encodes the recording, as Combine's `encode(into:)` does.
    ///
    /// ```swift
    /// try recording.encode(into: encoder)
    /// ```
    public func encode(into encoder: any Encoder) throws {
        try encode(to: encoder)
    }
}

extension Record {
    /// Plays one subscriber's copy of the recording, honouring demand.
    ///
    /// As Combine's: `request(.none)` is accepted (and adds nothing); a
    /// request made from inside `receive(_:)` adds demand to the running
    /// loop instead of starting another; the subscriber and the recording
    /// are released once the completion went out or on cancel, and later
    /// requests do nothing. Describes itself as the recorded values
    /// (`"Cancelled Events"` once released).
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline
        internal struct State {
            /// Nil once done or cancelled.
            @usableFromInline var downstream: Downstream?
            /// Nil once done or cancelled.
            @usableFromInline var output: [Output]?
            /// The index of the next value.
            @usableFromInline var next = 0
            @usableFromInline var demand: Subscribers.Demand = .none
            /// A loop is running on some thread; new demand joins it.
            @usableFromInline var emitting = false

            @inlinable
            init(downstream: Downstream, output: [Output]) {
                self.downstream = downstream
                self.output = output
            }
        }

        @usableFromInline enum Step {
            case emit(Downstream, Output)
            case finish(Downstream)
            case stop
        }

        @usableFromInline let completion: Subscribers.Completion<Failure>
        @usableFromInline let state: Locked<State>
        /// The emit loop, formed where `receive(subscriber:)` is specialised
        /// (see `Publishers.Sequence.Inner.emitter`): `request` arrives
        /// through `any Subscription`, whose unspecialised body would
        /// allocate per element.
        @usableFromInline let emitter: (Inner) -> Void

        @inlinable
        init(downstream: Downstream, output: [Output], completion: Subscribers.Completion<Failure>) {
            self.completion = completion
            state = Locked(State(downstream: downstream, output: output))
            emitter = { $0.emit() }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            let start = state.withLock { s -> Bool in
                guard s.downstream != nil, demand.rawValue > 0 else { return false }
                s.demand += demand
                if s.emitting { return false }
                s.emitting = true
                return true
            }
            if start { emitter(self) }
        }

        @inlinable
        func emit() {
            while true {
                let step = state.withLock { s -> Step in
                    guard let downstream = s.downstream, let output = s.output else {
                        s.emitting = false
                        return .stop
                    }
                    if s.next == output.count {
                        // The completion needs no demand.
                        s.downstream = nil
                        s.output = nil
                        s.emitting = false
                        return .finish(downstream)
                    }
                    guard s.demand.rawValue > 0 else {
                        s.emitting = false
                        return .stop
                    }
                    if !s.demand.isUnlimited {
                        s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
                    }
                    let value = output[s.next]
                    s.next += 1
                    return .emit(downstream, value)
                }
                switch step {
                case .stop:
                    return
                case .finish(let downstream):
                    downstream.receive(completion: completion)
                    return
                case .emit(let downstream, let value):
                    let more = downstream.receive(value)
                    if more.rawValue > 0 {
                        state.withLock { $0.demand += more }
                    }
                }
            }
        }

        @inlinable
        func cancel() {
            let released = state.withLock { s -> (Downstream?, [Output]?) in
                defer {
                    s.downstream = nil
                    s.output = nil
                }
                return (s.downstream, s.output)
            }
            _ = released // released outside the lock
        }

        /// The recorded values, or `"Cancelled Events"` once finished or
        /// cancelled, as Combine describes it.
        @usableFromInline var description: String {
            state.withLock { $0.output }.map { $0.description } ?? "Cancelled Events"
        }
        /// `sequence` (the recorded values, empty once released) and
        /// `completion`, as in Combine.
        @usableFromInline var customMirror: Mirror {
            let output = state.withLock { $0.output }
            let children: [Mirror.Child] = [("sequence", output ?? [Output]()), ("completion", completion)]
            return Mirror(self, children: children)
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
