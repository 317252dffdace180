// What the exchange machine remembers, as the type's documentation
// (HTTPExchangeStateMachine.swift) describes it: the task's phase, the
// current response's state and the streamed body's.

extension HTTPExchangeStateMachine {
    /// The task's phase.
    ///
    /// ```swift
    /// if exchange.phase == .exchanging { /* on a connection */ }
    /// ```
    public enum Phase: Equatable, Sendable, CustomStringConvertible {
        /// Made, not started.
        case idle
        /// In the pool, waiting for a connection (or a stream).
        case waitingForConnection
        /// Writing the request, reading the response.
        case exchanging
        /// Delivered, failed or cancelled.
        case finished

        /// The case's name.
        public var description: String {
            switch self {
            case .idle: "idle"
            case .waitingForConnection: "waiting for a connection"
            case .exchanging: "exchanging"
            case .finished: "finished"
            }
        }
    }

    /// The current response's state.
    ///
    /// ```swift
    /// if exchange.response == .discarding { /* drop the body: a redirect */ }
    /// ```
    public enum Response: Equatable, Sendable, CustomStringConvertible {
        /// No head yet.
        case awaitingHead
        /// The head was delivered (or kept, for a data task); so is the body.
        case delivering
        /// A redirect being followed: its body is read and dropped.
        case discarding

        /// The case's name.
        public var description: String {
            switch self {
            case .awaitingHead: "awaiting its head"
            case .delivering: "delivering"
            case .discarding: "discarding (redirect)"
            }
        }
    }

    /// A streamed request body's state, this exchange.
    ///
    /// ```swift
    /// if exchange.upload == .complete { /* the connection may be reused */ }
    /// ```
    public enum Upload: Equatable, Sendable, CustomStringConvertible {
        /// No streamed body, or not started, or ended with its exchange.
        case notStarted
        /// Chunks are being asked for and written.
        case streaming
        /// The body's publisher finished and every byte (and the last
        /// chunk) was handed to the connection.
        case complete

        /// The case's name.
        public var description: String {
            switch self {
            case .notStarted: "not started"
            case .streaming: "streaming"
            case .complete: "complete"
            }
        }
    }

    /// What the redirect policy said of a response head.
    ///
    /// ```swift
    /// let decision: HTTPExchangeStateMachine.HeadDecision = .follow(keepsBody: step.keepsBody)
    /// ```
    public enum HeadDecision: Equatable, Sendable {
        /// Not a redirect (or not followed): the response is the task's.
        case deliver
        /// A redirect to follow; `keepsBody` is false when the next
        /// request drops the body (303, or a POST turned GET).
        case follow(keepsBody: Bool)
    }
}
