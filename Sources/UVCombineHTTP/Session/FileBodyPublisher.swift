import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import UVCombineCore
import UVCombineHTTPCore

/// A file's bytes as a publisher of `Data` chunks, read on demand: each
/// unit of demand reads one chunk (`read(2)` of up to ``chunkSize``
/// bytes) on the thread that asked, so a file is never loaded whole. The
/// session's streamed upload asks for one chunk at a time on its loop
/// thread, when the previous one was written.
///
/// Each subscription opens the file anew at its first demand (so a
/// redirect or retry that sends the body again reads it again from the
/// start) and closes it when the end is reached, on failure and on
/// cancel. A file that cannot be opened or read fails with
/// `UVURLError/Code/cannotOpenFile`.
///
/// Threading: subscribe, request and cancel from any thread; values go
/// out on the thread that requested them.
internal struct FileBodyPublisher: Publisher, Sendable {
    internal typealias Output = Data
    internal typealias Failure = UVURLError

    /// The file.
    internal let path: String
    /// The largest chunk read at once.
    internal let chunkSize: Int

    /// The default chunk: large enough that a loop iteration per chunk
    /// does not limit throughput, small enough for flat memory.
    internal static let defaultChunkSize = 256 * 1024

    internal init(path: String, chunkSize: Int = FileBodyPublisher.defaultChunkSize) {
        precondition(chunkSize > 0, "FileBodyPublisher: chunkSize must be positive")
        self.path = path
        self.chunkSize = chunkSize
    }

    /// The file's size, or the `.cannotOpenFile` error that says why it
    /// has none (missing, not a regular file).
    internal static func size(of path: String) -> Result<Int, UVURLError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(openError(path, errno))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(UVURLError(.cannotOpenFile, detail: "\(path): not a regular file"))
        }
        return .success(Int(info.st_size))
    }

    internal static func openError(_ path: String, _ code: Int32) -> UVURLError {
        UVURLError(.cannotOpenFile, detail: "\(path): \(String(cString: strerror(code)))")
    }

    internal func receive<S: Subscriber>(subscriber: S) where S.Input == Data, S.Failure == UVURLError {
        subscriber.receive(subscription: FileBodySubscription(publisher: self, downstream: subscriber))
    }
}

/// What a file subscription's delivery loop does next.
private enum FileReadStep { case read, stop, release }

/// One reading of the file. Demand is counted under a lock; one thread
/// at a time reads and delivers (a request made during a delivery adds
/// demand for the loop already running), so chunks go out in order and
/// never beyond demand.
private final class FileBodySubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable
    where Downstream.Input == Data, Downstream.Failure == UVURLError
{
    // @unchecked Sendable: `state` is behind its mutex; `descriptor` and
    // `downstream` are used only by the thread that set `isDelivering`.

    private struct State {
        var demand = Subscribers.Demand.none
        var isDelivering = false
        var isDone = false
        /// The file was closed and the subscriber let go (exactly once).
        var isReleased = false
    }

    private let state = Mutex(State())
    private let publisher: FileBodyPublisher
    private var downstream: Downstream?
    private var descriptor: Int32 = -1

    init(publisher: FileBodyPublisher, downstream: Downstream) {
        self.publisher = publisher
        self.downstream = downstream
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Subscription.request(.none): demand must not be zero")
        let runs = state.withLock { state -> Bool in
            guard !state.isDone else { return false }
            state.demand += demand
            if state.isDelivering { return false }
            state.isDelivering = true
            return true
        }
        if runs { deliverWhileDemanded() }
    }

    func cancel() {
        let releases = state.withLock { state -> Bool in
            state.isDone = true
            return claimRelease(&state)
        }
        if releases { finishReading() }
    }

    /// Whether the caller releases the file and the subscriber: once, and
    /// never while another thread delivers (that one releases).
    private func claimRelease(_ state: inout State) -> Bool {
        guard state.isDone, !state.isDelivering, !state.isReleased else { return false }
        state.isReleased = true
        return true
    }

    /// Reads and sends chunks while there is demand. Runs on one thread at
    /// a time (the one that set `isDelivering`).
    private func deliverWhileDemanded() {
        while true {
            let next = state.withLock { state -> FileReadStep in
                guard !state.isDone, state.demand > .none else {
                    state.isDelivering = false
                    return claimRelease(&state) ? .release : .stop
                }
                state.demand -= 1
                return .read
            }
            switch next {
            case .read: break
            case .stop: return
            case .release:
                finishReading()
                return
            }
            switch readChunk() {
            case .success(let chunk?):
                guard let downstream else { return }
                let more = downstream.receive(chunk)
                if more > .none { state.withLock { $0.demand += more } }
            case .success(nil):
                complete(.finished)
            case .failure(let error):
                complete(.failure(error))
            }
        }
    }

    private func complete(_ completion: Subscribers.Completion<UVURLError>) {
        let downstream = self.downstream
        state.withLock { state in
            state.isDone = true
            state.isDelivering = false
            state.isReleased = true
        }
        finishReading()
        downstream?.receive(completion: completion)
    }

    private func finishReading() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        downstream = nil
    }

    /// The next chunk, nil at the end of the file.
    private func readChunk() -> Result<Data?, UVURLError> {
        if descriptor < 0 {
            let opened = open(publisher.path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { return .failure(FileBodyPublisher.openError(publisher.path, errno)) }
            descriptor = opened
        }
        guard let buffer = malloc(publisher.chunkSize) else {
            return .failure(UVURLError(.cannotOpenFile, detail: "\(publisher.path): out of memory"))
        }
        var count = 0
        while true {
            let n = read(descriptor, buffer, publisher.chunkSize)
            if n >= 0 {
                count = n
                break
            }
            if errno == EINTR { continue }
            let error = FileBodyPublisher.openError(publisher.path, errno)
            free(buffer)
            return .failure(error)
        }
        guard count > 0 else {
            free(buffer)
            return .success(nil)
        }
        return .success(Data(bytesNoCopy: buffer, count: count, deallocator: .free))
    }
}
