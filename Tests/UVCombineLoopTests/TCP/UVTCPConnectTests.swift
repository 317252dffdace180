import CLibUV
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

@Suite("UVTCP.connect")
struct UVTCPConnectTests {
    @Test func connectsToALoopbackListenerAndLearnsBothAddresses() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            var local: UVTCPAddress?
            var remote: UVTCPAddress?
            var result: Result<UVTCPConnection, UVTCPError>?
            UVTCP.connect(host: "127.0.0.1", port: server.port, on: loop) { outcome in
                result = outcome
                if let connection = outcome.success {
                    local = connection.localAddress
                    remote = connection.remoteAddress
                    #expect(connection.description.hasPrefix("UVTCPConnection(127.0.0.1:"))
                    connection.close()
                    #expect(connection.isClosed)
                    #expect(connection.localAddress == nil)
                }
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil)
            #expect(remote == UVTCPAddress(host: "127.0.0.1", port: server.port))
            #expect(local?.host == "127.0.0.1")
            #expect(local?.port != server.port)
        }
    }

    @Test func aClosedPortIsRefused() throws {
        try withLoop { loop in
            let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { $0.close() }
            let port = listener.port
            listener.close()
            loop.run() // the listening socket is gone
            var result: Result<UVTCPConnection, UVTCPError>?
            UVTCP.connect(host: "127.0.0.1", port: port, on: loop) { result = $0 }
            loop.run()
            let error = try #require(result?.failure)
            #expect(error.kind == .connectionFailed)
            #expect(error.name == "UV_ECONNREFUSED")
            #expect(error.error == UVError(code: UV_ECONNREFUSED.rawValue))
            #expect(error.description == "connection failed: UV_ECONNREFUSED: connection refused")
        }
    }

    @Test func anUnknownHostIsReportedAsHostNotFound() throws {
        // `.invalid` is reserved (RFC 2606): only the resolver is asked.
        try withLoop { loop in
            var result: Result<UVTCPConnection, UVTCPError>?
            UVTCP.connect(host: "nonexistent.invalid", port: 80, on: loop) { result = $0 }
            loop.run()
            let error = try #require(result?.failure)
            #expect(error.kind == .hostNotFound)
            #expect(error.name == "UV_EAI_NONAME")
            #expect(error.description.hasPrefix("host not found: UV_EAI_NONAME"))
        }
    }

    @Test func aNameIsResolvedOnTheLoop() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            var attempt: UVTCPConnectAttempt?
            var result: Result<UVTCPConnection, UVTCPError>?
            attempt = UVTCP.connect(host: "localhost", port: server.port, on: loop) { outcome in
                result = outcome
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil)
            #expect(attempt?.triedAddresses.first == UVTCPAddress(host: "127.0.0.1", port: server.port))
        }
    }

    @Test(arguments: ["::1", "[::1]"])
    func ipv6LiteralHostsConnect(host: String) throws {
        try withLoop { loop in
            let server = try EchoServer(host: "::1", on: loop)
            #expect(server.listener.address.isIPv6)
            #expect(server.listener.address.description == "[::1]:\(server.port)")
            var reply: [UInt8] = []
            var remote: UVTCPAddress?
            UVTCP.connect(host: host, port: server.port, on: loop) { result in
                guard let connection = result.success else {
                    Issue.record("connect failed: \(result)")
                    server.listener.close()
                    return
                }
                remote = connection.remoteAddress
                connection.handler = RecordingHandler(onRead: { connection, bytes in
                    reply += bytes
                    if reply.count == 4 {
                        connection.close()
                        server.listener.close()
                    }
                })
                connection.write(Array("ping".utf8))
                connection.startReading()
            }
            loop.run()
            #expect(String(decoding: reply, as: UTF8.self) == "ping")
            #expect(remote == UVTCPAddress(host: "::1", port: server.port))
        }
    }

    @Test func eachAddressIsTriedInOrderOnAFreshSocket() throws {
        try withLoop { loop in
            // A port with nothing listening on ::1 (refused), then the server.
            let closed = try UVTCP.listen(host: "::1", port: 0, on: loop) { $0.close() }
            let closedPort = closed.port
            closed.close()
            loop.run()
            let server = try EchoServer(on: loop)
            let candidates = [UVTCPAddress(host: "::1", port: closedPort),
                              UVTCPAddress(host: "127.0.0.1", port: server.port)]
            var result: Result<UVTCPConnection, UVTCPError>?
            let attempt = UVTCP.connect(addresses: candidates, on: loop) { outcome in
                result = outcome
                outcome.success?.close()
                server.listener.close()
            }
            loop.run()
            #expect(result?.success != nil)
            #expect(attempt.triedAddresses == candidates)
        }
    }

    @Test func whenEveryAddressFailsTheLastErrorIsReported() throws {
        try withLoop { loop in
            let a = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { $0.close() }
            let b = try UVTCP.listen(host: "::1", port: 0, on: loop) { $0.close() }
            let candidates = [UVTCPAddress(host: "127.0.0.1", port: a.port), UVTCPAddress(host: "::1", port: b.port)]
            a.close()
            b.close()
            loop.run()
            var result: Result<UVTCPConnection, UVTCPError>?
            let attempt = UVTCP.connect(addresses: candidates, on: loop) { result = $0 }
            loop.run()
            #expect(result?.failure?.name == "UV_ECONNREFUSED")
            #expect(attempt.triedAddresses == candidates)
        }
    }

    @Test(arguments: [0, -1, 65536])
    func anInvalidPortFailsWithoutIO(port: Int) throws {
        withLoop { loop in
            var result: Result<UVTCPConnection, UVTCPError>?
            UVTCP.connect(host: "127.0.0.1", port: port, on: loop) { result = $0 }
            loop.run()
            #expect(result?.failure?.kind == .invalidArgument)
            #expect(result?.failure?.name == "UV_EINVAL")
        }
    }

    @Test func theCompletionNeverRunsInsideConnect() throws {
        withLoop { loop in
            var log: [String] = []
            loop.schedule {
                UVTCP.connect(host: "127.0.0.1", port: 0, on: loop) { _ in log.append("completion") }
                log.append("returned")
            }
            loop.run()
            #expect(log == ["returned", "completion"])
        }
    }

    // MARK: Cancelling

    @Test func cancelBeforeTheAttemptStartedCallsNothing() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            var called = false
            let attempt = UVTCP.connect(host: "127.0.0.1", port: server.port, on: loop) { _ in called = true }
            attempt.cancel()
            attempt.cancel() // idempotent
            server.listener.close()
            loop.run()
            #expect(!called)
        }
    }

    @Test func cancelWhileConnectingClosesTheSocketAndIgnoresTheLateCallback() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            var called = false
            let attempt = UVTCP.connect(host: "127.0.0.1", port: server.port, on: loop) { _ in called = true }
            // Runs right after the attempt started (uv_tcp_connect issued,
            // its callback due in a later iteration, then UV_ECANCELED).
            loop.schedule {
                #expect(attempt.triedAddresses.count == 1)
                attempt.cancel()
                server.listener.close()
            }
            loop.run()
            #expect(!called)
        }
    }

    @Test func cancelWhileResolvingWaitsForTheResolverAndCallsNothing() throws {
        withLoop { loop in
            var called = false
            let attempt = UVTCP.connect(host: "localhost", port: 9, on: loop) { _ in called = true }
            loop.schedule { attempt.cancel() }
            loop.run()
            #expect(!called)
            #expect(attempt.triedAddresses.isEmpty)
        }
    }

    @Test func closingTheLoopWhileResolvingEndsWithUVLoopCloseZero() throws {
        // withLoop checks uv_loop_close == 0: the resolver's request must
        // have come back before the loop closed.
        withLoop { loop in
            var called = false
            UVTCP.connect(host: "localhost", port: 9, on: loop) { _ in called = true }
            loop.run(.noWait) // starts the attempt; the resolver is out
            _ = called
        }
    }

    @Test func cancelFromAnotherThreadStopsTheAttempt() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let called = Shared(false)
            let attempt = UVTCP.connect(host: "127.0.0.1", port: server.port, on: loop) { result in
                called.withLock { $0 = true }
                result.success?.close()
            }
            let thread = TestThread { attempt.cancel() }
            thread.join()
            server.listener.close()
            loop.run()
            #expect(!called.value)
        }
    }

    // MARK: Timeout

    @Test func aConnectTimeoutFailsWithTimedOut() throws {
        // A listener whose accept queue is full drops new SYNs: the connect
        // hangs until the timeout, on loopback only.
        try withLoop { loop in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #expect(fd >= 0)
            defer { Glibc.close(fd) }
            var address = sockaddr_in()
            _ = uv_ip4_addr("127.0.0.1", 0, &address)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = bind(fd, $0, length)
                    _ = getsockname(fd, $0, &length)
                }
            }
            #expect(listen(fd, 0) == 0)
            let port = Int(UInt16(bigEndian: address.sin_port))

            var options = UVTCP.Options()
            options.connectTimeout = .milliseconds(150)
            var results: [Result<UVTCPConnection, UVTCPError>] = []
            var connections: [UVTCPConnection] = []
            func next() {
                UVTCP.connect(host: "127.0.0.1", port: port, on: loop, options: options) { result in
                    results.append(result)
                    if let connection = result.success {
                        connections.append(connection) // fills the accept queue
                        if results.count < 8 { next() }
                    }
                }
            }
            next()
            loop.run()
            for connection in connections { connection.close() }
            loop.run()
            let error = try #require(results.last?.failure)
            #expect(error.kind == .timedOut)
            #expect(error.name == "UV_ETIMEDOUT")
            #expect(results.count >= 2) // at least one queued before the timeout
        }
    }

    // MARK: Lifetime

    @Test func attemptsConnectionsListenersAndHandlersAreReleasedAfterClose() throws {
        weak var weakAttempt: UVTCPConnectAttempt?
        weak var weakConnection: UVTCPConnection?
        weak var weakListener: UVTCPListener?
        weak var weakHandler: RecordingHandler?
        try withLoop { loop in
            try {
                let server = try EchoServer(on: loop)
                weakListener = server.listener
                let attempt = UVTCP.connect(host: "127.0.0.1", port: server.port, on: loop) { result in
                    guard let connection = result.success else { return }
                    weakConnection = connection
                    let handler = RecordingHandler(onRead: { connection, _ in
                        connection.close()
                        server.listener.close()
                    })
                    weakHandler = handler
                    connection.handler = handler
                    connection.write([1, 2, 3])
                    connection.startReading()
                }
                weakAttempt = attempt
                loop.run()
                #expect(server.connections.count == 1)
            }()
            // Released by their close callbacks, before the loop closes.
            #expect(weakAttempt == nil)
            #expect(weakConnection == nil)
            #expect(weakListener == nil)
            #expect(weakHandler == nil)
        }
    }
}
