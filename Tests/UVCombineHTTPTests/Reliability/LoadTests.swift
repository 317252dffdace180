import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

/// `UVC_LOAD_SCALE` (default 1) multiplies the load tests' counts, for the
/// report runs in docs/fault-matrix.md.
let loadScale: Int = max(1, Int(ProcessInfo.processInfo.environment["UVC_LOAD_SCALE"] ?? "") ?? 1)

/// The process's resident set (`VmRSS` in /proc/self/status), in KiB.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// A weak reference, to check that objects were deinitialised.
struct WeakReference {
    weak var object: AnyObject?
}

/// Load on real sockets against `TestHTTPServer` (its own loop thread).
/// Figures are printed as `LOAD ...` lines and collected in
/// docs/fault-matrix.md.
extension Reliability {
@Suite("Reliability: load")
struct LoadTests {
    @Test("10,000 concurrent data tasks with a per-host limit: all complete on reused connections; RSS bounded")
    func concurrentDataTasks() throws {
        let count = (isOptimizedBuild ? 10_000 : 1_000) * loadScale
        let limit = 8
        let server = try TestHTTPServer(routes: ["/item": .text("item")])
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.maximumConnectionsPerHost = limit
            let session = UVURLSession(loop: loop, configuration: configuration)
            let url = server.url("/item")
            var finished = 0
            var bytes = 0
            var failures: [UVURLError] = []
            let rssBefore = residentKiB()
            let clock = ContinuousClock()
            let start = clock.now
            var cancellables: [AnyCancellable] = []
            cancellables.reserveCapacity(count)
            for _ in 0..<count {
                cancellables.append(session.dataTaskPublisher(for: url).sink(receiveCompletion: { completion in
                    switch completion {
                    case .finished: finished += 1
                    case .failure(let error): failures.append(error)
                    }
                }, receiveValue: { bytes += $0.data.count }))
            }
            let rssQueued = residentKiB()
            withExtendedLifetime(cancellables) { _ = loop.run() }
            let elapsed = start.duration(to: clock.now)
            let rssAfter = residentKiB()
            cancellables = []

            #expect(finished == count)
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            #expect(bytes == 4 * count)
            #expect(server.requestCount == count)
            #expect(server.connectionCount <= limit, "connections reused: \(server.connectionCount) for \(count) requests")
            #expect(session.engine.runningTaskCount == 0)
            #expect(session.engine.connectionCount <= limit)
            // Each queued task holds its subscriber, its subscription and
            // its request: bounded by the task count, released when done.
            #expect(rssAfter - rssBefore < 256 * 1024, "RSS grew \(rssAfter - rssBefore) KiB")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("LOAD concurrent data tasks: \(count) requests, limit \(limit), connections \(server.connectionCount), "
                + "\(String(format: "%.2f", seconds)) s (\(Int(Double(count) / seconds)) req/s), "
                + "RSS before \(rssBefore) KiB, all queued \(rssQueued) KiB, after \(rssAfter) KiB")
        }
    }

    @Test("100,000 timer publishers on one loop, connected and cancelled: no live handle, every object deinitialised")
    func aHundredThousandTimerPublishers() throws {
        let count = (isOptimizedBuild ? 100_000 : 10_000) * loadScale
        withRealLoop { loop in
            var weakObjects: [WeakReference] = []
            weakObjects.reserveCapacity(2 * count)
            var generator = SplitMix64(seed: 100)
            var firings = 0
            var cancelledBeforeRunning = 0
            let rssBefore = residentKiB()
            let clock = ContinuousClock()
            let start = clock.now
            var rssConnected = 0
            do {
                var subscribers: [TrackingSubscriber<Date, Never>] = []
                var connections: [any Cancellable] = []
                subscribers.reserveCapacity(count)
                connections.reserveCapacity(count)
                for index in 0..<count {
                    // Intervals of 5-24 ms spread the firings over the loop.
                    let timer = UVTimer.publish(every: .milliseconds(5 + index % 20), on: loop)
                    let subscriber = TrackingSubscriber<Date, Never>()
                    timer.subscribe(subscriber)
                    let connection = timer.connect()
                    weakObjects.append(WeakReference(object: subscriber))
                    weakObjects.append(WeakReference(object: connection as AnyObject))
                    subscribers.append(subscriber)
                    connections.append(connection)
                }
                rssConnected = residentKiB()
                // Each pair is cancelled at a random point: at once (1 in
                // 8: the handle never starts), or 0-60 ms into the run
                // (before, between or after firings); connection or
                // subscriber first.
                for index in 0..<count {
                    let connection = connections[index]
                    let subscriber = subscribers[index]
                    let subscriberFirst = generator.next() % 2 == 0
                    let cancel = {
                        if subscriberFirst { subscriber.cancel() }
                        connection.cancel()
                        if !subscriberFirst { subscriber.cancel() }
                    }
                    if generator.next() % 8 == 0 {
                        cancelledBeforeRunning += 1
                        cancel()
                    } else {
                        loop.schedule(after: loop.now.advanced(by: .microseconds(Int(generator.next() % 60_000)))) { cancel() }
                    }
                }
                // Returns once every timer handle closed.
                _ = loop.run()
                firings = subscribers.reduce(0) { $0 + $1.values.count }
            }
            _ = loop.run()
            let elapsed = start.duration(to: clock.now)
            let rssAfter = residentKiB()
            let alive = weakObjects.filter { $0.object != nil }.count
            #expect(alive == 0, "\(alive) subscribers or connections still referenced")
            #expect(firings > 0)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("LOAD \(count) timer publishers: \(firings) firings, \(cancelledBeforeRunning) cancelled before the loop ran, "
                + "\(String(format: "%.2f", seconds)) s, RSS before \(rssBefore) KiB, all connected \(rssConnected) KiB, "
                + "after \(rssAfter) KiB, alive objects \(alive)")
            // withRealLoop then asserts uv_loop_close == 0: no live handle.
        }
    }

    @Test("20,000 cancellations at random points of data tasks and timers: nothing left running, every object deinitialised")
    func randomCancellations() throws {
        let total = (isOptimizedBuild ? 20_000 : 2_000) * loadScale
        let batch = 200
        let limit = 16
        let server = try TestHTTPServer(routes: [
            "/ok": .text("ok"),
            "/slow": .fault(.slowBody(chunks: 3, delay: .milliseconds(1))),
            "/stall": .fault(.stall),
        ])
        defer { server.shutdown() }
        let paths = ["/ok", "/slow", "/stall"]
        withRealLoop { loop in
            var weakSession = WeakReference()
            var weakSubscribers: [WeakReference] = []
            weakSubscribers.reserveCapacity(total)
            var generator = SplitMix64(seed: 10)
            var dataTasks = 0
            var timers = 0
            var cancelPoints = [0, 0, 0, 0]
            let rssBefore = residentKiB()
            let clock = ContinuousClock()
            let start = clock.now
            do {
                var configuration = UVURLSession.Configuration()
                configuration.maximumConnectionsPerHost = limit
                let session = UVURLSession(loop: loop, configuration: configuration)
                weakSession.object = session
                let urls = paths.map { server.url($0) }
                var issued = 0
                while issued < total {
                    var cancellers: [() -> Void] = []
                    for _ in 0..<min(batch, total - issued) {
                        issued += 1
                        let cancel: () -> Void
                        if generator.next() % 4 == 0 {
                            timers += 1
                            let subscriber = TrackingSubscriber<Date, Never>()
                            weakSubscribers.append(WeakReference(object: subscriber))
                            UVTimer.publish(every: .milliseconds(1), on: loop).autoconnect().subscribe(subscriber)
                            cancel = subscriber.cancel
                        } else {
                            dataTasks += 1
                            let url = urls[Int(generator.next() % UInt64(urls.count))]
                            let subscriber = TrackingSubscriber<(data: Data, response: HTTPResponse), UVURLError>()
                            weakSubscribers.append(WeakReference(object: subscriber))
                            session.dataTaskPublisher(for: url).subscribe(subscriber)
                            cancel = subscriber.cancel
                        }
                        // The cancel point: at once (before the task left
                        // the thread), in the loop's next iteration (queued
                        // or connecting), or 0-10 ms later (connected,
                        // writing, awaiting the head, mid-body, done).
                        let point = Int(generator.next() % 4)
                        cancelPoints[point] += 1
                        switch point {
                        case 0:
                            cancel()
                        case 1:
                            loop.schedule { cancel() }
                        default:
                            let delay = Int(generator.next() % 10_000)
                            loop.schedule(after: loop.now.advanced(by: .microseconds(delay))) { cancel() }
                        }
                        cancellers.append(cancel)
                    }
                    _ = loop.run()
                    // Every subscriber is cancelled: the loop ran dry.
                    #expect(session.engine.runningTaskCount == 0)
                    if session.engine.runningTaskCount != 0 { break }
                    cancellers.removeAll()
                }
                #expect(session.engine.connectionCount <= limit, "no orphaned pool slot")
                #expect(session.engine.deadlineCount <= limit, "only idle connections' deadlines remain")
            }
            // Sessions released: their idle connections close.
            _ = loop.run()
            let elapsed = start.duration(to: clock.now)
            let rssAfter = residentKiB()
            #expect(weakSession.object == nil, "the session was deinitialised")
            let alive = weakSubscribers.filter { $0.object != nil }.count
            #expect(alive == 0, "\(alive) subscribers still referenced")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("LOAD random cancellations: \(total) (\(dataTasks) data tasks, \(timers) timers; "
                + "at once \(cancelPoints[0]), next iteration \(cancelPoints[1]), later \(cancelPoints[2] + cancelPoints[3])), "
                + "server saw \(server.requestCount) requests on \(server.connectionCount) connections, "
                + "\(String(format: "%.2f", seconds)) s, RSS before \(rssBefore) KiB, after \(rssAfter) KiB, alive objects \(alive)")
            // withRealLoop then asserts uv_loop_close == 0: no live handle.
        }
    }
}
}
