import CLibUV
import CZlib
import Foundation
import HTTPTypes
import Synchronization
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The error a ``ChunkPublisher`` fails with.
struct BodyTestError: Error, CustomStringConvertible {
    var description: String { "the test body broke" }
}

/// What a ``ChunkPublisher`` saw of its subscribers, across subscriptions.
final class ChunkLog: @unchecked Sendable {
    struct Counts {
        var subscriptions = 0
        var cancels = 0
        var chunks = 0
        /// The most demand outstanding at once (asked, not yet answered).
        var maximumOutstanding = 0
    }

    private let counts = Mutex(Counts())

    var value: Counts { counts.withLock { $0 } }

    func update(_ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0) }
    }
}

/// A body of `totalBytes` bytes in chunks of `chunkSize`, made on demand
/// (one chunk per unit of demand, never the whole body): the byte at
/// offset `i` is `pattern[i % pattern.count]`. Optionally fails after
/// `failAfterChunks` chunks, never sends anything (`stalls`), or delivers
/// from a queue of its own instead of the requesting thread.
struct ChunkPublisher: Publisher, @unchecked Sendable {
    typealias Output = Data
    typealias Failure = BodyTestError

    /// An array, not a `Data`: a `Data` of this size keeps its storage
    /// behind a reference packed with an enum tag (its `.large`
    /// representation), which LeakSanitizer does not recognise as a pointer,
    /// so a global `Data` shows as a 65 KB leak after every test passed. An
    /// array's buffer reference is a plain pointer in the global.
    static let pattern = pseudoRandomBytes(65_521, seed: 7)

    var totalBytes: Int
    var chunkSize = 64 * 1024
    var failAfterChunks: Int?
    var stalls = false
    var queue: DispatchQueue?
    let log = ChunkLog()

    func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == BodyTestError {
        log.update { $0.subscriptions += 1 }
        subscriber.receive(subscription: Inner(publisher: self, downstream: subscriber))
    }

    /// The CRC-32 the sink reports for the whole body.
    var crc: UInt {
        ChunkPublisher.crc(of: totalBytes)
    }

    static func crc(of count: Int) -> UInt {
        var crc: UInt = 0
        var offset = 0
        pattern.withUnsafeBytes { bytes in
            while offset < count {
                let n = Swift.min(bytes.count, count - offset)
                crc = CZlib.crc32(crc, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(n))
                offset += n
            }
        }
        return crc
    }

    static func bytes(at offset: Int, count: Int) -> Data {
        var data = Data(capacity: count)
        var position = offset
        while data.count < count {
            let start = position % pattern.count
            let n = Swift.min(pattern.count - start, count - data.count)
            data.append(contentsOf: pattern[start..<(start + n)])
            position += n
        }
        return data
    }

    final class Inner<Downstream: Subscriber>: Subscription, ChunkRunner, @unchecked Sendable
        where Downstream.Input == Data, Downstream.Failure == BodyTestError
    {
        struct State {
            var downstream: Downstream?
            var demand = 0
            var offset = 0
            var sent = 0
            var delivering = false
        }

        enum Step { case stop, chunk(Downstream, Data), finish(Downstream), fail(Downstream) }

        let publisher: ChunkPublisher
        let state: Mutex<UncheckedBox<State>>

        init(publisher: ChunkPublisher, downstream: Downstream) {
            self.publisher = publisher
            state = Mutex(UncheckedBox(State(downstream: downstream)))
        }

        func request(_ demand: Subscribers.Demand) {
            let count = demand.max ?? 1_000_000
            let runs = state.withLock { box -> Bool in
                box.value.demand += count
                let outstanding = box.value.demand
                publisher.log.update { $0.maximumOutstanding = Swift.max($0.maximumOutstanding, outstanding) }
                if box.value.delivering || publisher.stalls { return false }
                box.value.delivering = true
                return true
            }
            guard runs else { return }
            if let queue = publisher.queue {
                let box = UncheckedBox<any ChunkRunner>(self)
                queue.async { box.value.run() }
            } else {
                run()
            }
        }

        func run() {
            while true {
                let step = state.withLock { box -> Step in
                    guard let downstream = box.value.downstream, box.value.demand > 0 else {
                        box.value.delivering = false
                        return .stop
                    }
                    if let failAfter = publisher.failAfterChunks, box.value.sent == failAfter {
                        box.value.downstream = nil
                        return .fail(downstream)
                    }
                    let remaining = publisher.totalBytes - box.value.offset
                    if remaining <= 0 {
                        box.value.downstream = nil
                        return .finish(downstream)
                    }
                    let n = Swift.min(publisher.chunkSize, remaining)
                    let chunk = ChunkPublisher.bytes(at: box.value.offset, count: n)
                    box.value.offset += n
                    box.value.sent += 1
                    box.value.demand -= 1
                    return .chunk(downstream, chunk)
                }
                switch step {
                case .stop:
                    return
                case .chunk(let downstream, let chunk):
                    publisher.log.update { $0.chunks += 1 }
                    let more = downstream.receive(chunk)
                    if let n = more.max, n > 0 { state.withLock { $0.value.demand += n } }
                case .finish(let downstream):
                    downstream.receive(completion: .finished)
                    return
                case .fail(let downstream):
                    downstream.receive(completion: .failure(BodyTestError()))
                    return
                }
            }
        }

        func cancel() {
            publisher.log.update { $0.cancels += 1 }
            state.withLock { $0.value.downstream = nil }
        }
    }
}

/// Runs a ``ChunkPublisher`` subscription's deliveries (non-generic, so a
/// queue's closure captures no generic type).
protocol ChunkRunner: AnyObject {
    func run()
}

/// A value kept under a `Mutex` though it is not `Sendable` (tests only).
struct UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// The sink's answer: `"<bytes> <crc32> <framing> <connection>"`.
struct SinkReport: Equatable, CustomStringConvertible {
    var bytes: Int
    var crc: UInt
    var framing: String
    var connection: Int

    init?(_ outcome: Result<(data: Data, response: HTTPResponse), UVURLError>?) {
        guard let text = outcome?.text, outcome?.status == 200 else { return nil }
        let words = text.split(separator: " ")
        guard words.count == 4, let bytes = Int(words[0]), let crc = UInt(words[1]), let connection = Int(words[3]) else {
            return nil
        }
        self.bytes = bytes
        self.crc = crc
        framing = String(words[2])
        self.connection = connection
    }

    var description: String { "\(bytes) bytes, crc \(crc), \(framing), connection \(connection)" }
}

@Suite("UVURLSession streamed request bodies")
struct StreamedUploadTests {
    static func request(_ server: UploadSinkServer, _ path: String = "/sink", method: HTTPRequest.Method = .put) -> HTTPRequest {
        HTTPRequest(method: method, scheme: server.scheme, authority: server.authority, path: path)
    }

    @Test("over TLS: a chunked and a sized streamed body, on one pooled connection")
    func overTLS() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try UploadSinkServer(certificate: certificates.localhost, key: certificates.keyFile)
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
            let body = ChunkPublisher(totalBytes: 4 * 1024 * 1024 + 5, chunkSize: 100_000)
            let chunked = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body), on: loop))
            #expect(chunked?.bytes == body.totalBytes)
            #expect(chunked?.crc == body.crc)
            #expect(chunked?.framing == "chunked")
            let sized = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                                   contentLength: body.totalBytes), on: loop))
            #expect(sized?.crc == body.crc)
            #expect(sized?.framing == "length")
            #expect(sized?.connection == chunked?.connection)
            #expect(body.log.value.maximumOutstanding == 1)
            #expect(session.engine.peakUploadBytesInFlight <= body.chunkSize)
        }
    }

    #if DEBUG
    @Test("a reused connection that breaks at the first write: the idempotent PUT is retried on a fresh connection, subscribing to the body again")
    func retriedOnStaleConnection() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            defer { UVTCPFaultInjection.removeAll(on: loop) }
            let session = UVURLSession(loop: loop)
            let first = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), body: Data("a".utf8)), on: loop))
            #expect(first != nil)
            UVTCPFaultInjection.inject(UV_ECONNRESET.rawValue, at: .write, on: loop)
            let body = ChunkPublisher(totalBytes: 2_000_000)
            let report = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                                    contentLength: body.totalBytes), on: loop))
            #expect(report?.bytes == body.totalBytes)
            #expect(report?.crc == body.crc)
            #expect(report.map { $0.connection != first?.connection } == true)
            #expect(body.log.value.subscriptions == 2)
            #expect(body.log.value.cancels == 1, "the first sending was cancelled")
        }
    }
    #endif

    @Test("a body publisher with a length goes out with Content-Length, without one chunked; the sink gets every byte")
    func framing() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 1_000_003, chunkSize: 40_000)
            let sized = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                                   contentLength: body.totalBytes), on: loop))
            #expect(sized?.bytes == body.totalBytes)
            #expect(sized?.crc == body.crc)
            #expect(sized?.framing == "length")

            let chunked = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body), on: loop))
            #expect(chunked?.bytes == body.totalBytes)
            #expect(chunked?.crc == body.crc)
            #expect(chunked?.framing == "chunked")
            // Keep-alive after a complete streamed body.
            #expect(chunked?.connection == sized?.connection)

            var request = Self.request(server)
            request.headerFields[.contentLength] = "\(body.totalBytes)"
            let fromField = SinkReport(fetch(session.dataTaskPublisher(for: request, bodyPublisher: body), on: loop))
            #expect(fromField?.framing == "length")
            #expect(fromField?.crc == body.crc)
            #expect(body.log.value.subscriptions == 3)
            #expect(body.log.value.maximumOutstanding == 1, "one chunk asked at a time")
        }
    }

    @Test("synchronous publishers (Just, a sequence, Empty) as bodies")
    func synchronousPublishers() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let hello = Data("hello".utf8)
            let just = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: Just(hello)), on: loop))
            #expect(just?.bytes == 5)
            #expect(just?.framing == "chunked")
            let parts = [Data("a".utf8), Data(), Data("bc".utf8)]
            let sequence = SinkReport(fetch(session.dataTaskPublisher(
                for: Self.request(server), bodyPublisher: Publishers.Sequence<[Data], Never>(sequence: parts),
                contentLength: 3), on: loop))
            #expect(sequence?.bytes == 3)
            #expect(sequence?.framing == "length")
            let empty = SinkReport(fetch(session.dataTaskPublisher(
                for: Self.request(server), bodyPublisher: Empty<Data, Never>(), contentLength: 0), on: loop))
            #expect(empty?.bytes == 0)
            let emptyChunked = SinkReport(fetch(session.dataTaskPublisher(
                for: Self.request(server), bodyPublisher: Empty<Data, Never>()), on: loop))
            #expect(emptyChunked?.bytes == 0)
            #expect(emptyChunked?.framing == "chunked")
        }
    }

    @Test("a body publisher delivering on another thread")
    func crossThreadPublisher() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 3 * 1024 * 1024 + 17, queue: DispatchQueue(label: "body"))
            let report = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body), on: loop))
            #expect(report?.bytes == body.totalBytes)
            #expect(report?.crc == body.crc)
            #expect(body.log.value.maximumOutstanding == 1)
        }
    }

    @Test("a body shorter or longer than its Content-Length fails with requestBodyLengthMismatch; the pool serves the next request")
    func lengthMismatch() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 300_000)
            let short = fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                        contentLength: 400_000), on: loop)
            #expect(short?.error?.code == .requestBodyLengthMismatch)
            #expect(short?.error?.detail?.contains("finished after 300000 of the 400000 bytes") == true,
                    "\(String(describing: short?.error))")
            let long = fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                       contentLength: 200_000), on: loop)
            #expect(long?.error?.code == .requestBodyLengthMismatch)
            #expect(body.log.value.cancels == 1, "the publisher that sent too much was cancelled")
            let next = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body,
                                                                  contentLength: 300_000), on: loop))
            #expect(next?.bytes == 300_000)
            #expect(next?.crc == body.crc)
        }
    }

    @Test("a body publisher that fails midway fails the request (requestBodyFailed, naming its error), closes the connection, and the pool stays healthy")
    func failingBody() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let first = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), body: Data("warm".utf8)),
                                         on: loop))
            #expect(first?.bytes == 4)
            for length in [nil, 10_000_000] as [Int?] {
                let broken = ChunkPublisher(totalBytes: 10_000_000, failAfterChunks: 5)
                let outcome = fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: broken,
                                                              contentLength: length), on: loop)
                #expect(outcome?.error?.code == .requestBodyFailed)
                #expect(outcome?.error?.detail == "the body publisher failed: the test body broke")
                #expect(broken.log.value.chunks == 5)
            }
            let after = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), body: Data("next".utf8)),
                                         on: loop))
            #expect(after?.bytes == 4)
            #expect(after.map { $0.connection > first!.connection } == true, "a fresh connection: \(String(describing: after))")
            #expect(session.engine.connectionCount == 1)
        }
    }

    @Test("cancelling the task mid-upload cancels the body publisher and closes the connection")
    func cancelMidUpload() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 1 << 30)
            var cancellable: AnyCancellable?
            var completions = 0
            var sent: Int64 = 0
            cancellable = session.dataTaskPublisher(for: Self.request(server, "/slow"), bodyPublisher: body,
                                                    contentLength: body.totalBytes) { progress in
                sent = progress.bytesSent
                if progress.bytesSent >= 4 * 1024 * 1024 { cancellable?.cancel() }
            }
            .sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { _ in completions += 1 })
            loop.run()
            #expect(completions == 0, "a cancelled task sends nothing")
            #expect(sent >= 4 * 1024 * 1024)
            #expect(body.log.value.cancels == 1)
            #expect(session.engine.connectionCount == 0)
            _ = cancellable
        }
    }

    @Test("a body publisher that never sends: the idle timeout fails the task and cancels it")
    func stalledBody() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.idleReadTimeout = .milliseconds(200)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let body = ChunkPublisher(totalBytes: 100, stalls: true)
            let outcome = fetch(session.dataTaskPublisher(for: Self.request(server), bodyPublisher: body), on: loop)
            #expect(outcome?.error?.code == .timedOut)
            #expect(outcome?.error?.timeoutKind == .idleRead)
            #expect(body.log.value.cancels == 1)
        }
    }

    @Test("a response that ends before the body was sent (413) is delivered; the body is cancelled")
    func earlyResponse() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 1 << 30)
            let outcome = fetch(session.dataTaskPublisher(for: Self.request(server, "/early"), bodyPublisher: body,
                                                          contentLength: body.totalBytes), on: loop)
            #expect(outcome?.status == 413, "\(String(describing: outcome))")
            #expect(body.log.value.cancels == 1)
            let next = SinkReport(fetch(session.dataTaskPublisher(for: Self.request(server), body: Data("x".utf8)), on: loop))
            #expect(next?.bytes == 1)
        }
    }

    @Test("307 and 308 send the body again from a new subscription; 303 drops it")
    func redirects() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            for code in [307, 308] {
                let body = ChunkPublisher(totalBytes: 500_000)
                let report = SinkReport(fetch(session.dataTaskPublisher(
                    for: Self.request(server, "/redirect/\(code)"), bodyPublisher: body, contentLength: body.totalBytes), on: loop))
                #expect(report?.bytes == body.totalBytes, "\(code)")
                #expect(report?.crc == body.crc, "\(code)")
                #expect(body.log.value.subscriptions == 2, "\(code)")
            }
            let body = ChunkPublisher(totalBytes: 500_000)
            let report = SinkReport(fetch(session.dataTaskPublisher(
                for: Self.request(server, "/redirect/303", method: .post), bodyPublisher: body), on: loop))
            #expect(report?.bytes == 0)
            #expect(body.log.value.subscriptions == 1)
        }
    }

    @Test("a 256 MiB streamed upload keeps one chunk in flight (flat memory) and reports monotonic progress to the end")
    func largeUploadFlatMemory() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 256 * 1024 * 1024, chunkSize: 256 * 1024)
            var reports: [UVURLSession.UploadProgress] = []
            let report = SinkReport(fetch(session.dataTaskPublisher(
                for: Self.request(server), bodyPublisher: body, contentLength: body.totalBytes) { reports.append($0) },
                on: loop))
            #expect(report?.bytes == body.totalBytes)
            #expect(report?.crc == body.crc)
            #expect(body.log.value.maximumOutstanding == 1)
            #expect(session.engine.peakUploadBytesInFlight <= body.chunkSize,
                    "peak \(session.engine.peakUploadBytesInFlight) bytes in flight")
            #expect(reports.last == UVURLSession.UploadProgress(bytesSent: Int64(body.totalBytes),
                                                                totalBytesExpectedToSend: Int64(body.totalBytes)))
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesSent < $1.bytesSent })
        }
    }

    @Test("uploadTaskPublisher(fromFile:) sends the file with its size as Content-Length; a missing file is cannotOpenFile")
    func fileUpload() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-upload-\(UUID().uuidString).bin")
        let count = 5 * 1024 * 1024 + 99
        try ChunkPublisher.bytes(at: 0, count: count).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var last: UVURLSession.UploadProgress?
            let publisher = session.uploadTaskPublisher(for: Self.request(server), fromFile: file) { last = $0 }
            let report = SinkReport(fetch(publisher, on: loop))
            #expect(report?.bytes == count)
            #expect(report?.crc == ChunkPublisher.crc(of: count))
            #expect(report?.framing == "length")
            #expect(last?.fractionCompleted == 1)
            // Each subscription reads the file again.
            #expect(SinkReport(fetch(publisher, on: loop))?.crc == ChunkPublisher.crc(of: count))

            let missing = fetch(session.uploadTaskPublisher(
                for: Self.request(server), fromFile: URL(fileURLWithPath: "/nonexistent/uvcombine.bin")), on: loop)
            #expect(missing?.error?.code == .cannotOpenFile)
            #expect(missing?.error?.detail == "/nonexistent/uvcombine.bin: No such file or directory")
        }
    }

    @Test("the streaming response variant with a streamed body")
    func bytesPublisherWithBody() throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 123_456)
            var text = ""
            var status = 0
            var completion: Subscribers.Completion<UVURLError>?
            let cancellable = session.bytesPublisher(for: Self.request(server), bodyPublisher: body)
                .sink(receiveCompletion: { completion = $0 }, receiveValue: { part in
                    switch part {
                    case .head(let response): status = response.status.code
                    case .body(let data): text += String(decoding: data, as: UTF8.self)
                    }
                })
            withExtendedLifetime(cancellable) { _ = loop.run() }
            #expect(status == 200)
            #expect(text.hasPrefix("123456 \(body.crc) chunked"))
            if case .finished? = completion {} else { Issue.record("\(String(describing: completion))") }
        }
    }

    @Test("async upload(for:fromPublisher:), upload(for:from:) an AsyncSequence, and upload(for:fromFile:)")
    func asyncUploads() async throws {
        let server = try UploadSinkServer()
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-upload-\(UUID().uuidString).bin")
        try ChunkPublisher.bytes(at: 0, count: 700_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withLoopThread { loop in
            let session = UVURLSession(loop: loop)
            let body = ChunkPublisher(totalBytes: 2_000_000)
            let (data, response) = try await session.upload(for: Self.request(server), fromPublisher: body,
                                                            contentLength: body.totalBytes)
            #expect(response.status == .ok)
            #expect(String(decoding: data, as: UTF8.self).hasPrefix("2000000 \(body.crc) length"))
            let (fileData, _) = try await session.upload(for: Self.request(server), fromFile: file)
            #expect(String(decoding: fileData, as: UTF8.self).hasPrefix("700000 \(ChunkPublisher.crc(of: 700_000)) length"))
            let stream = AsyncStream<Data> { continuation in
                for index in 0..<100 { continuation.yield(ChunkPublisher.bytes(at: index * 10_000, count: 10_000)) }
                continuation.finish()
            }
            let (streamed, _) = try await session.upload(for: Self.request(server), from: stream)
            #expect(String(decoding: streamed, as: UTF8.self).hasPrefix("1000000 \(ChunkPublisher.crc(of: 1_000_000)) chunked"))
            let throwing = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data("partial".utf8))
                continuation.finish(throwing: BodyTestError())
            }
            let thrown = await thrownError { try await session.upload(for: Self.request(server), from: throwing) }
            #expect(isURLError(thrown, .requestBodyFailed))
            let broken = ChunkPublisher(totalBytes: 2_000_000, failAfterChunks: 2)
            let error = await thrownError { try await session.upload(for: Self.request(server), fromPublisher: broken) }
            #expect(isURLError(error, .requestBodyFailed))
        }
    }
}
