import CLibUV
import Foundation
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

@Suite("UVTCPConnection.DataPublisher")
struct UVTCPDataPublisherTests {
    typealias Tracker = TrackingSubscriber<Data, UVTCPError>

    /// A listener whose accepted connections run `serve`, and a client
    /// connection handed to `client`.
    static func pair(on loop: UVLoop, serve: @escaping (UVTCPConnection) -> Void,
                     client: @escaping (UVTCPConnection, UVTCPListener) -> Void) throws {
        let listener = try UVTCP.listen(port: 0, on: loop, accept: serve)
        UVTCP.connect(host: "127.0.0.1", port: listener.port, on: loop) { result in
            switch result {
            case .success(let connection): client(connection, listener)
            case .failure(let error): Issue.record("connect failed: \(error)")
            }
        }
    }

    @Test func publishesChunksThenFinishesAtEndOfFile() throws {
        try withLoop { loop in
            let tracker = Tracker()
            try Self.pair(on: loop, serve: { connection in
                connection.write(Array("hello".utf8))
                connection.close()
            }, client: { connection, listener in
                connection.dataPublisher().subscribe(tracker)
                listener.close()
            })
            loop.run()
            #expect(tracker.subscriptionNames == ["DataPublisher"])
            #expect(String(decoding: tracker.values.reduce(Data(), +), as: UTF8.self) == "hello")
            #expect(tracker.completion == .finished)
        }
    }

    @Test func onlyOneChunkPerUnitOfDemand() throws {
        try withLoop { loop in
            // Shared with the tracker's @Sendable callback, which runs on
            // the loop thread like everything else here.
            let box = Unchecked<(server: UVTCPConnection?, client: UVTCPConnection?, tracker: Tracker?, log: [String])>(
                (nil, nil, nil, []))
            let tracker = Tracker(initialDemand: .max(1), onValue: { value in
                if value == Data([1]) {
                    // Demand is used up: the socket stops after this value.
                    loop.schedule {
                        box.value.log.append("reading: \(box.value.client?.isReadingSocket ?? true)")
                        box.value.server?.write([2]) // lands in the client's kernel buffer
                        loop.schedule {
                            box.value.log.append("values: \(box.value.tracker?.values.count ?? 0)")
                            box.value.tracker?.request(.max(1))
                        }
                    }
                } else {
                    box.value.log.append("second value")
                    box.value.client?.close()
                    box.value.server?.close()
                }
            })
            box.value.tracker = tracker
            try Self.pair(on: loop, serve: { connection in
                box.value.server = connection
                connection.write([1])
            }, client: { connection, listener in
                box.value.client = connection
                connection.dataPublisher().subscribe(tracker)
                listener.close()
            })
            loop.run()
            #expect(box.value.log == ["reading: false", "values: 1", "second value"])
            #expect(tracker.values == [Data([1]), Data([2])])
            #expect(tracker.completion == .failure(UVTCPError(.closed, UVError(code: UV_ENOTCONN.rawValue))))
            box.value = (nil, nil, nil, [])
        }
    }

    @Test func aResetFailsWithConnectionLost() throws {
        try withLoop { loop in
            let tracker = Tracker()
            try Self.pair(on: loop, serve: { connection in
                loop.schedule { connection.close() } // unread bytes: the kernel resets
            }, client: { connection, listener in
                connection.write(pattern(1000))
                connection.dataPublisher().subscribe(tracker)
                listener.close()
            })
            loop.run()
            guard case .failure(let error)? = tracker.completion else {
                Issue.record("expected a failure, got \(tracker.history)")
                return
            }
            #expect(error.kind == .connectionLost)
            #expect(error.name == "UV_ECONNRESET")
        }
    }

    @Test func aSecondReaderFailsAndAClosedConnectionFails() throws {
        try withLoop { loop in
            let first = Tracker(initialDemand: .none)
            let second = Tracker()
            let afterClose = Tracker()
            try Self.pair(on: loop, serve: { _ in }, client: { connection, listener in
                connection.dataPublisher().subscribe(first)
                connection.dataPublisher().subscribe(second)
                loop.schedule {
                    #expect(connection.handler != nil)
                    connection.close()
                    connection.dataPublisher().subscribe(afterClose)
                    listener.close()
                }
            })
            loop.run()
            #expect(first.completion == .failure(UVTCPError(.closed, UVError(code: UV_ENOTCONN.rawValue))))
            #expect(second.completion == .failure(UVTCPError(.alreadyReading, UVError(code: UV_EALREADY.rawValue))))
            #expect(afterClose.completion == .failure(UVTCPError(.closed, UVError(code: UV_ENOTCONN.rawValue))))
        }
    }

    @Test func cancelStopsReadingDetachesAndReleasesTheSubscriber() throws {
        weak var weakTracker: Tracker?
        try withLoop { loop in
            let box = Unchecked<(server: UVTCPConnection?, client: UVTCPConnection?, tracker: Tracker?)>((nil, nil, nil))
            let after = Unchecked<(handler: Bool, reading: Bool)?>(nil)
            try {
                let tracker = Tracker(onValue: { _ in
                    // Cancel from inside the delivery, then check in a later
                    // iteration that nothing more arrives.
                    box.value.tracker?.cancel()
                    loop.schedule {
                        after.value = (box.value.client?.handler != nil, box.value.client?.isReadingSocket ?? true)
                        box.value.server?.write([2]) // never delivered
                        loop.schedule {
                            box.value.client?.close()
                            box.value.server?.close()
                        }
                    }
                })
                weakTracker = tracker
                box.value.tracker = tracker
                try Self.pair(on: loop, serve: { connection in
                    box.value.server = connection
                    connection.write([1])
                }, client: { connection, listener in
                    box.value.client = connection
                    connection.dataPublisher().subscribe(tracker)
                    listener.close()
                })
                loop.run()
                #expect(tracker.values == [Data([1])])
                #expect(tracker.completion == nil)
                box.value = (nil, nil, nil)
            }()
            #expect(after.value?.handler == false)
            #expect(after.value?.reading == false)
        }
        #expect(weakTracker == nil)
    }

    @Test func cancelFromAnotherThreadStopsDelivery() throws {
        try withLoop { loop in
            let tracker = Tracker()
            var serverSide: UVTCPConnection?
            var client: UVTCPConnection?
            try Self.pair(on: loop, serve: { connection in
                serverSide = connection
            }, client: { connection, listener in
                client = connection
                connection.dataPublisher().subscribe(tracker)
                listener.close()
                let thread = TestThread { tracker.cancel() }
                thread.join()
                // The detach is queued; nothing written afterwards arrives.
                loop.schedule {
                    #expect(client?.handler == nil)
                    serverSide?.write([9])
                    loop.schedule {
                        client?.close()
                        serverSide?.close()
                    }
                }
            })
            loop.run()
            #expect(tracker.values.isEmpty)
            #expect(tracker.completion == nil)
        }
    }
}

@Suite("UVTCPConnection.DataPublisher allocations")
struct UVTCPDataPublisherAllocationTests {
    /// Requests one chunk at a time and records the thread's allocation
    /// total at chunks `from` and `to`.
    final class CountingSubscriber: Subscriber {
        typealias Input = Data
        typealias Failure = UVTCPError
        let from: Int
        let to: Int
        var chunks = 0
        var mallocsAtFrom = 0
        var mallocsAtTo = 0
        var onDone: (() -> Void)?

        init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }

        func receive(subscription: any Subscription) {
            subscription.request(.max(1))
        }

        func receive(_ input: Data) -> Subscribers.Demand {
            chunks += 1
            if chunks == from { mallocsAtFrom = AllocationCounter.threadTotal }
            if chunks == to {
                mallocsAtTo = AllocationCounter.threadTotal
                onDone?()
            }
            return .max(1)
        }

        func receive(completion: Subscribers.Completion<UVTCPError>) {}
    }

    @Test(.enabled(if: isOptimizedBuild, "allocation counts need specialised code"))
    func eachChunkCostsOnlyItsData() throws {
        try withLoop { loop in
            var pump: UVTCPConnectionTests.Pump?
            let listener = try UVTCP.listen(port: 0, on: loop) { connection in
                pump = UVTCPConnectionTests.Pump(connection: connection, chunk: pattern(4096), count: .max)
                pump?.next()
            }
            let subscriber = CountingSubscriber(from: 200, to: 1200)
            var client: UVTCPConnection?
            UVTCP.connect(host: "127.0.0.1", port: listener.port, on: loop) { result in
                client = result.success
                client?.dataPublisher().subscribe(subscriber)
            }
            subscriber.onDone = {
                client?.close()
                pump?.connection.close()
                listener.close()
            }
            loop.run()
            let perChunk = Double(subscriber.mallocsAtTo - subscriber.mallocsAtFrom) / 1000
            print("DataPublisher: \(perChunk) mallocs per 4 KiB chunk")
            // The Data's storage object and its bytes.
            #expect(perChunk <= 2)
        }
    }
}
