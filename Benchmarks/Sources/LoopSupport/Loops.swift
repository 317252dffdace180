import UVCombine

/// A loop made for one iteration and already run once on the calling thread,
/// so that the calling thread is its thread from then on: timers connected
/// and tasks started from here open at once instead of going through the
/// cross-thread queue.
public func makeLoop() -> UVLoop {
    do {
        let loop = try UVLoop()
        loop.run(.noWait)
        return loop
    } catch {
        fatalError("UVLoop(): \(error)")
    }
}

/// Lets the loop run what is still pending (close callbacks, closing
/// connections), then closes it.
public func finish(_ loop: UVLoop) {
    loop.run()
    do {
        try loop.close()
    } catch {
        fatalError("UVLoop.close(): \(error)")
    }
}
