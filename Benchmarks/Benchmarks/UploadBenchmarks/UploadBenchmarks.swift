import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Foundation
import HTTPTypes
import LoopSupport
import NIOCore
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

// Streamed uploads (issue 19): one PUT of a 256 MiB body per iteration to a
// local sink (``UploadSink``, in this executable on a loop thread of its
// own: it reads and drops the body, then answers 200), each client sending
// the body as a stream with a known length:
//
// - `uvcombine.publisher`: `dataTaskPublisher(for:bodyPublisher:contentLength:)`
//   with a publisher of 256 KiB chunks (one `Data` made once, sent 1,024
//   times), the session asking for one chunk per completed write.
// - `uvcombine.file`: `uploadTaskPublisher(for:fromFile:)` of a 256 MiB
//   file in the page cache (written before the run), read in 256 KiB chunks.
// - `asyncHTTPClient`: `HTTPClientRequest.Body.stream(_:length: .known)` of
//   an `AsyncSequence` of 256 KiB `ByteBuffer`s (one buffer made once), the
//   async API, as AsyncHTTPClient's documentation shows it.
//
// Elements are bytes, so the report gives MiB/s. Memory is the process's
// peak resident set (`peakMemoryResident`, sampled by package-benchmark)
// and its rise over the run (`peakMemoryResidentDelta`): with demand driven
// by the socket both stay flat, whatever the body's size.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    registerUploads()
}

enum UploadWorkload {
    /// The body of one upload: 256 MiB.
    static let bodyLength = 256 << 20
    /// The chunk each client sends at a time.
    static let chunkLength = 256 << 10

    /// CPU time of the sink's thread during the measured region.
    static let serverCPUTime = BenchmarkMetric.custom("serverCPUTime", polarity: .prefersSmaller,
                                                      useScalingFactor: false)
    /// The process's CPU time less the sink's: the client's, on every
    /// thread it uses (AsyncHTTPClient's event loop, the task's thread).
    static let clientCPUTime = BenchmarkMetric.custom("clientCPUTime", polarity: .prefersSmaller,
                                                      useScalingFactor: false)

    static func configuration() -> Benchmark.Configuration {
        var configuration = Workload.configuration(maxIterations: 15, maxDuration: .seconds(20))
        configuration.metrics += [.peakMemoryResident, .peakMemoryResidentDelta, serverCPUTime, clientCPUTime]
        configuration.units[.peakMemoryResident] = .count
        configuration.units[.peakMemoryResidentDelta] = .count
        configuration.units[serverCPUTime] = .count
        configuration.units[clientCPUTime] = .count
        return configuration
    }

    /// A 256 MiB file for `uvcombine.file`, written once per process.
    static let file: URL = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("uvcombine-upload-bench-\(getpid()).bin")
        let chunk = Data(repeating: 0x5A, count: chunkLength)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: url) else { fatalError("cannot write \(url.path)") }
        for _ in 0..<(bodyLength / chunkLength) { handle.write(chunk) }
        try? handle.close()
        atexit { try? FileManager.default.removeItem(at: UploadWorkload.file) }
        return url
    }()
}

func registerUploads() {
    let configuration = UploadWorkload.configuration()
    let length = UploadWorkload.bodyLength

    Benchmark("Upload.stream256MiB.uvcombine.publisher", configuration: configuration) { benchmark in
        let runner = UploadRunner(port: UploadSink.shared.port)
        runner.run(runner.publisherUpload())
        benchmark.measureUpload(elements: length) {
            runner.run(runner.publisherUpload())
        }
        runner.close()
    }

    Benchmark("Upload.stream256MiB.uvcombine.file", configuration: configuration) { benchmark in
        let runner = UploadRunner(port: UploadSink.shared.port)
        runner.run(runner.fileUpload(UploadWorkload.file))
        benchmark.measureUpload(elements: length) {
            runner.run(runner.fileUpload(UploadWorkload.file))
        }
        runner.close()
    }

    Benchmark("Upload.stream256MiB.asyncHTTPClient", configuration: configuration) { benchmark in
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let url = "http://127.0.0.1:\(UploadSink.shared.port)/upload"
        try await upload(with: client, to: url)
        let sink = UploadSink.shared
        benchmark.startMeasurement()
        let serverStart = sink.cpuNanoseconds()
        let processStart = Workload.processCPUNanoseconds()
        let cpuStart = Workload.threadCPUNanoseconds()
        try await upload(with: client, to: url)
        let cpuEnd = Workload.threadCPUNanoseconds()
        let processEnd = Workload.processCPUNanoseconds()
        let serverEnd = sink.cpuNanoseconds()
        benchmark.stopMeasurement()
        benchmark.measurement(Workload.threadCPUTime, cpuEnd - cpuStart)
        benchmark.measurement(Workload.processCPUTime, processEnd - processStart)
        benchmark.measurement(Workload.elements, length)
        benchmark.measurement(UploadWorkload.serverCPUTime, serverEnd - serverStart)
        benchmark.measurement(UploadWorkload.clientCPUTime, (processEnd - processStart) - (serverEnd - serverStart))
        try await client.shutdown()
    }
}

extension Benchmark {
    /// ``measure(elements:_:)`` that also records the sink's CPU time and
    /// the client's (the process's less the sink's).
    func measureUpload(elements: Int, _ body: () -> Void) {
        let sink = UploadSink.shared
        var serverTime = 0
        var processTime = 0
        measure(elements: elements) {
            let serverStart = sink.cpuNanoseconds()
            let processStart = Workload.processCPUNanoseconds()
            body()
            processTime = Workload.processCPUNanoseconds() - processStart
            serverTime = sink.cpuNanoseconds() - serverStart
        }
        measurement(UploadWorkload.serverCPUTime, serverTime)
        measurement(UploadWorkload.clientCPUTime, processTime - serverTime)
    }
}

/// One streamed PUT on AsyncHTTPClient's async API.
func upload(with client: HTTPClient, to url: String) async throws {
    var request = HTTPClientRequest(url: url)
    request.method = .PUT
    request.body = .stream(ChunkSequence(), length: .known(Int64(UploadWorkload.bodyLength)))
    let response = try await client.execute(request, timeout: .seconds(60))
    _ = try await response.body.collect(upTo: 1 << 20)
    precondition(response.status == .ok, "AsyncHTTPClient upload: \(response.status)")
}

/// 1,024 × the same 256 KiB `ByteBuffer` (copy-on-write: never copied).
struct ChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    static let chunk = ByteBuffer(repeating: 0x5A, count: UploadWorkload.chunkLength)

    struct AsyncIterator: AsyncIteratorProtocol {
        var left = UploadWorkload.bodyLength / UploadWorkload.chunkLength
        mutating func next() async -> ByteBuffer? {
            guard left > 0 else { return nil }
            left -= 1
            return ChunkSequence.chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// 1,024 × the same 256 KiB `Data`, one per unit of demand, on the thread
/// that asked: the body publisher of `uvcombine.publisher`.
struct ChunkPublisher: Publisher {
    typealias Output = Data
    typealias Failure = Never
    static let chunk = Data(repeating: 0x5A, count: UploadWorkload.chunkLength)

    func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == Never {
        subscriber.receive(subscription: Inner(subscriber))
    }

    /// Loop thread only (the session asks there); re-entrant requests add
    /// demand for the loop already running.
    final class Inner<S: Subscriber>: Subscription where S.Input == Data, S.Failure == Never {
        private var downstream: S?
        private var left = UploadWorkload.bodyLength / UploadWorkload.chunkLength
        private var demand = Subscribers.Demand.none
        private var delivering = false

        init(_ downstream: S) {
            self.downstream = downstream
        }

        func request(_ more: Subscribers.Demand) {
            demand += more
            guard !delivering else { return }
            delivering = true
            while demand > .none, let downstream {
                if left == 0 {
                    self.downstream = nil
                    downstream.receive(completion: .finished)
                    break
                }
                left -= 1
                demand -= 1
                demand += downstream.receive(ChunkPublisher.chunk)
            }
            delivering = false
        }

        func cancel() {
            downstream = nil
        }
    }
}

/// Runs uploads on a ``UVURLSession`` on a loop of the calling thread.
final class UploadRunner {
    let loop: UVLoop
    let session: UVURLSession
    let request: HTTPRequest
    private var cancellable: AnyCancellable?
    private var failure: UVURLError?
    private var status = 0

    init(port: Int) {
        loop = makeLoop()
        session = UVURLSession(loop: loop)
        request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:\(port)", path: "/upload")
    }

    func publisherUpload() -> UVURLSession.DataTaskPublisher {
        session.dataTaskPublisher(for: request, bodyPublisher: ChunkPublisher(), contentLength: UploadWorkload.bodyLength)
    }

    func fileUpload(_ file: URL) -> UVURLSession.DataTaskPublisher {
        session.uploadTaskPublisher(for: request, fromFile: file)
    }

    /// Runs one upload to its end.
    func run(_ publisher: UVURLSession.DataTaskPublisher) {
        cancellable = publisher.sink(receiveCompletion: { [unowned self] completion in
            if case .failure(let error) = completion { self.failure = error }
        }, receiveValue: { [unowned self] value in
            self.status = value.response.status.code
        })
        loop.run()
        cancellable = nil
        if let failure { fatalError("UploadRunner: the upload failed: \(failure)") }
        precondition(status == 200, "UploadRunner: status \(status)")
        status = 0
    }

    func close() {
        session.invalidateAndCancel()
        finish(loop)
    }
}

/// The local sink: on a ``UVLoopThread`` of its own, it reads each
/// request's head, then `Content-Length` body bytes (counted and dropped
/// in libuv's read buffer), then answers `200` with an empty body,
/// keep-alive. Started on first use; runs until the process exits.
final class UploadSink: @unchecked Sendable {
    // @unchecked Sendable: set in init, never changed; the handlers run on
    // the sink's loop thread.

    static let shared = UploadSink()

    let thread: UVLoopThread
    let port: Int
    /// The sink thread's CPU-time clock.
    let cpuClock: clockid_t

    private init() {
        do {
            thread = try UVLoopThread()
        } catch {
            fatalError("UploadSink: UVLoopThread(): \(error)")
        }
        let loop = thread.loop
        let started = DispatchSemaphore(value: 0)
        let box = PortBox()
        loop.schedule {
            do {
                let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
                    connection.handler = SinkConnection()
                    connection.startReading()
                }
                box.port = listener.port
                var clock = clockid_t()
                pthread_getcpuclockid(pthread_self(), &clock)
                box.clock = clock
            } catch {
                fatalError("UploadSink: listen: \(error)")
            }
            started.signal()
        }
        started.wait()
        port = box.port
        cpuClock = box.clock
    }

    /// The sink thread's CPU time so far, in nanoseconds. Any thread.
    func cpuNanoseconds() -> Int {
        Workload.cpuNanoseconds(cpuClock)
    }
}

private final class PortBox: @unchecked Sendable {
    var port = 0
    var clock = clockid_t()
}

/// One sink connection: head bytes up to CR LF CR LF (kept to find
/// `Content-Length`), then the body counted down.
private final class SinkConnection: UVTCPConnectionHandler {
    private static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
    private var head: [UInt8] = []
    private var bodyLeft = 0
    private var inBody = false

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            if inBody {
                let n = min(bodyLeft, bytes.count - index)
                bodyLeft -= n
                index += n
                if bodyLeft == 0 {
                    inBody = false
                    connection.write(Self.response)
                }
                continue
            }
            head.append(bytes[index])
            index += 1
            if head.count >= 4 && head[head.count - 4] == 13 && head[head.count - 3] == 10
                && head[head.count - 2] == 13 && head[head.count - 1] == 10 {
                bodyLeft = Self.contentLength(head)
                head.removeAll(keepingCapacity: true)
                if bodyLeft > 0 {
                    inBody = true
                } else {
                    connection.write(Self.response)
                }
            }
        }
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        connection.close()
    }

    private static func contentLength(_ head: [UInt8]) -> Int {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let range = text.range(of: "content-length:") else { return 0 }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
        return Int(digits) ?? 0
    }
}
