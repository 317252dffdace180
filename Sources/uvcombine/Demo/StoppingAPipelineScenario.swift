import Foundation
import UVCombine

/// "Stopping a Pipeline" (Understanding Combine): a pipeline stops by
/// cancellation, told to the `AnyCancellable` in the `storage` set
/// (`storage.first?.cancel()`) or by letting it go out of existence
/// (`storage.removeFirst()`); the cancel percolates up to the publisher,
/// which stops publishing. A finite publisher (the data task) stops by
/// completion, after which a cancel does nothing.
///
/// The chapter's notification center publisher, as the chapter spells it
/// (`NotificationCenter.default.publisher(for:
/// UIWindowScene.didEnterBackgroundNotification)`); a timer on the loop
/// plays the system and posts the notification every 0.2 s, and keeps
/// posting after the cancel, so a pipeline that did not stop would show.
struct StoppingAPipelineScenario: DemoScenario {
    let title = "Stopping a pipeline: cancel(), removal from the set, and completion"
    let source = "Understanding Combine, \"Stopping a Pipeline\""
    let verdict = "cancel() and removeFirst() stopped the publisher upstream; the data task stopped by completing"

    func run(_ demo: DemoContext) -> [String] {
        var problems: [String] = []
        problems += cancellation(demo, byRemoving: false)
        say("")
        problems += cancellation(demo, byRemoving: true)
        say("")
        problems += completion(demo)
        return problems
    }

    /// A forever-publishing pipeline stopped through its AnyCancellable,
    /// after two notifications.
    private func cancellation(_ demo: DemoContext, byRemoving: Bool) -> [String] {
        let log = demo.log
        var storage = Set<AnyCancellable>()
        var notifications = 0
        var cancelsSeenUpstream = 0
        log("NotificationCenter.default.publisher(for: UIWindowScene.didEnterBackgroundNotification)")
        log("    .sink { _ in print(\"we're going into the background!\") }.store(in: &self.storage)")
        NotificationCenter.default.publisher(
            for: UIWindowScene.didEnterBackgroundNotification)
            .handleEvents(receiveCancel: {
                cancelsSeenUpstream += 1
                log("the cancel message percolated up the pipeline: the publisher stops publishing")
            })
            .sink { _ in
                notifications += 1
                log("we're going into the background!")
            }
            .store(in: &storage)
        // The system's part: the scene enters the background every 0.2 s,
        // four times, before and after the cancel.
        var posts = Set<AnyCancellable>()
        UVTimer.publish(every: demo.stride(0.2), on: demo.loop)
            .autoconnect()
            .prefix(4)
            .sink { _ in
                NotificationCenter.default.post(name: UIWindowScene.didEnterBackgroundNotification, object: nil)
            }
            .store(in: &posts)
        demo.after(0.5) {
            if byRemoving {
                log("self.storage.removeFirst(): the AnyCancellable goes out of existence and cancels itself")
                storage.removeFirst()
            } else {
                log("self.storage.first?.cancel()")
                storage.first?.cancel()
            }
        }
        demo.run()

        let how = byRemoving ? "removeFirst()" : "cancel()"
        var problems: [String] = []
        if notifications != 2 {
            problems.append("\(how): expected 2 notifications before stopping, saw \(notifications)")
        }
        if cancelsSeenUpstream != 1 {
            problems.append("\(how): the cancel reached the publisher \(cancelsSeenUpstream) times, expected once")
        }
        if byRemoving && !storage.isEmpty {
            problems.append("removeFirst() left \(storage.count) cancellables in the set")
        }
        return problems
    }

    /// The data task publisher completes by itself; a later cancel finds
    /// nothing to tear down.
    private func completion(_ demo: DemoContext) -> [String] {
        let log = demo.log
        let session = UVURLSession(loop: demo.loop)
        var storage = Set<AnyCancellable>()
        var images: [PNGImage] = []
        var completions: [String] = []
        var cancelsSeenUpstream = 0
        log("URLSession.shared.dataTaskPublisher(for: url).compactMap { UIImage(data: $0.data) }")
        log("    .receive(on: loop).sink(receiveCompletion: { … }) { self.iv.image = $0 }.store(in: &self.storage)")
        session.dataTaskPublisher(for: demo.server.url("/image.png"))
            .handleEvents(receiveCancel: { cancelsSeenUpstream += 1 })
            .compactMap { PNGImage(data: $0.data) }
            .receive(on: demo.loop)
            .sink(receiveCompletion: {
                completions.append("\($0)")
                log("Received completion: \($0). The publisher's job is done.")
            }) { image in
                images.append(image)
                log("self.iv.image = \(image)")
            }
            .store(in: &storage)
        demo.run()
        log("self.storage.first?.cancel() after the completion: the pipeline has already been torn down")
        storage.first?.cancel()

        var problems: [String] = []
        if images != [PNGImage(data: Data(DemoRoutes.image))!] {
            problems.append("completion: expected the 64×48 image, saw \(images)")
        }
        if completions != ["finished"] {
            problems.append("completion: expected one .finished, saw \(completions)")
        }
        if cancelsSeenUpstream != 0 {
            problems.append("completion: a cancel after completion still reached the publisher")
        }
        return problems
    }
}

/// UIKit's notification name, which the chapter observes (UIKit is not on
/// Linux).
private enum UIWindowScene {
    static let didEnterBackgroundNotification = Notification.Name("UIWindowSceneDidEnterBackgroundNotification")
}
