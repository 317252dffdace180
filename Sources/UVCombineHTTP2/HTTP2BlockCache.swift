internal import CUVCombineLazyLibraries

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// nghttp2's allocator for one connection (`nghttp2_mem`, issue 33): the
/// blocks nghttp2 frees go to a free list per size class instead of back
/// to `malloc`, and its next allocation of that class takes one from the
/// list. nghttp2 allocates per stream (the stream, the outbound HEADERS
/// item and its copy of the header block, a WINDOW_UPDATE item, an HPACK
/// buffer for every literal field of the response), so in the steady
/// state of a connection those come from the lists and `malloc` is not
/// called per request.
///
/// - Size classes: payloads of 32, 64, …, 4,096 bytes (powers of two);
///   larger blocks (nghttp2's per-session buffers) go to `malloc` and
///   `free` directly. Every block carries a 16-byte header before the
///   pointer nghttp2 gets (its class and capacity; malloc's alignment is
///   kept), since nghttp2's `free` does not say the size.
/// - Bounded: each class keeps at most ``cacheBytesPerClass`` bytes of
///   free blocks (at least ``minimumCachedBlocks``); a block freed beyond
///   that goes back to `free`. A burst of streams leaves at most
///   ``maximumCachedBytes`` behind.
/// - Lifetime: the owner (``HTTP2ClientConnection``) deletes its
///   session first; this cache's deinit then frees every cached block.
///   Blocks still lent out at deinit are nghttp2's bug, not tracked.
///
/// Threading: not thread-safe, as the connection it belongs to (one
/// thread at a time: the loop's).
///
/// ```swift
/// let cache = HTTP2BlockCache()
/// var mem = cache.memory       // nghttp2_session_client_new3(&session, callbacks, nil, option, &mem)
/// ```
package final class HTTP2BlockCache {
    /// Number of size classes (32 << 0 … 32 << 7 bytes).
    package static let classCount = 8
    /// The smallest class's payload size.
    package static let smallestClassSize = 32
    /// The largest pooled payload; bigger blocks are not cached.
    package static var largestClassSize: Int { smallestClassSize << (classCount - 1) }
    /// The header before every block: class index and capacity.
    static let headerSize = 16
    /// Header class index of a block allocated directly (too big to cache).
    static let uncached = -1
    /// Free blocks a class may keep whatever its size.
    package static let minimumCachedBlocks = 16

    /// Bytes of free blocks each class keeps at most (payload bytes).
    package let cacheBytesPerClass: Int

    /// The state the C callbacks reach through `mem_user_data`.
    private let state: UnsafeMutablePointer<State>

    /// Per-class free lists and counters, outside Swift's exclusivity
    /// checks (the callbacks reach it through a raw pointer).
    struct State {
        /// Head of each class's free list (the next block's pointer is
        /// stored in the first word of a free block).
        var heads: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        /// Free blocks per class.
        var counts: UnsafeMutablePointer<Int>
        /// Most free blocks per class.
        var limits: UnsafeMutablePointer<Int>
        /// Allocations nghttp2 asked for (malloc, calloc, realloc to a
        /// bigger class).
        var requests = 0
        /// Of those, the ones that called the system's `malloc`/`realloc`.
        var systemAllocations = 0
    }

    /// A cache whose classes keep up to `cacheBytesPerClass` bytes of
    /// free blocks each (64 KiB by default: 512 KiB at most over all
    /// classes, reached only after a burst of many streams).
    package init(cacheBytesPerClass: Int = 64 * 1024) {
        self.cacheBytesPerClass = max(cacheBytesPerClass, 0)
        let count = HTTP2BlockCache.classCount
        let heads = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: count)
        heads.initialize(repeating: nil, count: count)
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: count)
        counts.initialize(repeating: 0, count: count)
        let limits = UnsafeMutablePointer<Int>.allocate(capacity: count)
        for index in 0..<count {
            let size = HTTP2BlockCache.smallestClassSize << index
            (limits + index).initialize(to: max(HTTP2BlockCache.minimumCachedBlocks, self.cacheBytesPerClass / size))
        }
        state = .allocate(capacity: 1)
        state.initialize(to: State(heads: heads, counts: counts, limits: limits))
    }

    deinit {
        for index in 0..<HTTP2BlockCache.classCount {
            var block = state.pointee.heads[index]
            while let current = block {
                block = current.load(as: UnsafeMutableRawPointer?.self)
                free(current - HTTP2BlockCache.headerSize)
            }
        }
        state.pointee.heads.deallocate()
        state.pointee.counts.deallocate()
        state.pointee.limits.deallocate()
        state.deallocate()
    }

    /// The allocator to hand to `nghttp2_session_client_new3` (nghttp2
    /// copies the struct; its user data points into this cache, which
    /// must outlive the session).
    var memory: nghttp2_mem {
        nghttp2_mem(mem_user_data: UnsafeMutableRawPointer(state),
                    malloc: HTTP2BlockCache.mallocCallback, free: HTTP2BlockCache.freeCallback,
                    calloc: HTTP2BlockCache.callocCallback, realloc: HTTP2BlockCache.reallocCallback)
    }

    // MARK: Statistics (tests, docs/http2.md)

    /// Allocations asked for since the cache was made.
    package var requests: Int { state.pointee.requests }
    /// Of ``requests``, those that reached the system's allocator.
    package var systemAllocations: Int { state.pointee.systemAllocations }
    /// Free blocks kept now, over all classes.
    package var cachedBlocks: Int {
        (0..<HTTP2BlockCache.classCount).reduce(0) { $0 + state.pointee.counts[$1] }
    }
    /// Payload bytes of the free blocks kept now.
    package var cachedBytes: Int {
        (0..<HTTP2BlockCache.classCount).reduce(0) { $0 + state.pointee.counts[$1] * (HTTP2BlockCache.smallestClassSize << $1) }
    }
    /// The most free blocks class `index` keeps.
    package func blockLimit(ofClass index: Int) -> Int { state.pointee.limits[index] }
    /// The most payload bytes all classes keep together.
    package var maximumCachedBytes: Int {
        (0..<HTTP2BlockCache.classCount).reduce(0) { $0 + state.pointee.limits[$1] * (HTTP2BlockCache.smallestClassSize << $1) }
    }

    // MARK: The allocator (also called directly by tests)

    /// A block of at least `size` bytes, 16-byte aligned; nil when the
    /// system is out of memory.
    package func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        HTTP2BlockCache.allocate(size, state)
    }

    /// Returns a block from ``allocate(_:)`` (nil is ignored).
    package func deallocate(_ block: UnsafeMutableRawPointer?) {
        HTTP2BlockCache.deallocate(block, state)
    }

    /// `calloc`'s contract: `count` times `size` bytes, zeroed; nil when
    /// the product overflows or is negative.
    package func allocateZeroed(count: Int, size: Int) -> UnsafeMutableRawPointer? {
        HTTP2BlockCache.allocateZeroed(count, size, state)
    }

    /// `realloc`'s contract on this cache's blocks.
    package func reallocate(_ block: UnsafeMutableRawPointer?, to size: Int) -> UnsafeMutableRawPointer? {
        HTTP2BlockCache.reallocate(block, size, state)
    }

    /// The class of a payload of `size` bytes, or nil when it is too big.
    package static func sizeClass(of size: Int) -> Int? {
        if size <= smallestClassSize { return 0 }
        let index = (Int.bitWidth - (size - 1).leadingZeroBitCount) - 5
        return index < classCount ? index : nil
    }

    static func allocate(_ size: Int, _ state: UnsafeMutablePointer<State>) -> UnsafeMutableRawPointer? {
        state.pointee.requests &+= 1
        guard size >= 0, size <= Int.max - headerSize else { return nil }
        guard let index = sizeClass(of: size) else {
            state.pointee.systemAllocations &+= 1
            guard let base = malloc(headerSize + size) else { return nil }
            base.storeBytes(of: uncached, as: Int.self)
            base.storeBytes(of: size, toByteOffset: 8, as: Int.self)
            return base + headerSize
        }
        if let block = state.pointee.heads[index] {
            state.pointee.heads[index] = block.load(as: UnsafeMutableRawPointer?.self)
            state.pointee.counts[index] -= 1
            return block
        }
        state.pointee.systemAllocations &+= 1
        let capacity = smallestClassSize << index
        guard let base = malloc(headerSize + capacity) else { return nil }
        base.storeBytes(of: index, as: Int.self)
        base.storeBytes(of: capacity, toByteOffset: 8, as: Int.self)
        return base + headerSize
    }

    static func allocateZeroed(_ count: Int, _ size: Int, _ state: UnsafeMutablePointer<State>) -> UnsafeMutableRawPointer? {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, count >= 0, size >= 0, let block = allocate(total, state) else { return nil }
        block.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        return block
    }

    static func deallocate(_ block: UnsafeMutableRawPointer?, _ state: UnsafeMutablePointer<State>) {
        guard let block else { return }
        let base = block - headerSize
        let index = base.load(as: Int.self)
        guard index != uncached, state.pointee.counts[index] < state.pointee.limits[index] else {
            free(base)
            return
        }
        block.storeBytes(of: state.pointee.heads[index], as: UnsafeMutableRawPointer?.self)
        state.pointee.heads[index] = block
        state.pointee.counts[index] += 1
    }

    static func reallocate(_ block: UnsafeMutableRawPointer?, _ size: Int,
                           _ state: UnsafeMutablePointer<State>) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size, state) }
        if size == 0 {
            deallocate(block, state)
            return nil
        }
        let base = block - headerSize
        let index = base.load(as: Int.self)
        let capacity = base.load(fromByteOffset: 8, as: Int.self)
        if size <= capacity, index != uncached { return block }
        if index == uncached && sizeClass(of: size) == nil {
            state.pointee.requests &+= 1
            state.pointee.systemAllocations &+= 1
            guard size <= Int.max - headerSize, let moved = realloc(base, headerSize + size) else { return nil }
            moved.storeBytes(of: size, toByteOffset: 8, as: Int.self)
            return moved + headerSize
        }
        guard let moved = allocate(size, state) else { return nil }
        moved.copyMemory(from: block, byteCount: min(capacity, size))
        deallocate(block, state)
        return moved
    }

    static let mallocCallback: nghttp2_malloc = { size, user in
        HTTP2BlockCache.allocate(size, user!.assumingMemoryBound(to: State.self))
    }

    static let freeCallback: nghttp2_free = { block, user in
        HTTP2BlockCache.deallocate(block, user!.assumingMemoryBound(to: State.self))
    }

    static let callocCallback: nghttp2_calloc = { count, size, user in
        HTTP2BlockCache.allocateZeroed(count, size, user!.assumingMemoryBound(to: State.self))
    }

    static let reallocCallback: nghttp2_realloc = { block, size, user in
        HTTP2BlockCache.reallocate(block, size, user!.assumingMemoryBound(to: State.self))
    }
}
