import Testing
import UVCombineCore
import UVCombineTesting

/// Issue 16 §3, §4, §6 for the aggregating operators (first, last, collect,
/// count, contains, allSatisfy, reduce, min/max and their `try` forms,
/// replaceEmpty, ignoreOutput, collect(n)): what Combine releases, how it
/// handles misbehaving upstreams and downstreams, and how its subscriptions
/// describe themselves.
@Suite("Aggregating operators behave as Combine")
struct AggregatingCompatibilityTests {
    typealias Checks = AggregatingChecks

    // MARK: §3 Lifecycle

    @Test func reducersReleaseDownstreamAndUpstreamOnCancelAndCompletion() {
        Checks.releases { $0.first() }
        Checks.releases { $0.first { $0 > 5 } }
        Checks.releases { $0.tryFirst { $0 > 5 } }
        Checks.releases { $0.last() }
        Checks.releases { $0.last { $0 > 5 } }
        Checks.releases { $0.tryLast { $0 > 5 } }
        Checks.releases { $0.collect() }
        Checks.releases { $0.count() }
        Checks.releases { $0.contains(9) }
        Checks.releases { $0.contains(1) }
        Checks.releases { $0.contains { $0 > 5 } }
        Checks.releases { $0.tryContains { $0 > 5 } }
        Checks.releases { $0.allSatisfy { $0 > 0 } }
        Checks.releases { $0.tryAllSatisfy { $0 > 0 } }
        Checks.releases { $0.reduce(0, +) }
        Checks.releases { $0.tryReduce(0, +) }
        Checks.releases { $0.min() }
        Checks.releases { $0.max() }
        Checks.releases { $0.min(by: <) }
        Checks.releases { $0.tryMin(by: <) }
        Checks.releases { $0.tryMax(by: <) }
    }

    @Test func replaceEmptyAndCollectByCountRelease() {
        Checks.releases { $0.replaceEmpty(with: 0) }
        Checks.releases { $0.collect(2) }
        Checks.releases { $0.collect(1) }
    }

    @Test func aThrowingReducerReleasesWhenItsClosureThrows() {
        let upstream = AggManualUpstream<Int, TestError>()
        weak var weakDownstream: AggHoldingSubscriber<Int, any Error>?
        weak var weakSubscription: AggRecordingSubscription?
        do {
            let downstream = AggHoldingSubscriber<Int, any Error>(initialDemand: .max(1))
            weakDownstream = downstream
            upstream.tryReduce(0) { _, _ in throw TestError.other }.subscribe(downstream)
            let subscription = AggRecordingSubscription()
            weakSubscription = subscription
            upstream.send(subscription: subscription)
            upstream.send(1)
            #expect(subscription.events == [.requested(.unlimited), .cancelled])
            #expect(downstream.history == ["subscription(TryReduce)", "failure(other)"])
        }
        #expect(weakDownstream == nil)
        #expect(weakSubscription == nil)
    }

    @Test func aResultWaitingForDemandKeepsTheDownstreamUntilDelivered() {
        let upstream = AggManualUpstream<Int, TestError>()
        weak var weakDownstream: AggHoldingSubscriber<Int, TestError>?
        var subscription: (any Subscription)?
        do {
            let downstream = AggHoldingSubscriber<Int, TestError>()
            weakDownstream = downstream
            upstream.count().subscribe(downstream)
            upstream.send(subscription: AggRecordingSubscription())
            upstream.send(1)
            upstream.send(completion: .finished)
            subscription = downstream.subscription
        }
        // Nothing requested yet: the count waits, and so does its receiver.
        #expect(weakDownstream != nil)
        #expect(weakDownstream?.history == ["subscription(Count)"])
        subscription?.request(.max(1))
        #expect(weakDownstream == nil)
    }

    @Test func ignoreOutputKeepsNothingOnceTheUpstreamLetsGo() {
        let upstream = AggManualUpstream<Int, TestError>()
        weak var weakDownstream: AggHoldingSubscriber<Never, TestError>?
        do {
            let downstream = AggHoldingSubscriber<Never, TestError>()
            weakDownstream = downstream
            upstream.ignoreOutput().subscribe(downstream)
            let subscription = AggRecordingSubscription()
            upstream.send(subscription: subscription)
            #expect(subscription.events == [.requested(.unlimited)])
            upstream.send(1)
            upstream.send(completion: .finished)
            #expect(downstream.history == ["subscription(AggRecordingSubscription)", "finished"])
        }
        upstream.drop()
        #expect(weakDownstream == nil)
    }

    // MARK: §4 Cancel before the subscription

    @Test func aggregatingOperatorsCancelledBeforeTheirSubscriptionStillRequest() {
        let unlimited: [AggUpstreamEvent] = [.requested(.unlimited)]
        #expect(Checks.cancelBeforeSubscription { $0.first() } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.first { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryFirst { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.last() } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.last { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryLast { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.collect() } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.count() } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.contains(1) } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.contains { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryContains { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.allSatisfy { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryAllSatisfy { $0 > 5 } } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.reduce(0, +) } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryReduce(0, +) } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.min() } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.tryMax(by: <) } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.replaceEmpty(with: 0) } == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest) }
            == unlimited)
        #expect(Checks.cancelBeforeSubscription { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest) }
            == [.requested(.max(2))])
    }

    @Test func collectByCountCancelledBeforeItsSubscriptionNeitherRequestsNorCancels() {
        #expect(Checks.cancelBeforeSubscription { $0.collect(3) } == [])
        // The subscription is still accepted and passed on.
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<[Int], TestError>()
        upstream.collect(2).subscribe(downstream)
        upstream.inner?.cancel()
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        #expect(downstream.history == ["subscription(CollectByCount)"])
        downstream.subscription?.request(.max(2))
        #expect(subscription.events == [.requested(.max(4))])
    }

    @Test func aReducerCancelledFromInsideReceiveSubscriptionStillRequestsAsCombine() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        downstream.onSubscription = { $0.cancel() }
        upstream.count().subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.events == [.cancelled, .requested(.unlimited)])
        upstream.send(1)
        upstream.send(completion: .finished)
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(Count)"])
    }

    @Test func reducersHandTheSubscriptionOnBeforeRequesting() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        let subscription = AggRecordingSubscription()
        var seenAtSubscription: [AggUpstreamEvent]?
        downstream.onSubscription = { _ in seenAtSubscription = subscription.events }
        upstream.reduce(0, +).subscribe(downstream)
        upstream.send(subscription: subscription)
        #expect(seenAtSubscription == [])
        #expect(subscription.events == [.requested(.unlimited)])
    }

    // MARK: §4 Events before the subscription, after completion, after cancel

    @Test func reducersIgnoreEventsBeforeTheSubscription() {
        func expectIgnored<P: Publisher>(_ make: (AggManualUpstream<Int, TestError>) -> P,
                                         sourceLocation: SourceLocation = #_sourceLocation) {
            let (demand, history) = Checks.eventsBeforeSubscription(make)
            #expect(demand == .none, sourceLocation: sourceLocation)
            #expect(history == [], sourceLocation: sourceLocation)
        }
        expectIgnored { $0.first() }
        expectIgnored { $0.tryFirst { _ in true } }
        expectIgnored { $0.last() }
        expectIgnored { $0.collect() }
        expectIgnored { $0.count() }
        expectIgnored { $0.contains(7) }
        expectIgnored { $0.allSatisfy { _ in false } }
        expectIgnored { $0.reduce(0, +) }
        expectIgnored { $0.tryReduce(0, +) }
        expectIgnored { $0.max() }
        expectIgnored { $0.tryMin(by: <) }
        expectIgnored { $0.replaceEmpty(with: 1) }
        expectIgnored { $0.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest) }
        expectIgnored { $0.buffer(size: 3, prefetch: .keepFull, whenFull: .customError { .other }) }
    }

    @Test func collectByCountAndIgnoreOutputForwardEventsBeforeTheSubscription() {
        let collected = Checks.eventsBeforeSubscription { $0.collect(2) }
        #expect(collected.demand == .none)
        #expect(collected.history == ["value([7])", "finished"])
        let ignored = Checks.eventsBeforeSubscription { $0.ignoreOutput() }
        #expect(ignored.demand == .none)
        #expect(ignored.history == ["finished"])
        // A subscription after that completion is cancelled.
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<[Int], TestError>()
        upstream.collect(2).subscribe(downstream)
        upstream.send(completion: .finished)
        let late = AggRecordingSubscription()
        upstream.send(subscription: late)
        #expect(late.events == [.cancelled])
        #expect(downstream.history == ["finished"])
    }

    @Test func reducersIgnoreEventsAfterTheEndAndAfterCancel() {
        // Upstream failure: delivered at once, without demand; later events ignored.
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        upstream.count().subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        upstream.send(completion: .failure(.boom))
        upstream.send(completion: .failure(.other))
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(Count)", "failure(boom)"])
        #expect(subscription.events == [.requested(.unlimited)])

        // After cancel: requests and a second cancel are not forwarded.
        let upstream2 = AggManualUpstream<Int, TestError>()
        let downstream2 = AggHoldingSubscriber<Int, TestError>()
        upstream2.count().subscribe(downstream2)
        let subscription2 = AggRecordingSubscription()
        upstream2.send(subscription: subscription2)
        downstream2.subscription?.cancel()
        downstream2.subscription?.request(.unlimited)
        downstream2.subscription?.cancel()
        #expect(upstream2.send(1) == .none)
        upstream2.send(completion: .finished)
        #expect(subscription2.events == [.requested(.unlimited), .cancelled])
        #expect(downstream2.history == ["subscription(Count)"])
    }

    @Test func anEarlyAnswerWaitsForDemandAndTheSecondSubscriptionIsStillCancelled() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Bool, TestError>()
        upstream.contains(3).subscribe(downstream)
        let first = AggRecordingSubscription()
        upstream.send(subscription: first)
        upstream.send(3)
        #expect(first.events == [.requested(.unlimited), .cancelled])
        #expect(downstream.history == ["subscription(Contains)"])
        let second = AggRecordingSubscription()
        upstream.send(subscription: second)
        #expect(second.events == [.cancelled])
        downstream.subscription?.request(.max(1))
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(Contains)", "value(true)", "finished"])
    }

    @Test func requestBeforeSubscriptionAndSecondSubscription() {
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.first() }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.last { $0 > 1 } }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.collect() }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.count() }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.tryContains { $0 > 1 } }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.allSatisfy { $0 > 1 } }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.tryReduce(0, +) }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.min() }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.replaceEmpty(with: 0) }
        Checks.requestBeforeSubscriptionAndSecondSubscription { $0.collect(2) }
        Checks.requestBeforeSubscriptionAndSecondSubscription {
            $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest)
        }
        Checks.requestBeforeSubscriptionAndSecondSubscription {
            $0.buffer(size: 2, prefetch: .byRequest, whenFull: .customError { .other })
        }
    }

    // MARK: collect(n)

    @Test func collectByCountScalesDemandAndForwardsTheUpstreamsEnd() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<[Int], TestError>(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.collect(4).subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.events == [.requested(.max(8))])
        for i in 1...3 { #expect(upstream.send(i) == .none) }
        #expect(upstream.send(4) == .max(12))
        upstream.send(5)
        upstream.send(completion: .finished)
        #expect(downstream.history == ["subscription(CollectByCount)", "value([1, 2, 3, 4])", "value([5])",
                                       "finished"])
        // After the end: nothing more reaches the downstream.
        for i in 6...9 { #expect(upstream.send(i) == .none) }
        upstream.send(completion: .finished)
        #expect(downstream.history.count == 4)
    }

    @Test func collectByCountDropsThePartialArrayOnFailure() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<[Int], TestError>(initialDemand: .unlimited)
        upstream.collect(3).subscribe(downstream)
        upstream.send(subscription: AggRecordingSubscription())
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(downstream.history == ["subscription(CollectByCount)", "failure(boom)"])
    }

    // MARK: replaceEmpty demand

    @Test func replaceEmptyAsksForEverythingAndForwardsRequests() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>(initialDemand: .max(42), demandPerValue: .max(4))
        upstream.replaceEmpty(with: 9).subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.events == [.requested(.max(42)), .requested(.unlimited)])
        #expect(upstream.send(1) == .max(4))
        downstream.subscription?.request(.max(5))
        #expect(subscription.events == [.requested(.max(42)), .requested(.unlimited), .requested(.max(5))])
        downstream.subscription?.cancel()
        downstream.subscription?.cancel()
        downstream.subscription?.request(.max(1))
        #expect(subscription.events.filter { $0 == .cancelled }.count == 1)
        #expect(upstream.send(2) == .none)
        #expect(downstream.history == ["subscription(ReplaceEmpty)", "value(1)"])
    }

    @Test func replaceEmptyWaitsForDemandBeforeReplacing() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 22).subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        upstream.send(completion: .finished)
        #expect(downstream.history == ["subscription(ReplaceEmpty)"])
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(ReplaceEmpty)", "value(22)", "finished"])
        #expect(subscription.events == [.requested(.unlimited)])
    }

    @Test func replaceEmptyFailsAtOnceWithoutDemand() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 22).subscribe(downstream)
        upstream.send(subscription: AggRecordingSubscription())
        upstream.send(completion: .failure(.boom))
        downstream.subscription?.request(.unlimited)
        #expect(upstream.send(1) == .none)
        #expect(downstream.history == ["subscription(ReplaceEmpty)", "failure(boom)"])
    }

    // MARK: §4 Traps where Combine traps

    @Test func zeroDemandTrapsInReducersCollectByCountAndReplaceEmpty() async {
        await #expect(processExitsWith: .failure) {
            let upstream = AggManualUpstream<Int, TestError>()
            let downstream = AggHoldingSubscriber<Int, TestError>()
            upstream.count().subscribe(downstream)
            upstream.send(subscription: AggRecordingSubscription())
            downstream.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = AggManualUpstream<Int, TestError>()
            let downstream = AggHoldingSubscriber<[Int], TestError>()
            upstream.collect(2).subscribe(downstream)
            upstream.send(subscription: AggRecordingSubscription())
            downstream.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = AggManualUpstream<Int, TestError>()
            let downstream = AggHoldingSubscriber<Int, TestError>()
            upstream.replaceEmpty(with: 1).subscribe(downstream)
            upstream.send(subscription: AggRecordingSubscription())
            downstream.subscription?.request(.none)
        }
    }

    // MARK: §6 Debugging output

    @Test func reducerSubscriptionsDescribeThemselvesAsCombine() {
        let reduceLike = ["downstream", "result", "initial", "status"]
        Checks.reflection("First", labels: reduceLike) { $0.first() }
        Checks.reflection("TryFirst", labels: reduceLike) { $0.first { $0 > 1 } }
        Checks.reflection("TryFirstWhere", labels: reduceLike) { $0.tryFirst { $0 > 1 } }
        Checks.reflection("Last", labels: reduceLike) { $0.last() }
        Checks.reflection("LastWhere", labels: reduceLike) { $0.last { $0 > 1 } }
        Checks.reflection("TryLastWhere", labels: reduceLike) { $0.tryLast { $0 > 1 } }
        Checks.reflection("Collect", labels: ["count"]) { $0.collect() }
        Checks.reflection("Count", labels: reduceLike) { $0.count() }
        Checks.reflection("Contains", labels: reduceLike) { $0.contains(1) }
        Checks.reflection("ContainsWhere", labels: reduceLike) { $0.contains { $0 > 1 } }
        Checks.reflection("TryContainsWhere", labels: reduceLike) { $0.tryContains { $0 > 1 } }
        Checks.reflection("AllSatisfy", labels: reduceLike) { $0.allSatisfy { $0 > 1 } }
        Checks.reflection("TryAllSatisfy", labels: reduceLike) { $0.tryAllSatisfy { $0 > 1 } }
        Checks.reflection("Reduce", labels: reduceLike) { $0.reduce(0, +) }
        Checks.reflection("TryReduce", labels: reduceLike) { $0.tryReduce(0, +) }
        Checks.reflection("Comparison", labels: reduceLike) { $0.min() }
        Checks.reflection("Comparison", labels: reduceLike) { $0.max(by: <) }
        Checks.reflection("TryComparison", labels: reduceLike) { $0.tryMin(by: <) }
    }

    @Test func otherSubscriptionsDescribeThemselvesAsCombine() {
        Checks.reflection("ReplaceEmpty", labels: []) { $0.replaceEmpty(with: 0) }
        Checks.reflection("CollectByCount", labels: ["downstream", "upstreamSubscription", "buffer", "count"]) {
            $0.collect(53)
        }
        Checks.reflection("Buffer", labels: ["values", "state", "downstreamDemand", "terminal"]) {
            $0.buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest)
        }
        // IgnoreOutput passes the upstream's subscription on: only its
        // subscriber describes itself.
        let upstream = AggManualUpstream<Int, TestError>()
        upstream.ignoreOutput().subscribe(AggHoldingSubscriber<Never, TestError>())
        let raw: Any = upstream.raw!
        #expect((raw as? CustomStringConvertible)?.description == "IgnoreOutput")
        #expect((raw as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "IgnoreOutput")
        #expect((raw as? CustomReflectable)?.customMirror.children.isEmpty == true)
    }

    @Test func mirrorValuesAsCombine() {
        let upstream = AggManualUpstream<Int, TestError>()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        upstream.reduce(10, +).subscribe(downstream)
        upstream.send(subscription: AggRecordingSubscription())
        upstream.send(5)
        #expect(Checks.child("result", of: upstream.raw) == "Optional(15)")
        #expect(Checks.child("initial", of: upstream.raw) == "Optional(10)")
        #expect(Checks.child("downstream", of: upstream.raw)?.contains("AggHoldingSubscriber") == true)
        #expect(Checks.child("status", of: upstream.raw)?.hasPrefix("subscribed") == true)

        let collectUpstream = AggManualUpstream<Int, TestError>()
        collectUpstream.collect().subscribe(AggHoldingSubscriber<[Int], TestError>())
        collectUpstream.send(subscription: AggRecordingSubscription())
        collectUpstream.send(1)
        collectUpstream.send(2)
        #expect(Checks.child("count", of: collectUpstream.raw) == "2")

        let byCount = AggManualUpstream<Int, TestError>()
        byCount.collect(53).subscribe(AggHoldingSubscriber<[Int], TestError>())
        #expect(Checks.child("buffer", of: byCount.raw) == "[]")
        #expect(Checks.child("count", of: byCount.raw) == "53")
        byCount.send(4)
        #expect(Checks.child("buffer", of: byCount.raw) == "[4]")

        let buffered = AggManualUpstream<Int, TestError>()
        buffered.buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest)
            .subscribe(AggHoldingSubscriber<Int, TestError>())
        #expect(Checks.child("values", of: buffered.raw) == "[]")
        #expect(Checks.child("downstreamDemand", of: buffered.raw) == "max(0)")
        #expect(Checks.child("terminal", of: buffered.raw) == "nil")
        buffered.send(subscription: AggRecordingSubscription())
        buffered.send(3)
        #expect(Checks.child("values", of: buffered.raw) == "[3]")
    }
}
