import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineFoundation

// Issue 16 §1: nothing in Combine's namespaces (or in extensions of its
// protocols) that Combine does not have. A library written on Combine
// declares such names for itself — a scheduler-generic timer as
// `Publishers.Timer` made by `Scheduler.timerPublisher(every:)`, a
// type-erased `AnyScheduler` made by `eraseToAnyScheduler()`, an
// `AsyncSequence.publisher` — and must compile unchanged against UVCombine.
// The declarations below are that library's, written the way it writes
// them (internal, in its own module); this file compiling is the test: a
// UVCombine extra under one of these names makes the uses below ambiguous
// ("ambiguous type name 'Timer' in 'Publishers'"). UVCombine's own versions
// carry project names: `UVSchedulerTimer`, `UVAnyScheduler`,
// `eraseToUVAnyScheduler()`, `AsyncSequence.uvPublisher`.

extension Publishers {
    /// A third party's own timer publisher, in Combine's namespace.
    struct Timer<Context: Scheduler>: Publisher {
        typealias Output = Context.SchedulerTimeType
        typealias Failure = Never

        let interval: Context.SchedulerTimeType.Stride
        let scheduler: Context

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            Just(scheduler.now).receive(subscriber: subscriber)
        }
    }
}

extension Scheduler {
    /// A third party's own factory for its timer.
    func timerPublisher(every interval: SchedulerTimeType.Stride) -> Publishers.Timer<Self> {
        Publishers.Timer(interval: interval, scheduler: self)
    }

    /// A third party's own type eraser.
    func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType> {
        AnyScheduler(now: { self.now })
    }
}

/// A third party's own erased scheduler (top-level types of the library's
/// module shadow imported ones; the extension method above is what would
/// collide).
struct AnyScheduler<Time> {
    let now: () -> Time
}

extension AsyncSequence {
    /// A third party's own bridge from async sequences.
    var publisher: Empty<Element, Never> { Empty() }
}

extension Subscribers {
    /// A third party's own subscriber, in Combine's namespace: only
    /// Combine's names may be taken there.
    struct Collector {}
}

@Suite("Names a Combine library declares for itself compile against UVCombine")
struct ThirdPartyNamesTests {
    @Test func aLibrarysOwnPublishersTimerAndTimerPublisherAreUnambiguous() {
        let timer: Publishers.Timer<ImmediateScheduler> = ImmediateScheduler.shared.timerPublisher(every: .seconds(1))
        var ticks: [ImmediateScheduler.SchedulerTimeType] = []
        let c = timer.sink { ticks.append($0) }
        #expect(ticks.count == 1)
        c.cancel()
    }

    @Test func aLibrarysOwnEraseToAnySchedulerIsUnambiguous() {
        let erased: AnyScheduler<DispatchQueue.SchedulerTimeType> = DispatchQueue.main.eraseToAnyScheduler()
        _ = erased.now()
        // UVCombine's eraser lives under its own name beside it.
        let ours: UVAnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToUVAnyScheduler()
        #expect(ours.minimumTolerance == DispatchQueue.main.minimumTolerance)
    }

    @Test func aLibrarysOwnAsyncSequencePublisherIsUnambiguous() {
        let stream = AsyncStream<Int> { $0.finish() }
        let theirs: Empty<Int, Never> = stream.publisher
        #expect(theirs.completeImmediately)
        let ours: UVAsyncSequencePublisher<AsyncStream<Int>> = stream.uvPublisher
        _ = ours
        _ = Subscribers.Collector()
    }

    @Test func theSchedulerGenericTimerKeepsAProjectName() {
        let timer: UVSchedulerTimer<ImmediateScheduler> = UVSchedulerTimer.publish(every: .seconds(1),
                                                                                  on: ImmediateScheduler.shared)
        #expect(timer.interval == .seconds(1))
    }
}
