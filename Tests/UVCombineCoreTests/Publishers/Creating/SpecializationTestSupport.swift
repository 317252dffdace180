import UVCombineCore
import UVCombineTesting

/// What `publisher` sends to a subscriber that requests everything, without
/// the subscription line: e.g. `["value(2)", "finished"]`.
func emitted<P: Publisher>(_ publisher: P) -> [String] {
    let tracker = TrackingSubscriber<P.Output, P.Failure>()
    publisher.subscribe(tracker)
    return tracker.history.filter { !$0.hasPrefix("subscription(") }
}

/// A throwing closure's error in the specialisation tests.
struct Oops: Error, Equatable, CustomStringConvertible {
    var description: String { "oops" }
}
