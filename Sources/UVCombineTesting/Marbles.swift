import Synchronization
import UVCombineCore

/// The failure a marble diagram's `#` sends; it prints as `#`.
///
/// ```swift
/// let failure: Subscribers.Completion<MarbleError> = .failure(MarbleError())
/// print(MarbleError()) // Prints: "#"
/// ```
public struct MarbleError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Creates the marble failure.
    public init() {}
    /// `#`.
    public var description: String { "#" }
}

extension TestScheduler {
    /// Runs a marble test: feeds `input` to a publisher built by
    /// `makePublisher`, one character per tick of virtual time, and returns
    /// what came out as a string of ticks.
    ///
    /// Input syntax, one character per tick:
    /// - `-` nothing happens;
    /// - `|` the upstream finishes, `#` it fails with ``MarbleError``;
    /// - any other character is sent as a one-character `String` value;
    /// - `(…)` groups several events into one tick: `(ab|)` sends `a`, `b`
    ///   and finishes at the same instant.
    ///
    /// Tick `i` is the instant `i × tick` after the current time. Input
    /// events are scheduled before the publisher is subscribed, so at any
    /// instant they run before work the operators schedule for that same
    /// instant (a value arriving exactly at a deadline counts as arriving
    /// before it). The subscriber requests `.unlimited`.
    ///
    /// Duration: with `ticks`, exactly that many ticks run (fewer if the
    /// output completes). Without it, the run goes on until the output
    /// completes, or for the input's length plus 64 ticks; the output then
    /// ends at the completion, or else at the later of the input's last
    /// tick and the last event.
    ///
    /// Output: one entry per tick. A tick shows `-` when
    /// nothing arrived, the event when one did (a value's description,
    /// `|` for finished, `#` for a failure), and `(…)` around several
    /// events of the same tick. Work that falls between two ticks is
    /// reported at the later one.
    ///
    /// ```swift
    /// let scheduler = DispatchQueue.test
    /// let out = scheduler.marbles("a-b--c---|", tick: .seconds(1)) {
    ///     $0.debounce(for: .seconds(2), scheduler: scheduler)
    /// }
    /// // out == "----b--c-|"
    /// ```
    public func marbles<P: Publisher>(
        _ input: String,
        tick: SchedulerTimeType.Stride,
        ticks: Int? = nil,
        _ makePublisher: (PassthroughSubject<String, MarbleError>) -> P
    ) -> String where P.Failure == MarbleError {
        let plan = MarbleDiagram.parse(input)
        let total = ticks ?? plan.count + 64
        let subject = PassthroughSubject<String, MarbleError>()
        let start = now
        var instant = start
        for (index, events) in plan.enumerated() {
            if index > 0 { instant = instant.advanced(by: tick) }
            guard !events.isEmpty else { continue }
            schedule(after: instant) {
                for event in events {
                    switch event {
                    case .value(let value): subject.send(value)
                    case .finished: subject.send(completion: .finished)
                    case .failed: subject.send(completion: .failure(MarbleError()))
                    }
                }
            }
        }
        let recorder = MarbleRecorder<P.Output>()
        makePublisher(subject).subscribe(recorder)
        instant = start
        for index in 0..<total {
            if index > 0 { instant = instant.advanced(by: tick) }
            recorder.currentTick = index
            advance(to: instant)
            if recorder.isComplete { break }
        }
        recorder.cancel()
        return recorder.render(minimumTicks: ticks ?? plan.count)
    }
}

/// Parses marble input strings.
internal enum MarbleDiagram {
    enum Event {
        case value(String)
        case finished
        case failed
    }

    static func parse(_ input: String) -> [[Event]] {
        var ticks: [[Event]] = []
        var group: [Event]?
        for character in input {
            let event: Event?
            switch character {
            case "(":
                precondition(group == nil, "marbles: nested groups in \"\(input)\"")
                group = []
                continue
            case ")":
                guard let events = group else { preconditionFailure("marbles: unbalanced ) in \"\(input)\"") }
                ticks.append(events)
                group = nil
                continue
            case "-": event = nil
            case "|": event = .finished
            case "#": event = .failed
            default: event = .value(String(character))
            }
            if group != nil {
                if let event { group?.append(event) }
            } else {
                ticks.append(event.map { [$0] } ?? [])
            }
        }
        precondition(group == nil, "marbles: unbalanced ( in \"\(input)\"")
        return ticks
    }
}

/// Records what reaches it, tagged with the tick the runner is at.
internal final class MarbleRecorder<Input>: Subscriber, Cancellable, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    typealias Failure = MarbleError

    private struct State {
        var tick = 0
        var events: [(tick: Int, token: String)] = []
        var complete = false
        var subscription: (any Subscription)?
    }

    private let state = Mutex(UncheckedBox(State()))

    var currentTick: Int {
        get { state.withLock { $0.value.tick } }
        set { state.withLock { $0.value.tick = newValue } }
    }

    var isComplete: Bool { state.withLock { $0.value.complete } }

    func receive(subscription: any Subscription) {
        state.withLock { $0.value.subscription = subscription }
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let token = String(describing: input)
        state.withLock { $0.value.events.append(($0.value.tick, token)) }
        return .none
    }

    func receive(completion: Subscribers.Completion<MarbleError>) {
        state.withLock { s in
            s.value.events.append((s.value.tick, completion == .finished ? "|" : "#"))
            s.value.complete = true
            s.value.subscription = nil
        }
    }

    func cancel() {
        let subscription = state.withLock { s -> UncheckedBox<(any Subscription)?> in
            let taken = s.value.subscription
            s.value.subscription = nil
            return UncheckedBox(taken)
        }
        subscription.value?.cancel()
    }

    /// Renders ticks up to the completion, or else up to the later of
    /// `minimumTicks - 1` and the last event.
    func render(minimumTicks: Int) -> String {
        let (events, complete) = state.withLock { s in (s.value.events, s.value.complete) }
        let last = complete ? (events.last?.tick ?? 0) : Swift.max(minimumTicks - 1, events.last?.tick ?? -1)
        var output = ""
        for tick in 0...Swift.max(last, 0) where tick <= last {
            let tokens = events.filter { $0.tick == tick }.map(\.token)
            switch tokens.count {
            case 0: output += "-"
            case 1: output += tokens[0]
            default: output += "(" + tokens.joined() + ")"
            }
        }
        return output
    }
}
