import CLibUV
import UVCombineCore

/// The Swift side of one libuv handle: non-generic, so that the C callbacks
/// (which capture nothing) can reach it through `handle.data`.
///
/// Rules (docs/engineering-notes.md, "libuv handles: who owns what"):
/// - the handle's memory is allocated here and freed only in the close
///   callback;
/// - `handle.data` holds a retained reference to the owner from `open` until
///   that callback, so the owner outlives every callback;
/// - `deinit` only checks that the handle was closed (or never opened).
///
/// Everything except construction happens on the loop thread; subclasses
/// document the few members other threads may use.
internal class UVHandleOwner {
    internal enum Phase {
        /// Not opened yet (its open job may still be queued).
        case idle
        case open
        case closing
        /// Closed, or abandoned before it was opened.
        case closed
    }

    internal let loop: UVLoop

    // MARK: Loop thread only

    internal var phase: Phase = .idle
    /// The handle while open or closing.
    internal var handle: UnsafeMutablePointer<uv_handle_t>?
    /// Links in the loop's registry of open handles.
    internal var previousOwner: Unmanaged<UVHandleOwner>?
    internal var nextOwner: Unmanaged<UVHandleOwner>?

    internal init(loop: UVLoop) {
        self.loop = loop
    }

    deinit {
        if phase == .open || phase == .closing { violation("a libuv handle owner was deinitialised while its handle was open") }
    }

    /// Opens the handle: subclasses allocate and initialise it, then call
    /// ``didOpen(_:)``. Loop thread.
    internal func open() {
        violation("abstract UVHandleOwner.open()")
    }

    /// Takes ownership of an initialised handle: retains `self` in its data
    /// and registers with the loop. Loop thread.
    internal final func didOpen(_ handle: UnsafeMutablePointer<uv_handle_t>) {
        if phase != .idle { violation("a libuv handle owner was opened twice") }
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        self.handle = handle
        phase = .open
        loop.owners.insert(self)
    }

    /// The loop closed before the handle was opened. Loop thread.
    internal func abandon() {
        if phase == .idle { phase = .closed }
    }

    /// The loop is closing: stop whatever the owner does and close the
    /// handle. Loop thread.
    internal func shutdown() {
        closeHandle()
    }

    /// Starts closing the handle; idempotent. Loop thread.
    internal final func closeHandle() {
        switch phase {
        case .idle:
            phase = .closed
        case .open:
            guard let handle else { return }
            phase = .closing
            uv_close(handle) { handle in
                guard let handle else { return }
                let owner = Unmanaged<UVHandleOwner>.fromOpaque(handle.pointee.data).takeRetainedValue()
                owner.didClose()
                UnsafeMutableRawPointer(handle).deallocate()
            }
        case .closing, .closed:
            break
        }
    }

    /// The close callback ran; the handle's memory is freed right after.
    /// Subclasses release what they hold, then call super. Loop thread.
    internal func didClose() {
        phase = .closed
        handle = nil
        loop.owners.remove(self)
    }
}

/// The loop's open handle owners, as an intrusive doubly linked list: O(1)
/// insert and remove without allocating, which matters for 100,000 timers.
/// The references are unretained: each owner is kept alive by its handle's
/// data from insert to remove. Loop thread.
internal struct HandleOwnerRegistry {
    private var head: Unmanaged<UVHandleOwner>?
    internal private(set) var count = 0

    internal var isEmpty: Bool { count == 0 }

    internal mutating func insert(_ owner: UVHandleOwner) {
        let node = Unmanaged.passUnretained(owner)
        owner.previousOwner = nil
        owner.nextOwner = head
        head?.takeUnretainedValue().previousOwner = node
        head = node
        count += 1
    }

    internal mutating func remove(_ owner: UVHandleOwner) {
        if let previous = owner.previousOwner {
            previous.takeUnretainedValue().nextOwner = owner.nextOwner
        } else {
            head = owner.nextOwner
        }
        owner.nextOwner?.takeUnretainedValue().previousOwner = owner.previousOwner
        owner.previousOwner = nil
        owner.nextOwner = nil
        count -= 1
    }

    /// Visits every owner; `body` may close handles (removal happens later,
    /// in the close callbacks).
    internal func forEach(_ body: (UVHandleOwner) -> Void) {
        var cursor = head
        while let node = cursor {
            let owner = node.takeUnretainedValue()
            cursor = owner.nextOwner
            body(owner)
        }
    }
}
