import Foundation
import LoopSupport
import UVCombine

/// One UVWebSocketTask on a loop of the calling thread (``makeLoop()``),
/// driven as a user writes it: `send(_:completionHandler:)` and
/// `receive(completionHandler:)` for the echo workloads, the `messages`
/// publisher with `sink` for the receive-only one, and `receiveBorrowed(_:)`
/// for the receive-only one without a copy. Each call runs the loop
/// until the exchange is over; closures capture this one object, so they
/// allocate no context.
///
/// `@unchecked Sendable`: the task's handlers are `@Sendable`, but they run
/// on the loop's thread, which is the thread that made this object and
/// runs the loop; nothing else touches it.
final class UVCombineClient: @unchecked Sendable {
    let loop: UVLoop
    let session: UVURLSession
    let task: UVWebSocketTask
    private var message = UVWebSocketTask.Message.data(Data())
    private var toSend = 0
    private var toReceive = 0
    private(set) var receivedBytes = 0
    private var failure: WebSocketError?
    private var pushed: AnyCancellable?

    /// Opens a task to `url` and waits for the handshake.
    init(url: URL) {
        loop = makeLoop()
        session = UVURLSession(loop: loop)
        var options = UVWebSocketTask.Options()
        options.compression = nil
        task = session.webSocketTask(with: url, options: options)
        task.maximumMessageSize = 1 << 20
        task.resume()
        task.sendPing { [self] error in if let error { failure = error } }
        loop.run()
        check()
    }

    /// Sends `count` messages, at most `window` awaiting their echo, and
    /// receives every echo.
    func echo(count: Int, window: Int, message: UVWebSocketTask.Message) {
        self.message = message
        toSend = count
        toReceive = count
        for _ in 0..<min(window, count) { sendOne() }
        receiveOne()
        loop.run()
        check()
        precondition(toReceive == 0, "UVCombineClient: \(toReceive) echoes missing")
    }

    /// Asks the server (`/push`) for `count` messages of `size` bytes and
    /// receives them through `messages` and `sink`.
    func receivePushed(count: Int, size: Int) {
        toReceive = count
        pushed = task.messages.sink(receiveCompletion: { [self] completion in
            if case .failure(let error) = completion { failure = error }
        }, receiveValue: { [self] message in
            if case .data(let data) = message { receivedBytes &+= data.count }
            toReceive -= 1
            if toReceive == 0 { pushed?.cancel() }
        })
        task.send(.string("\(count) \(size)")) { [self] error in if let error { failure = error } }
        loop.run()
        check()
        precondition(toReceive == 0, "UVCombineClient: \(toReceive) pushed messages missing")
    }

    /// Asks the server (`/push`) for `count` messages of `size` bytes and
    /// receives them with `receiveBorrowed(_:)`: each message lent from the
    /// read buffer, nothing copied or allocated per message.
    func receivePushedBorrowed(count: Int, size: Int) {
        toReceive = count
        receiveBorrowedOne()
        task.send(.string("\(count) \(size)")) { [self] error in if let error { failure = error } }
        loop.run()
        check()
        precondition(toReceive == 0, "UVCombineClient: \(toReceive) pushed messages missing")
    }

    private func receiveBorrowedOne() {
        task.receiveBorrowed { [self] result in
            switch result {
            case .success(let message):
                receivedBytes &+= message.bytes.count
                toReceive -= 1
                if toReceive > 0 { receiveBorrowedOne() }
            case .failure(let error):
                failure = error
            }
        }
    }

    private func sendOne() {
        toSend -= 1
        task.send(message) { [self] error in if let error { failure = error } }
    }

    private func receiveOne() {
        task.receive { [self] result in
            switch result {
            case .success(let message):
                if case .data(let data) = message { receivedBytes &+= data.count }
                toReceive -= 1
                if toSend > 0 { sendOne() }
                if toReceive > 0 { receiveOne() }
            case .failure(let error):
                failure = error
            }
        }
    }

    private func check() {
        if let failure { fatalError("UVCombineClient: \(failure)") }
    }

    /// The close handshake, then the loop's end.
    func close() {
        task.cancel(with: .normalClosure, reason: nil)
        finish(loop)
    }
}
