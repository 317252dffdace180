import Synchronization
import UVCombineCore

/// The object behind a `uvc_connection_t *`: what the timer publisher's
/// `connect()` returned, cancelled at most once.
///
/// Threading: any thread; the connection's own `cancel()` is thread-safe.
internal final class ConnectionObject: OpaqueObject, @unchecked Sendable {
    private let connection: any Cancellable
    private let cancelled = Atomic<Bool>(false)

    internal init(connection: any Cancellable) {
        self.connection = connection
    }

    /// `uvc_connection_cancel`: 0 the first time, `UV_EALREADY` after.
    internal func cancel() -> Int32 {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return Status.already }
        connection.cancel()
        return Status.ok
    }
}
