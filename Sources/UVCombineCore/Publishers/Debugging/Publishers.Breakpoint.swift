#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Publisher {
    /// Raises a debugger signal when a provided closure needs to stop the
    /// process in the debugger.
    ///
    /// Each closure is optional; when one returns `true`, the process
    /// raises `SIGTRAP` before the event is forwarded (a debugger stops
    /// there; without one the process ends). Stateless: the subscription is
    /// passed through.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher
    ///     .breakpoint(receiveOutput: { $0 == 42 })
    ///     .sink { print($0) }
    /// // Prints: "1 2 3"
    /// ```
    @inlinable
    public func breakpoint(
        receiveSubscription: ((any Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(upstream: self, receiveSubscription: receiveSubscription,
                              receiveOutput: receiveOutput, receiveCompletion: receiveCompletion)
    }

    /// Raises a debugger signal upon receiving a failure.
    ///
    /// ```swift
    /// let c = [1].publisher.breakpointOnError().sink { print($0) }
    /// // Prints: "1"
    /// ```
    @inlinable
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { completion in
            if case .failure = completion { return true }
            return false
        })
    }
}

extension Publishers {
    /// A publisher that raises a debugger signal when a provided closure
    /// needs to stop the process in the debugger.
    ///
    /// Threading: each closure runs on the thread of the event it examines,
    /// and the signal is raised on that thread.
    ///
    /// ```swift
    /// let watched = Publishers.Breakpoint(upstream: values, receiveOutput: { $0 < 0 })
    /// ```
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives a
        /// subscription, and can raise a debugger signal by returning `true`.
        public let receiveSubscription: ((any Subscription) -> Bool)?

        /// A closure that executes when the publisher receives output from
        /// the upstream publisher, and can raise a debugger signal by
        /// returning `true`.
        public let receiveOutput: ((Upstream.Output) -> Bool)?

        /// A closure that executes when the publisher receives completion,
        /// and can raise a debugger signal by returning `true`.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates a breakpoint publisher with the provided upstream
        /// publisher and breakpoint-raising closures.
        @inlinable
        public init(upstream: Upstream,
                    receiveSubscription: ((any Subscription) -> Bool)? = nil,
                    receiveOutput: ((Upstream.Output) -> Bool)? = nil,
                    receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: BreakpointInner(downstream: subscriber,
                                                         receiveSubscription: receiveSubscription,
                                                         receiveOutput: receiveOutput,
                                                         receiveCompletion: receiveCompletion))
        }
    }
}

/// Asks the closures, raises `SIGTRAP` when one says so, and forwards the
/// event; the subscription goes straight through. Top level for the reason
/// given on `MapInner`.
@usableFromInline
internal struct BreakpointInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let receiveSubscription: ((any Subscription) -> Bool)?
    @usableFromInline let receiveOutput: ((Downstream.Input) -> Bool)?
    @usableFromInline let receiveCompletion: ((Subscribers.Completion<Downstream.Failure>) -> Bool)?
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream,
         receiveSubscription: ((any Subscription) -> Bool)?,
         receiveOutput: ((Downstream.Input) -> Bool)?,
         receiveCompletion: ((Subscribers.Completion<Downstream.Failure>) -> Bool)?) {
        self.downstream = downstream
        self.receiveSubscription = receiveSubscription
        self.receiveOutput = receiveOutput
        self.receiveCompletion = receiveCompletion
    }

    @inlinable
    func receive(subscription: any Subscription) {
        if receiveSubscription?(subscription) == true { stopInDebugger() }
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        if receiveOutput?(input) == true { stopInDebugger() }
        return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        if receiveCompletion?(completion) == true { stopInDebugger() }
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "Breakpoint" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

/// Raises `SIGTRAP`, as Combine's breakpoint does: an attached debugger
/// stops here; without one the process ends with that signal.
@usableFromInline @inline(never)
internal func stopInDebugger() {
    _ = raise(SIGTRAP)
}
