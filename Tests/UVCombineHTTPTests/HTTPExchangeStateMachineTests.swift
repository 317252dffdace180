import FoundationEssentials
import HTTPTypes
import Testing
import UVCombineHTTPCore

typealias Exchange = HTTPExchangeStateMachine

/// `#expect(action == expected)` for an action a mutating call returned
/// (the macro cannot take the mutating call itself).
private func expectAction<Action: Equatable>(
    _ action: Action, _ expected: Action, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(action == expected, sourceLocation: sourceLocation)
}

/// An exchange started and executed: the request is being written.
private func executing(streamedBodyLength: Int? = nil, streamsBody: Bool = false) -> Exchange {
    var exchange = Exchange(streamedBodyLength: streamedBodyLength, streamsBody: streamsBody)
    expectAction(exchange.start(), .issue)
    expectAction(exchange.executed(), .writeRequest(startsBody: streamsBody))
    return exchange
}

/// An exchange whose response head was delivered.
private func delivering() -> Exchange {
    var exchange = executing()
    expectAction(exchange.responseHead(.deliver), .deliver)
    return exchange
}

/// The exchange of one request, event by event, without a socket: each
/// event's action and the state it leaves.
@Suite("HTTPExchangeStateMachine")
struct HTTPExchangeStateMachineTests {
    @Test func aPlainExchangeIssuesWritesDeliversAndReusesItsConnection() {
        var exchange = Exchange(streamedBodyLength: nil, streamsBody: false)
        #expect(exchange.phase == .idle && !exchange.isRunning)
        expectAction(exchange.start(), .issue)
        #expect(exchange.phase == .waitingForConnection && exchange.isRunning)
        expectAction(exchange.executed(), .writeRequest(startsBody: false))
        exchange.requestWritten(unacknowledged: 80)
        #expect(exchange.lastUnacknowledgedOutput == 80)
        expectAction(exchange.responseBytesReceived(), .reportFirstBytes)
        expectAction(exchange.responseBytesReceived(), .none)
        expectAction(exchange.responseHead(.deliver), .deliver)
        #expect(exchange.response == .delivering && !exchange.isDiscardingBody)
        expectAction(exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false), .deliver(reusable: true))
        #expect(exchange.phase == .finished && !exchange.isRunning)
    }

    /// Why a connection is not reused: each reason alone.
    @Test(arguments: [
        (false, false, false, false),
        (true, true, false, false),
        (true, false, true, false),
        (true, false, false, true),
    ])
    func aConnectionIsReusedOnlyWhenNothingIsLeftOnIt(
        keepAlive: Bool, trailing: Bool, pendingWrites: Bool, uploadUnfinished: Bool
    ) {
        var exchange = executing(streamedBodyLength: uploadUnfinished ? 10 : nil, streamsBody: uploadUnfinished)
        expectAction(exchange.responseHead(.deliver), .deliver)
        expectAction(exchange.responseEnded(keepAlive: keepAlive, hasTrailingBytes: trailing, hasPendingWrites: pendingWrites), .deliver(reusable: false))
        #expect(exchange.upload == .notStarted && !exchange.isAwaitingBodyChunk)
    }

    @Test func aCompleteUploadLeavesTheConnectionReusable() {
        var exchange = executing(streamedBodyLength: 3, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 3, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.bodyFinished(), .none)
        #expect(exchange.upload == .complete)
        expectAction(exchange.responseHead(.deliver), .deliver)
        expectAction(exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false), .deliver(reusable: true))
    }

    @Test func aStartAfterACancelOrASecondStartDoesNothing() {
        var cancelled = Exchange(streamedBodyLength: nil, streamsBody: false)
        expectAction(cancelled.cancel(), .none)
        #expect(cancelled.phase == .finished)
        expectAction(cancelled.start(), .none)
        #expect(cancelled.phase == .finished)

        var started = Exchange(streamedBodyLength: nil, streamsBody: false)
        expectAction(started.start(), .issue)
        expectAction(started.start(), .none)
        #expect(started.phase == .waitingForConnection)
    }

    @Test func cancellingARunningTaskLeavesThePoolOnce() {
        var waiting = Exchange(streamedBodyLength: nil, streamsBody: false)
        _ = waiting.start()
        expectAction(waiting.cancel(), .leavePool)
        expectAction(waiting.cancel(), .none)

        var paused = delivering()
        expectAction(paused.partRefused(.body([1, 2]), unparsed: UnsafeRawBufferPointer(start: nil, count: 0)), .pause)
        expectAction(paused.cancel(), .leavePool)
        #expect(paused.heldPart == nil && paused.heldByteCount == 0 && !paused.isPaused)
        expectAction(paused.resume().isNone, true)
    }

    @Test func aFinishedTaskIgnoresResumeAndCancel() {
        var exchange = delivering()
        exchange.finished()
        #expect(exchange.phase == .finished)
        expectAction(exchange.resume().isNone, true)
        expectAction(exchange.cancel(), .none)
        expectAction(exchange.start(), .none)
    }

    @Test func aRedirectDiscardsItsBodyAndWaitsForTheNextConnection() {
        var exchange = executing()
        expectAction(exchange.responseBytesReceived(), .reportFirstBytes)
        expectAction(exchange.responseHead(.follow(keepsBody: true)), .discardBody)
        #expect(exchange.isDiscardingBody)
        expectAction(exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false), .follow(reusable: true))
        #expect(exchange.phase == .waitingForConnection)
        expectAction(exchange.executed(), .writeRequest(startsBody: false))
        #expect(exchange.response == .awaitingHead)
        // A new exchange: its first bytes are reported again.
        expectAction(exchange.responseBytesReceived(), .reportFirstBytes)
    }

    @Test func aRedirectThatDropsTheBodyStopsStreamingIt() {
        var exchange = executing(streamedBodyLength: nil, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 2, hasPendingWrites: false), .write(chunked: true))
        expectAction(exchange.bodyFinished(), .writeLastChunk)
        expectAction(exchange.responseHead(.follow(keepsBody: false)), .discardBody)
        #expect(!exchange.streamsBody)
        expectAction(exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false), .follow(reusable: true))
        expectAction(exchange.executed(), .writeRequest(startsBody: false))
        #expect(exchange.upload == .notStarted && exchange.bodyBytesWritten == 0)
    }

    @Test func aRedirectThatKeepsTheBodyStreamsItAgain() {
        var exchange = executing(streamedBodyLength: 2, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 2, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.bodyFinished(), .none)
        expectAction(exchange.responseHead(.follow(keepsBody: true)), .discardBody)
        expectAction(exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false), .follow(reusable: true))
        expectAction(exchange.executed(), .writeRequest(startsBody: true))
        #expect(exchange.upload == .streaming && exchange.bodyBytesWritten == 0 && exchange.isAwaitingBodyChunk)
    }

    @Test func aRetryForgetsTheExchangeAndWaitsForTheFreshConnection() {
        var exchange = executing(streamedBodyLength: 4, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 4, hasPendingWrites: true), .write(chunked: false))
        exchange.retried()
        #expect(exchange.phase == .waitingForConnection)
        #expect(exchange.upload == .notStarted && !exchange.isAwaitingBodyChunk)
        expectAction(exchange.executed(), .writeRequest(startsBody: true))
        #expect(exchange.bodyBytesWritten == 0 && exchange.bodyBytesCompleted == 0)
        expectAction(exchange.responseBytesReceived(), .reportFirstBytes)
    }

    @Test func aRefusedPartIsHeldWithTheUnparsedRestAndOfferedOnResume() {
        var exchange = delivering()
        let rest: [UInt8] = [7, 8, 9]
        let action = rest.withUnsafeBytes { exchange.partRefused(.body([1, 2]), unparsed: $0) }
        #expect(action == .pause)
        #expect(exchange.isPaused && exchange.heldByteCount == 5)
        guard case .resume(let part) = exchange.resume() else {
            Issue.record("expected .resume")
            return
        }
        #expect(part?.bytes == [1, 2])
        #expect(!exchange.isPaused && exchange.heldPart == nil)
        expectAction(exchange.resume().isNone, true)
        var bytes = exchange.takeUnparsed()
        #expect(bytes == [7, 8, 9] && exchange.unparsed.isEmpty)
        // The buffer comes back for the next pause, with its capacity.
        let capacity = bytes.capacity
        exchange.recycle(&bytes)
        #expect(exchange.unparsed.isEmpty && exchange.unparsed.capacity == capacity)
    }

    @Test func aPartRefusedAgainOnResumeKeepsTheUnparsedBytes() {
        var exchange = delivering()
        let rest: [UInt8] = [5, 6]
        _ = rest.withUnsafeBytes { exchange.partRefused(.body([1]), unparsed: $0) }
        guard case .resume(let part?) = exchange.resume() else {
            Issue.record("expected .resume with a part")
            return
        }
        expectAction(exchange.partRefused(part, unparsed: UnsafeRawBufferPointer(start: nil, count: 0)), .pause)
        #expect(exchange.heldByteCount == 3 && exchange.unparsed == [5, 6])
    }

    @Test func exhaustedDemandPausesWithNothingHeld() {
        var exchange = delivering()
        expectAction(exchange.demandExhausted(), .pause)
        guard case .resume(let part) = exchange.resume() else {
            Issue.record("expected .resume")
            return
        }
        #expect(part == nil)
        expectAction(exchange.takeUnparsed(), [])
    }

    @Test func aRefusedHeadIsHeldToo() {
        var exchange = executing()
        expectAction(exchange.responseHead(.deliver), .deliver)
        let head = HTTPResponse(status: .ok)
        expectAction(exchange.partRefused(.head(head), unparsed: UnsafeRawBufferPointer(start: nil, count: 0)), .pause)
        #expect(exchange.heldByteCount == 0)
        guard case .resume(let part) = exchange.resume() else {
            Issue.record("expected .resume")
            return
        }
        #expect(part?.response?.status == .ok)
    }

    @Test func aBodyPastItsContentLengthFailsWithTheCounts() {
        var exchange = executing(streamedBodyLength: 6, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 3, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.bodyChunkArrived(count: 4, hasPendingWrites: false), .fail(UVURLError(
            .requestBodyLengthMismatch,
            detail: "the body publisher sent 7 bytes or more, past the Content-Length of 6")))
        #expect(exchange.bodyBytesWritten == 3)
    }

    @Test func aBodyShortOfItsContentLengthFailsWithTheCounts() {
        var exchange = executing(streamedBodyLength: 6, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 5, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.bodyFinished(), .fail(UVURLError(
            .requestBodyLengthMismatch,
            detail: "the body publisher finished after 5 of the 6 bytes of its Content-Length")))
        #expect(exchange.upload == .streaming)
    }

    @Test func anEmptyChunkAsksAgainOnlyWhenNothingIsInFlight() {
        var exchange = executing(streamedBodyLength: nil, streamsBody: true)
        expectAction(exchange.bodyChunkArrived(count: 0, hasPendingWrites: true), .none)
        #expect(!exchange.isAwaitingBodyChunk)
        expectAction(exchange.bodyChunkArrived(count: 0, hasPendingWrites: false), .requestChunk)
        expectAction(exchange.writesCompleted(), .init(progress: nil, requestsChunk: true))
        #expect(exchange.isAwaitingBodyChunk)
    }

    @Test func completedWritesReportProgressOnceAndAskForOneChunkAtATime() {
        var exchange = executing(streamedBodyLength: 8, streamsBody: true)
        // The first chunk was asked for by `.writeRequest(startsBody: true)`.
        #expect(exchange.isAwaitingBodyChunk)
        expectAction(exchange.writesCompleted(), .init(progress: nil, requestsChunk: false))
        expectAction(exchange.bodyChunkArrived(count: 5, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.writesCompleted(), .init(progress: 5, requestsChunk: true))
        expectAction(exchange.writesCompleted(), .init(progress: nil, requestsChunk: false))
        expectAction(exchange.bodyChunkArrived(count: 3, hasPendingWrites: false), .write(chunked: false))
        expectAction(exchange.bodyFinished(), .none)
        // The last write's completion: progress, and no chunk (complete).
        expectAction(exchange.writesCompleted(), .init(progress: 8, requestsChunk: false))
        #expect(exchange.bodyBytesCompleted == 8)
    }

    /// (previous look, now, counts as activity)
    @Test(arguments: [
        (1000, 1000, false),
        (1000, 500, true),
        (70_000, 0, true),
        (1000, 0, false),
        (0, 2000, true),
    ])
    func unacknowledgedBytesCountAsActivityWhenAnUploadMoves(previous: Int, now: Int, isActivity: Bool) {
        var exchange = executing()
        exchange.requestWritten(unacknowledged: previous)
        expectAction(exchange.uploadProgressObserved(unacknowledged: now), isActivity)
        #expect(exchange.lastUnacknowledgedOutput == now)
    }

    @Test func uploadProgressIsNotObservedOutsideAnExchange() {
        var exchange = Exchange(streamedBodyLength: nil, streamsBody: false)
        _ = exchange.start()
        expectAction(exchange.uploadProgressObserved(unacknowledged: 100), false)
    }

    @Test func describeNamesPhaseResponseUploadAndPause() {
        var exchange = executing(streamedBodyLength: nil, streamsBody: true)
        #expect(exchange.describe() == "exchanging, response awaiting its head, upload streaming")
        _ = exchange.responseHead(.deliver)
        _ = exchange.demandExhausted()
        #expect(exchange.describe() == "exchanging, response delivering, upload streaming, paused")
        exchange.finished()
        #expect(exchange.describe() == "finished")
    }
}

extension HTTPExchangeStateMachine.ResumeAction {
    /// Whether it is `.none`.
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}

/// Every impossible transition traps, naming the rule and the state.
@Suite("HTTPExchangeStateMachine violations")
struct HTTPExchangeStateMachineViolationTests {
    private static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func finishingBeforeTheStartTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            exchange.finished()
        }
        #expect(Self.stderr(result).contains(
            "HTTPExchangeStateMachine.finished: a task ends once, after its start, but it is idle"))
    }

    @Test func finishingTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            exchange.finished()
            exchange.finished()
        }
        #expect(Self.stderr(result).contains("finished: a task ends once, after its start, but it is finished"))
    }

    @Test func executingAnUnstartedRequestTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.executed()
        }
        #expect(Self.stderr(result).contains(
            "HTTPExchangeStateMachine.executed: a request is executed while it waits for a connection, but it is idle"))
    }

    @Test func executingTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.executed()
        }
        #expect(Self.stderr(result).contains(
            "executed: a request is executed while it waits for a connection, but it is exchanging, response awaiting its head, upload not started"))
    }

    @Test func writingARequestThatWaitsTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            exchange.requestWritten(unacknowledged: 0)
        }
        #expect(Self.stderr(result).contains(
            "requestWritten: a request is written while exchanging, but it is waiting for a connection"))
    }

    @Test func bytesBeforeTheRequestWasExecutedTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.responseBytesReceived()
        }
        #expect(Self.stderr(result).contains(
            "responseBytesReceived: bytes are received while exchanging, but it is waiting for a connection"))
    }

    @Test func aSecondHeadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.responseHead(.deliver)
            _ = exchange.responseHead(.deliver)
        }
        #expect(Self.stderr(result).contains(
            "responseHead: one head per exchange, while exchanging, but it is exchanging, response delivering"))
    }

    @Test func anEndBeforeTheHeadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.responseEnded(keepAlive: true, hasTrailingBytes: false, hasPendingWrites: false)
        }
        #expect(Self.stderr(result).contains(
            "responseEnded: a response ends after its head, while exchanging, but it is exchanging, response awaiting its head"))
    }

    @Test func retryingARequestThatWaitsTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            exchange.retried()
        }
        #expect(Self.stderr(result).contains(
            "retried: only an exchange in progress is retried, but it is waiting for a connection"))
    }

    @Test func refusingAPartWhilePausedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.responseHead(.deliver)
            _ = exchange.demandExhausted()
            _ = exchange.partRefused(.body([1]), unparsed: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        #expect(Self.stderr(result).contains(
            "partRefused: a part is refused while exchanging and reading, but it is exchanging, response delivering, upload not started, paused"))
    }

    @Test func pausingTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.demandExhausted()
            _ = exchange.demandExhausted()
        }
        #expect(Self.stderr(result).contains("demandExhausted: reading pauses while exchanging and reading"))
    }

    @Test func aChunkWithoutAStreamedBodyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.bodyChunkArrived(count: 1, hasPendingWrites: false)
        }
        #expect(Self.stderr(result).contains(
            "bodyChunkArrived: chunks come while the body streams, but it is exchanging, response awaiting its head, upload not started"))
    }

    @Test func aBodyThatEndsTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: true)
            _ = exchange.start()
            _ = exchange.executed()
            _ = exchange.bodyFinished()
            _ = exchange.bodyFinished()
        }
        #expect(Self.stderr(result).contains(
            "bodyFinished: a body ends while it streams, but it is exchanging, response awaiting its head, upload complete"))
    }

    @Test func writesCompletingAfterTheEndTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var exchange = HTTPExchangeStateMachine(streamedBodyLength: nil, streamsBody: false)
            _ = exchange.start()
            exchange.finished()
            _ = exchange.writesCompleted()
        }
        #expect(Self.stderr(result).contains(
            "writesCompleted: writes complete while exchanging, but it is finished"))
    }
}
