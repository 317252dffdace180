import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore

/// One subscriber's data task, delivering its body as `Body` (`Data` for
/// the public `DataTaskPublisher`, ``HTTPBody`` for the C API).
///
/// The first `request` starts the task on the loop; the engine hands the
/// outcome to `deliver`, which claims completion under the gate, so a
/// cancel and a delivery cannot both win.
@usableFromInline
package final class DataTaskSubscription<Downstream: Subscriber, Body: HTTPResponseBodyConvertible>: SessionTask,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == (data: Body, response: HTTPResponse), Downstream.Failure == UVURLError
{
    /// Guarded by the gate; released when the task ends, so no cycle
    /// outlives it. Unchecked exclusivity: the gate already serialises
    /// every access, and the run-time check cost about 150 instructions
    /// per request (callgrind, issue 17).
    @exclusivity(unchecked) @usableFromInline package var downstream: Downstream?

    @inlinable
    package init(session: UVURLSession, task: HTTPTaskRequest, downstream: Downstream) {
        self.downstream = downstream
        super.init(
            session: session,
            spec: task,
            isStreaming: false,
            deliverOutcome: { task, outcome in
                unsafeDowncast(task, to: DataTaskSubscription<Downstream, Body>.self).deliver(outcome)
            },
            offerPart: { _, _ in .cancelled }
        )
    }

    /// Sends the outcome unless cancelled. Loop thread, under the gate.
    @inlinable
    package func deliver(_ outcome: TaskOutcome) {
        guard claimCompletion(), let downstream else {
            // Cancelled meanwhile: the body is nobody's.
            if case .value(let body, _) = outcome { body.free() }
            return
        }
        self.downstream = nil
        switch outcome {
        case .value(let body, let response):
            _ = downstream.receive((data: Body.taking(body), response: response))
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        case .finished:
            downstream.receive(completion: .finished)
        }
    }

    /// Sends nothing more downstream; a started request is cancelled on
    /// the loop. Waits for a delivery in flight on another thread.
    @usableFromInline
    package func cancel() {
        var taken: Downstream?
        cancelSubscription {
            taken = downstream
            downstream = nil
        }
        // The subscriber is released here, outside the gate.
        _ = taken
    }

    // `request(_:)`, `description`, `customMirror` and
    // `playgroundDescription` are SessionTask's (shared with
    // BytesSubscription).
}
