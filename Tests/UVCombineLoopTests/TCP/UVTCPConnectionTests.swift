import CLibUV
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

@Suite("UVTCPConnection")
struct UVTCPConnectionTests {
    /// Connects to `port` on 127.0.0.1 and runs `body` with the connection
    /// (failing the test when connecting fails).
    static func connect(_ port: Int, on loop: UVLoop, options: UVTCP.Options = UVTCP.Options(),
                        _ body: @escaping (UVTCPConnection) -> Void) {
        UVTCP.connect(host: "127.0.0.1", port: port, on: loop, options: options) { result in
            switch result {
            case .success(let connection): body(connection)
            case .failure(let error): Issue.record("connect failed: \(error)")
            }
        }
    }

    @Test func echoRoundTripOfALargeMessage() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let message = pattern(1_000_000)
            let handler = RecordingHandler()
            var completions: [UVError?] = []
            Self.connect(server.port, on: loop) { connection in
                handler.onRead = { [unowned handler] connection, _ in
                    if handler.received.count == message.count {
                        connection.close()
                        server.listener.close()
                    }
                }
                connection.handler = handler
                connection.write(Array(message[..<500_000])) { completions.append($0) }
                connection.write(Array(message[500_000...])) { completions.append($0) }
                connection.startReading()
            }
            loop.run()
            #expect(handler.received == message)
            #expect(completions.count == 2 && completions.allSatisfy { $0 == nil })
            #expect(handler.ends.isEmpty) // closed by us: no end report
        }
    }

    @Test func oneChunkPerUnitOfDemandAndNoReadingWithoutDemand() throws {
        try withLoop { loop in
            var serverSide: UVTCPConnection?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.write([1])
            }
            let handler = RecordingHandler()
            var log: [String] = []
            Self.connect(listener.port, on: loop) { connection in
                connection.handler = handler
                #expect(connection.readDemand == .none)
                #expect(!connection.isReadingSocket)
                connection.requestReads(.max(1))
                #expect(connection.isReadingSocket)
            }
            handler.onRead = { [unowned handler] connection, _ in
                log.append("read \(handler.reads), demand \(connection.readDemand)")
                if handler.reads == 1 {
                    // Demand is now zero: the socket stops after this call.
                    loop.schedule {
                        log.append("reading: \(connection.isReadingSocket)")
                        // Both land in the client's kernel buffer at once.
                        serverSide?.write([2])
                        serverSide?.write([3])
                        // Nothing is read without demand.
                        loop.schedule {
                            log.append("reads: \(handler.reads)")
                            connection.requestReads(.max(1))
                        }
                    }
                } else {
                    connection.close()
                    serverSide?.close()
                    listener.close()
                }
            }
            loop.run()
            #expect(log == ["read 1, demand max(0)", "reading: false", "reads: 1", "read 2, demand max(0)"])
            #expect(handler.received == [1, 2, 3] || handler.received == [1, 2])
        }
    }

    @Test func backpressureReachesTheServersWriteQueueAndResumingDrainsIt() throws {
        try withLoop { loop in
            let chunk = pattern(256 * 1024)
            var serverSide: UVTCPConnection?
            var written = 0
            var queueWhileStalled = 0
            var queueAfterWaiting = 0
            var writableNotifications = 0
            let serverHandler = RecordingHandler()
            serverHandler.onWritable = { _ in writableNotifications += 1 }
            let clientHandler = RecordingHandler()
            clientHandler.records = false
            var clientBytes = 0
            var client: UVTCPConnection?

            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.handler = serverHandler
                connection.startReading() // to see the client's end of file
                // Write until libuv holds 4 MiB the kernel would not take:
                // the client has no demand, so its socket is never read.
                var rounds = 0
                while connection.writeQueueSize < 4 * 1024 * 1024 && rounds < 1024 {
                    connection.write(chunk)
                    written += chunk.count
                    rounds += 1
                }
                queueWhileStalled = connection.writeQueueSize
                // Nothing drains while the client has no demand.
                loop.schedule(after: loop.now.advanced(by: .milliseconds(50))) {
                    queueAfterWaiting = connection.writeQueueSize
                    #expect(client?.readBufferCount == 0)
                    #expect(client?.isReadingSocket == false)
                    client?.startReading()
                }
            }
            Self.connect(listener.port, on: loop) { connection in
                client = connection
                connection.handler = clientHandler
            }
            clientHandler.onRead = { connection, bytes in
                clientBytes += bytes.count
                if clientBytes == written {
                    #expect(serverSide?.writeQueueSize == 0)
                    connection.close()
                    listener.close()
                }
            }
            serverHandler.onEnd = { connection, _ in connection.close() }
            loop.run()
            #expect(queueWhileStalled >= 4 * 1024 * 1024)
            #expect(queueAfterWaiting == queueWhileStalled)
            #expect(clientBytes == written)
            #expect(client?.readBufferCount == 1) // one buffer, reused for every read
            #expect((client?.readCount ?? 0) > 1)
            #expect(writableNotifications == 1) // write() returned false, then the queue drained
            #expect(serverHandler.ends.count == 1) // the client's close: end of file
            #expect(serverHandler.ends.first == .some(nil))
        }
    }

    @Test func closeClosesTheSocketInsideTheCallAndThePeerSeesEndOfFile() throws {
        try withLoop { loop in
            var client: UVTCPConnection?
            var serverSide: UVTCPConnection?
            let serverHandler = RecordingHandler()
            var peerSawEndOfFileBeforeTheNextIteration = false
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.handler = serverHandler
                connection.startReading()
            }
            serverHandler.onRead = { connection, _ in
                guard let fd = connection.fileDescriptor else { return }
                client?.close()
                // The loop thread waits here: if close() had left the socket
                // open for a later iteration, no end of file could arrive.
                peerSawEndOfFileBeforeTheNextIteration = waitForEndOfFile(fd, milliseconds: 5_000)
                listener.close()
            }
            Self.connect(listener.port, on: loop) { connection in
                client = connection
                connection.write([7])
            }
            loop.run()
            #expect(peerSawEndOfFileBeforeTheNextIteration)
            #expect(serverHandler.ends.count == 1)
            #expect(serverHandler.ends.first == .some(nil))
            #expect(serverSide?.isClosed == true) // closed itself after end of file
        }
    }

    @Test func endOfFileIsReportedOnceAndTheConnectionClosesAfterItsWrites() throws {
        try withLoop { loop in
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                connection.write(Array("bye".utf8))
                connection.close()
            }
            let handler = RecordingHandler()
            var writeCompletedBeforeClose = false
            handler.onEnd = { connection, _ in
                // Still open for writing: the close waits for this write.
                connection.write([1]) { error in
                    writeCompletedBeforeClose = error == nil && !connection.isClosed
                }
                #expect(!connection.isClosed)
                listener.close()
            }
            var client: UVTCPConnection?
            Self.connect(listener.port, on: loop) { connection in
                client = connection
                connection.handler = handler
                connection.startReading()
            }
            loop.run()
            #expect(String(decoding: handler.received, as: UTF8.self) == "bye")
            #expect(handler.ends.count == 1)
            #expect(handler.ends.first == .some(nil))
            #expect(writeCompletedBeforeClose)
            #expect(client?.isClosed == true)
        }
    }

    @Test func aResetIsReportedAsConnectionLostAndClosesTheConnection() throws {
        try withLoop { loop in
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                // Unread data at close makes the kernel send a reset.
                loop.schedule { connection.close() }
            }
            let handler = RecordingHandler()
            var client: UVTCPConnection?
            Self.connect(listener.port, on: loop) { connection in
                client = connection
                connection.handler = handler
                connection.write(pattern(1000))
                connection.startReading()
            }
            handler.onEnd = { _, _ in listener.close() }
            loop.run()
            #expect(handler.ends.count == 1)
            let error = try #require(handler.ends.first ?? nil)
            #expect(error.kind == .connectionLost)
            #expect(error.name == "UV_ECONNRESET")
            #expect(client?.isClosed == true)
        }
    }

    @Test func closeInsideAReadStopsEverythingAndDropsPendingWrites() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let handler = RecordingHandler()
            var completions = 0
            Self.connect(server.port, on: loop) { connection in
                handler.onRead = { connection, _ in
                    connection.write([UInt8](repeating: 1, count: 8 << 20)) { _ in completions += 1 }
                    connection.close()
                    #expect(connection.handler == nil)
                    #expect(connection.writeQueueSize == 0)
                    server.listener.close()
                }
                connection.handler = handler
                connection.write([1])
                connection.startReading()
            }
            loop.run()
            #expect(handler.reads == 1)
            #expect(handler.ends.isEmpty)
            #expect(completions == 0)
        }
    }

    @Test func closeFromAnotherThreadTakesEffectOnTheLoop() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            let handler = RecordingHandler()
            Self.connect(server.port, on: loop) { connection in
                connection.handler = handler
                connection.startReading()
                let thread = TestThread { connection.close() }
                thread.join()
                #expect(!connection.isClosed) // queued for the next iteration
                loop.schedule {
                    #expect(connection.isClosed)
                    server.listener.close()
                }
            }
            loop.run()
        }
    }

    @Test func writesCompleteInOrder() throws {
        try withLoop { loop in
            let server = try EchoServer(on: loop)
            var order: [Int] = []
            let handler = RecordingHandler()
            Self.connect(server.port, on: loop) { connection in
                connection.handler = handler
                for i in 0..<50 {
                    connection.write(pattern(10_000 + i)) { error in
                        #expect(error == nil)
                        order.append(i)
                    }
                }
                #expect(connection.pendingWriteCount == 50)
                connection.startReading()
            }
            handler.onRead = { [unowned handler] connection, _ in
                if handler.received.count == (0..<50).reduce(0, { $0 + 10_000 + $1 }) {
                    connection.close()
                    server.listener.close()
                }
            }
            loop.run()
            #expect(order == Array(0..<50))
        }
    }

    @Test func listeningOnABusyPortFails() throws {
        try withLoop { loop in
            let first = try UVTCP.listen(port: 0, on: loop) { $0.close() }
            #expect {
                try UVTCP.listen(port: first.port, on: loop) { $0.close() }
            } throws: { error in
                (error as? UVTCPError)?.kind == .listenFailed && (error as? UVTCPError)?.name == "UV_EADDRINUSE"
            }
            #expect(throws: UVTCPError(.invalidArgument, UVError(code: UV_EINVAL.rawValue))) {
                try UVTCP.listen(host: "example.com", port: 0, on: loop) { $0.close() }
            }
            first.close()
            loop.run()
        }
    }

    // MARK: Allocation and throughput (release builds)

    /// Writes `chunk` again each time the previous write completed, with a
    /// completion closure made once.
    final class Pump {
        let connection: UVTCPConnection
        let chunk: [UInt8]
        var remaining: Int
        var completion: ((UVError?) -> Void)?

        init(connection: UVTCPConnection, chunk: [UInt8], count: Int) {
            self.connection = connection
            self.chunk = chunk
            remaining = count
            completion = { [unowned self] _ in self.next() }
        }

        func next() {
            guard remaining > 0, !connection.isClosed else { return }
            remaining -= 1
            connection.write(chunk, completion: completion)
        }
    }

    /// Counts bytes and records the thread's allocation total at reads
    /// `from` and `to`.
    final class CountingReader: UVTCPConnectionHandler {
        let from: Int
        let to: Int
        var reads = 0
        var bytes = 0
        var mallocsAtFrom = 0
        var mallocsAtTo = 0
        var onDone: (() -> Void)?
        var expectedBytes = Int.max
        var onAllBytes: (() -> Void)?

        init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }

        func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
            reads += 1
            self.bytes += bytes.count
            if reads == from { mallocsAtFrom = AllocationCounter.threadTotal }
            if reads == to {
                mallocsAtTo = AllocationCounter.threadTotal
                onDone?()
            }
            if self.bytes == expectedBytes { onAllBytes?() }
        }

        func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {}
    }

    @Test(.enabled(if: isOptimizedBuild, "allocation counts need specialised code"))
    func aSteadyStreamOfReadsAndWritesAllocatesNothing() throws {
        try withLoop { loop in
            var pump: Pump?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                pump = Pump(connection: connection, chunk: pattern(4096), count: .max)
                pump?.next()
            }
            let reader = CountingReader(from: 200, to: 2200)
            var client: UVTCPConnection?
            Self.connect(listener.port, on: loop) { connection in
                client = connection
                connection.handler = reader
                connection.startReading()
            }
            reader.onDone = {
                client?.close()
                pump?.connection.close()
                listener.close()
            }
            loop.run()
            #expect(reader.reads == 2200)
            #expect(reader.mallocsAtTo - reader.mallocsAtFrom == 0,
                    "mallocs over 2,000 reads (and the server's writes on the same loop)")
            #expect(client?.readBufferCount == 1)
        }
    }

    @Test(.enabled(if: isOptimizedBuild, "a measurement"))
    func loopbackThroughput() throws {
        try withLoop { loop in
            let megabytes = 256
            var pump: Pump?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                pump = Pump(connection: connection, chunk: pattern(1 << 20), count: megabytes)
                pump?.next()
                pump?.next() // two writes in flight
            }
            let reader = CountingReader(from: 1, to: .max)
            reader.expectedBytes = megabytes << 20
            var start: UInt64 = 0
            var elapsed: UInt64 = 0
            Self.connect(listener.port, on: loop) { connection in
                start = uv_hrtime()
                reader.onAllBytes = {
                    elapsed = uv_hrtime() - start
                    connection.close()
                    pump?.connection.close()
                    listener.close()
                }
                connection.handler = reader
                connection.startReading()
            }
            loop.run()
            #expect(reader.bytes == megabytes << 20)
            let seconds = Double(elapsed) / 1e9
            print("loopback throughput (client and server on one loop thread): " +
                  "\(Int(Double(megabytes) / seconds)) MiB/s, \(reader.reads) reads of " +
                  "\((megabytes << 20) / max(reader.reads, 1)) bytes on average")
        }
    }
}

@Suite("UVTCPConnection.keepsLoopAlive")
struct UVTCPKeepsLoopAliveTests {
    @Test func anUnrefedReadingConnectionAndListenerDoNotKeepRunGoing() throws {
        try withLoop { loop in
            var serverSide: UVTCPConnection?
            var listening: UVTCPListener?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.handler = RecordingHandler()
                connection.startReading()
                connection.keepsLoopAlive = false
                #expect(!connection.keepsLoopAlive)
                listening?.keepsLoopAlive = false
            }
            listening = listener
            var client: UVTCPConnection?
            let clientHandler = RecordingHandler()
            UVTCP.connect(host: "127.0.0.1", port: listener.port, on: loop) { result in
                client = result.success
                client?.handler = clientHandler
                client?.startReading()
                client?.keepsLoopAlive = false
            }
            // Returns although everything is open and reading.
            #expect(loop.run() == false)
            #expect(client?.isReadingSocket == true)
            #expect(serverSide?.isReadingSocket == true)
            #expect(listener.isClosed == false)
            // Ref'd again, a read keeps it running until the close.
            client?.keepsLoopAlive = true
            clientHandler.onRead = { connection, _ in connection.close() }
            serverSide?.write([1])
            loop.run()
            #expect(clientHandler.reads == 1)
            #expect(client?.isClosed == true)
            serverSide?.close()
            listener.close()
            listening = nil
            loop.run()
        }
    }
}

@Suite("UVTCPConnection round trips")
struct UVTCPRoundTripTests {
    /// Answers every `size` bytes received with `reply`, a reused array.
    final class Responder: UVTCPConnectionHandler {
        let size: Int
        let reply: [UInt8]
        var pending = 0

        init(size: Int, reply: [UInt8]) {
            self.size = size
            self.reply = reply
        }

        func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
            pending += bytes.count
            while pending >= size {
                pending -= size
                connection.write(reply)
            }
        }

        func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {}
    }

    /// Sends `request`, waits for the whole reply, sends again, `count`
    /// times; records the allocation total after `warmUp` round trips.
    final class Requester: UVTCPConnectionHandler {
        let request: [UInt8]
        let replySize: Int
        let count: Int
        let warmUp: Int
        var received = 0
        var done = 0
        var mallocsAfterWarmUp = 0
        var mallocsAtEnd = 0
        var startTime: UInt64 = 0
        var endTime: UInt64 = 0
        var onFinish: (() -> Void)?

        init(request: [UInt8], replySize: Int, count: Int, warmUp: Int) {
            self.request = request
            self.replySize = replySize
            self.count = count
            self.warmUp = warmUp
        }

        func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
            received += bytes.count
            guard received == replySize else { return }
            received = 0
            done += 1
            if done == warmUp {
                mallocsAfterWarmUp = AllocationCounter.threadTotal
                startTime = connection.loop.now.uptimeNanoseconds
            }
            if done == warmUp + count {
                mallocsAtEnd = AllocationCounter.threadTotal
                endTime = connection.loop.now.uptimeNanoseconds
                onFinish?()
                return
            }
            connection.write(request)
        }

        func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {}
    }

    @Test(.enabled(if: isOptimizedBuild, "allocation counts need specialised code"))
    func requestResponseRoundTripsAllocateNothing() throws {
        try withLoop { loop in
            let responder = Responder(size: 100, reply: pattern(300))
            var serverSide: UVTCPConnection?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                serverSide = connection
                connection.handler = responder
                connection.startReading()
            }
            let requester = Requester(request: pattern(100), replySize: 300, count: 10_000, warmUp: 100)
            var client: UVTCPConnection?
            UVTCP.connect(host: "127.0.0.1", port: listener.port, on: loop) { result in
                client = result.success
                client?.handler = requester
                client?.startReading()
                client?.write(requester.request)
            }
            requester.onFinish = {
                client?.close()
                serverSide?.close()
                listener.close()
            }
            let cpuBefore = threadCPUTime()
            loop.run()
            let cpu = threadCPUTime() - cpuBefore
            let mallocs = requester.mallocsAtEnd - requester.mallocsAfterWarmUp
            let seconds = Double(requester.endTime - requester.startTime) / 1e9
            print("loopback round trips (100-byte request, 300-byte reply, both ends on one loop thread): " +
                  "\(Int(Double(requester.count) / seconds))/s, \(Double(cpu) / 1e3 / Double(requester.count + 100)) µs CPU " +
                  "per round trip, \(mallocs) mallocs in \(requester.count)")
            #expect(mallocs == 0)
        }
    }
}
