import CLibUV

/// The writes a connection has handed to libuv: one reusable `uv_write_t`
/// per slot, the bytes it keeps alive until its callback, and the
/// completion to call. Slots are recycled, so writing allocates nothing in
/// steady state. A request's `data` holds its slot index plus one.
///
/// The pointer libuv writes from outlives the `withUnsafeBytes` call that
/// produced it. What makes that sound, stated and checked rather than
/// assumed: the pointer is taken from the array the slot stores (not from
/// the caller's copy), that array is a native Swift array whose elements
/// live in one heap buffer the slot keeps retained, and nothing mutates it
/// until ``finish(_:)`` (so no copy-on-write can move it). Debug builds
/// record the address and trap in ``finish(_:)`` if the slot's storage is
/// not where libuv was told it was.
///
/// Threading: owned by one connection; loop thread only.
internal struct TCPWriteSlots {
    internal struct Slot {
        internal let request: UnsafeMutablePointer<uv_write_t>
        /// Kept alive (not copied) until libuv is done with them.
        internal var bytes: [UInt8] = []
        internal var completion: ((UVError?) -> Void)?
        #if DEBUG
        /// Where libuv was told the bytes are (see the type's note).
        internal var handedOut: UnsafeRawPointer?
        #endif
    }

    private var slots: ContiguousArray<Slot> = []
    private var free: ContiguousArray<Int> = []
    /// Writes handed to libuv whose callback has not run yet.
    internal private(set) var pendingCount = 0

    /// Stores a write and returns its slot and request.
    internal mutating func take(_ bytes: [UInt8], completion: ((UVError?) -> Void)?)
        -> (index: Int, request: UnsafeMutablePointer<uv_write_t>, buffer: uv_buf_t)
    {
        let index: Int
        if let reused = free.popLast() {
            index = reused
        } else {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_write_t>.size,
                                                       alignment: MemoryLayout<uv_write_t>.alignment)
            let request = raw.bindMemory(to: uv_write_t.self, capacity: 1)
            index = slots.count
            request.pointee.data = UnsafeMutableRawPointer(bitPattern: index + 1)
            slots.append(Slot(request: request))
        }
        slots[index].bytes = bytes
        slots[index].completion = completion
        pendingCount += 1
        let start = slots[index].bytes.withUnsafeBytes { $0.baseAddress }
        #if DEBUG
        slots[index].handedOut = start
        #endif
        let buffer = uv_buf_init(UnsafeMutableRawPointer(mutating: start)?.assumingMemoryBound(to: CChar.self),
                                 UInt32(bytes.count))
        return (index, slots[index].request, buffer)
    }

    /// The slot of a request libuv called back for.
    internal static func index(of request: UnsafeMutablePointer<uv_write_t>) -> Int {
        Int(bitPattern: request.pointee.data) - 1
    }

    /// Frees the slot (releasing its bytes) and returns its completion.
    internal mutating func finish(_ index: Int) -> ((UVError?) -> Void)? {
        #if DEBUG
        let now = slots[index].bytes.withUnsafeBytes { $0.baseAddress }
        precondition(slots[index].bytes.isEmpty || now == slots[index].handedOut,
                     "TCPWriteSlots: the bytes of a write in flight moved (libuv was told \(String(describing: slots[index].handedOut)), they are at \(String(describing: now)))")
        slots[index].handedOut = nil
        #endif
        let completion = slots[index].completion
        slots[index].completion = nil
        slots[index].bytes = []
        pendingCount -= 1
        free.append(index)
        return completion
    }

    /// Releases every slot's bytes and completion and frees the requests;
    /// only once libuv is done with them (in the handle's close callback,
    /// which runs after every pending write's callback).
    internal mutating func deallocateAll() {
        for slot in slots {
            UnsafeMutableRawPointer(slot.request).deallocate()
        }
        slots = []
        free = []
        pendingCount = 0
    }
}
