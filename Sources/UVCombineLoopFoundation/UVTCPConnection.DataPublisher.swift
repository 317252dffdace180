import FoundationEssentials
import UVCombineCore
import UVCombineLoop

extension UVTCPConnection {
    /// A publisher of the bytes this connection receives, as `Data` chunks,
    /// whose demand drives the socket's reading.
    ///
    /// ```swift
    /// connection.dataPublisher()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
    ///     .store(in: &cancellables)
    /// ```
    public func dataPublisher() -> DataPublisher {
        DataPublisher(connection: self)
    }

    /// Publishes the bytes a ``/UVCombineLoop/UVTCPConnection`` receives as `Data` chunks,
    /// then finishes at the peer's end of file or fails with the error that
    /// broke the connection.
    ///
    /// Demand is the connection's read demand: each chunk is one read and
    /// consumes one unit; at zero demand the socket is not read, so the
    /// kernel throttles the peer (backpressure). A chunk is at most the
    /// connection's read buffer size.
    ///
    /// Cost: each chunk is copied into a new `Data`, one allocation per read
    /// for chunks over 14 bytes. Protocol code that parses bytes in place
    /// should set a ``/UVCombineLoop/UVTCPConnectionHandler`` instead, which reads without
    /// allocating.
    ///
    /// One reader at a time: the subscription becomes the connection's
    /// ``/UVCombineLoop/UVTCPConnection/handler``. A subscriber arriving while the
    /// connection has a handler fails with
    /// ``/UVCombineLoop/UVTCPError/Kind/alreadyReading``; after the stream ended it
    /// finishes at once; on a closed connection it fails with
    /// ``/UVCombineLoop/UVTCPError/Kind/closed``. Cancelling stops reading and detaches the
    /// subscription; the connection stays open (close it yourself). Closing
    /// the connection (or the loop) while subscribed fails the subscription
    /// with ``/UVCombineLoop/UVTCPError/Kind/closed``.
    ///
    /// Threading: subscribe, request and cancel from any thread; values and
    /// the completion arrive on the loop thread. Once `cancel()` returned, no
    /// value reaches the subscriber (a cancel from another thread waits for
    /// a chunk being delivered).
    ///
    /// ```swift
    /// let subscriber = TrackingSubscriber<Data, UVTCPError>(initialDemand: .max(1))
    /// connection.dataPublisher().subscribe(subscriber) // reads one chunk
    /// ```
    public struct DataPublisher: Publisher {
        /// Received chunks.
        public typealias Output = Data
        /// The error that broke the connection, or why it cannot be read.
        public typealias Failure = UVTCPError

        /// The connection whose bytes are published.
        public let connection: UVTCPConnection

        /// A publisher of `connection`'s received bytes.
        public init(connection: UVTCPConnection) {
            self.connection = connection
        }

        /// Attaches `subscriber` as the connection's reader (on the loop
        /// thread).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == UVTCPError {
            connection.subscribeReader(subscriber)
        }
    }
}
