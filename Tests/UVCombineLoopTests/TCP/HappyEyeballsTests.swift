import CLibUV
import Testing
import UVCombineCore
import UVCombineLoop

#if canImport(Glibc)
import Glibc
#endif

/// A loopback address that never accepts: a listening socket (backlog 0)
/// whose accept queue is filled by raw connects nobody accepts, so the
/// kernel drops every new SYN and a connect to it hangs (until its SYN
/// retries, seconds later). Deterministic on loopback, no sleep: each
/// filling connect is polled until it completes or is seen to hang.
final class BlackholeListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw UVError(code: -errno) }
        descriptors.append(listener)
        var address = sockaddr_in()
        _ = uv_ip4_addr("127.0.0.1", 0, &address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(listener, $0, length)
                _ = getsockname(listener, $0, &length)
            }
        }
        guard listen(listener, 0) == 0 else { throw UVError(code: -errno) }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue: connect until one connect hangs.
        for _ in 0..<16 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw UVError(code: -errno) }
            descriptors.append(fd)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 200) == 0 { return } // this one hangs: the queue is full
        }
        throw UVError(code: UV_EAGAIN.rawValue)
    }

    var address: UVTCPAddress { UVTCPAddress(host: "127.0.0.1", port: port) }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors = []
    }

    deinit { close() }
}

/// Happy Eyeballs (RFC 8305) in `UVTCP.connect`: staggered attempts, the
/// first to connect wins, the losers are closed; on loopback, with an
/// address that never accepts beside one that does.
@Suite("UVTCP.connect: Happy Eyeballs")
struct HappyEyeballsTests {
    static func options(delay: UVLoop.SchedulerTimeType.Stride, timeout: UVLoop.SchedulerTimeType.Stride? = nil) -> UVTCP.Options {
        var options = UVTCP.Options()
        options.connectionAttemptDelay = delay
        options.connectTimeout = timeout
        return options
    }

    @Test func theDefaultAttemptDelayIs250Milliseconds() {
        #expect(UVTCP.Options().connectionAttemptDelay == .milliseconds(250))
    }

    @Test func aBlackholedFirstAddressCostsOneAttemptDelayAndTheSecondWins() throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let candidates = [blackhole.address, UVTCPAddress(host: "127.0.0.1", port: server.port)]
            var result: Result<UVTCPConnection, UVTCPError>?
            var remotePort: Int?
            var elapsed: Duration = .zero
            let start = ContinuousClock.now
            let attempt = UVTCP.connect(addresses: candidates, on: loop,
                                        options: Self.options(delay: .milliseconds(50), timeout: .seconds(10))) { outcome in
                elapsed = ContinuousClock.now - start
                result = outcome
                remotePort = outcome.success?.remoteAddress?.port
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil, "\(String(describing: result))")
            #expect(remotePort == server.port, "the listener that accepts wins")
            #expect(attempt.triedAddresses == candidates)
            #expect(elapsed >= .milliseconds(45), "the second attempt waited for the attempt delay: \(elapsed)")
            #expect(elapsed < .seconds(2), "not the connect timeout: \(elapsed)")
            #expect(attempt.openSocketCount == 0, "the losing attempt's socket was closed")
        }
    }

    @Test func aFirstAddressThatConnectsAtOnceWinsAndTheNextIsNeverTried() throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let candidates = [UVTCPAddress(host: "127.0.0.1", port: server.port), blackhole.address]
            var result: Result<UVTCPConnection, UVTCPError>?
            let attempt = UVTCP.connect(addresses: candidates, on: loop,
                                        options: Self.options(delay: .seconds(5))) { outcome in
                result = outcome
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil)
            #expect(attempt.triedAddresses == [candidates[0]])
            #expect(attempt.openSocketCount == 0)
        }
    }

    @Test func aRefusedAttemptStartsTheNextAtOnceWithoutWaitingForTheDelay() throws {
        try withLoop { loop in
            let closed = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { $0.close() }
            let closedPort = closed.port
            closed.close()
            loop.run()
            let server = try EchoServer(on: loop)
            let candidates = [UVTCPAddress(host: "127.0.0.1", port: closedPort),
                              UVTCPAddress(host: "127.0.0.1", port: server.port)]
            var result: Result<UVTCPConnection, UVTCPError>?
            let start = ContinuousClock.now
            var elapsed: Duration = .zero
            let attempt = UVTCP.connect(addresses: candidates, on: loop,
                                        options: Self.options(delay: .seconds(30))) { outcome in
                elapsed = ContinuousClock.now - start
                result = outcome
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success?.isClosed == true)
            #expect(attempt.triedAddresses == candidates)
            #expect(elapsed < .seconds(5), "\(elapsed)")
        }
    }

    @Test func attemptsOverlapTwoBlackholesThenTheThirdWins() throws {
        let first = try BlackholeListener()
        defer { first.close() }
        let second = try BlackholeListener()
        defer { second.close() }
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let candidates = [first.address, second.address, UVTCPAddress(host: "127.0.0.1", port: server.port)]
            var result: Result<UVTCPConnection, UVTCPError>?
            var remotePort: Int?
            var elapsed: Duration = .zero
            let start = ContinuousClock.now
            let attempt = UVTCP.connect(addresses: candidates, on: loop,
                                        options: Self.options(delay: .milliseconds(30))) { outcome in
                elapsed = ContinuousClock.now - start
                result = outcome
                remotePort = outcome.success?.remoteAddress?.port
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil)
            #expect(remotePort == server.port)
            #expect(attempt.triedAddresses == candidates)
            #expect(elapsed >= .milliseconds(55), "two attempt delays: \(elapsed)")
            #expect(elapsed < .seconds(2), "\(elapsed)")
            #expect(attempt.openSocketCount == 0)
        }
    }

    @Test func whenNoAddressAcceptsTheConnectTimeoutClosesEveryAttempt() throws {
        let first = try BlackholeListener()
        defer { first.close() }
        let second = try BlackholeListener()
        defer { second.close() }
        withLoop { loop in
            var result: Result<UVTCPConnection, UVTCPError>?
            let attempt = UVTCP.connect(addresses: [first.address, second.address], on: loop,
                                        options: Self.options(delay: .milliseconds(20), timeout: .milliseconds(150))) {
                result = $0
            }
            loop.run()
            #expect(result?.failure?.kind == .timedOut)
            #expect(attempt.triedAddresses == [first.address, second.address], "both ran before the timeout")
            #expect(attempt.openSocketCount == 0)
        }
    }

    @Test func cancelWhileSeveralAttemptsAreInFlightClosesThemAllAndCallsNothing() throws {
        let first = try BlackholeListener()
        defer { first.close() }
        let second = try BlackholeListener()
        defer { second.close() }
        withLoop { loop in
            var called = false
            let attempt = UVTCP.connect(addresses: [first.address, second.address], on: loop,
                                        options: Self.options(delay: .milliseconds(10))) { _ in called = true }
            // Cancel once both attempts are in flight.
            let check = loop.schedule(after: loop.now.advanced(by: .milliseconds(60)), interval: .milliseconds(20)) {
                if attempt.triedAddresses.count == 2 { attempt.cancel() }
            }
            loop.schedule(after: loop.now.advanced(by: .milliseconds(300))) { check.cancel() }
            loop.run()
            #expect(!called)
            #expect(attempt.triedAddresses.count == 2)
            #expect(attempt.openSocketCount == 0)
        }
    }

    @Test func resolvedAddressesAlternateFamiliesFromTheFirstOnesFamily() {
        let six1 = UVTCPAddress(host: "::1", port: 1)
        let six2 = UVTCPAddress(host: "::2", port: 1)
        let six3 = UVTCPAddress(host: "::3", port: 1)
        let four1 = UVTCPAddress(host: "127.0.0.1", port: 1)
        let four2 = UVTCPAddress(host: "127.0.0.2", port: 1)
        #expect(UVTCPConnectAttempt.interleavingFamilies([six1, six2, six3, four1, four2])
                == [six1, four1, six2, four2, six3])
        #expect(UVTCPConnectAttempt.interleavingFamilies([four1, four2, six1]) == [four1, six1, four2])
        #expect(UVTCPConnectAttempt.interleavingFamilies([four1, four2]) == [four1, four2])
        #expect(UVTCPConnectAttempt.interleavingFamilies([]) == [])
    }
}
