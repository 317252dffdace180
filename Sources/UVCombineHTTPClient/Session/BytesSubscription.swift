import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore

/// One subscriber's streaming task.
///
/// Each part claims one unit of demand under the gate and goes out after
/// the claim; without demand the part stays with the engine, which stops
/// reading until `request` resumes it.
@usableFromInline
package final class BytesSubscription<Downstream: Subscriber, Part: HTTPStreamedPartConvertible>: SessionTask,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Part, Downstream.Failure == UVURLError
{
    /// Guarded by the gate; released when the task ends.
    // Unchecked exclusivity: as DataTaskSubscription's, under the gate.
    @exclusivity(unchecked) @usableFromInline package var downstream: Downstream?

    @inlinable
    package init(session: UVURLSession, task: HTTPTaskRequest, downstream: Downstream) {
        self.downstream = downstream
        super.init(
            session: session,
            spec: task,
            isStreaming: true,
            deliverOutcome: { task, outcome in
                unsafeDowncast(task, to: BytesSubscription<Downstream, Part>.self).deliver(outcome)
            },
            offerPart: { task, part in
                unsafeDowncast(task, to: BytesSubscription<Downstream, Part>.self).offer(part)
            }
        )
    }

    /// Delivers `part` if the subscriber has demand. Loop thread.
    @inlinable
    package func offer(_ part: StreamedPart) -> PartOffer {
        var result = PartOffer.cancelled
        withGate {
            result = claimPart()
            guard case .delivered = result, let downstream else { return }
            // The one copy of a body part: out of the engine's buffer.
            addDemand(downstream.receive(Part.copying(part)))
        }
        return result
    }

    /// Sends the completion unless cancelled. Loop thread, under the gate.
    @inlinable
    package func deliver(_ outcome: TaskOutcome) {
        guard claimCompletion(), let downstream else { return }
        self.downstream = nil
        switch outcome {
        case .value(let body, _):
            // Not a streaming outcome; freed all the same.
            body.free()
            downstream.receive(completion: .finished)
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }

    /// Sends nothing more downstream; a started request is cancelled on
    /// the loop (closing its connection). Waits for a delivery in flight
    /// on another thread.
    @usableFromInline
    package func cancel() {
        var taken: Downstream?
        cancelSubscription {
            taken = downstream
            downstream = nil
        }
        _ = taken
    }

    // `request(_:)`, `description`, `customMirror` and
    // `playgroundDescription` are SessionTask's (shared with
    // DataTaskSubscription).
}
