import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// nghttp2's per-connection allocator (``HTTP2BlockCache``): size
/// classes, reuse, the cap after a burst, realloc's contract, and what
/// nghttp2 allocates per request with it (in memory and against nginx).
@Suite("HTTP/2 block cache (nghttp2's allocator)")
struct HTTP2BlockCacheTests {
    @Test("size classes: 32, 64, …, 4,096 bytes; larger is uncached")
    func sizeClasses() {
        #expect(HTTP2BlockCache.sizeClass(of: 0) == 0)
        #expect(HTTP2BlockCache.sizeClass(of: 1) == 0)
        #expect(HTTP2BlockCache.sizeClass(of: 32) == 0)
        #expect(HTTP2BlockCache.sizeClass(of: 33) == 1)
        #expect(HTTP2BlockCache.sizeClass(of: 64) == 1)
        #expect(HTTP2BlockCache.sizeClass(of: 65) == 2)
        #expect(HTTP2BlockCache.sizeClass(of: 4096) == 7)
        #expect(HTTP2BlockCache.sizeClass(of: 4097) == nil)
        #expect(HTTP2BlockCache.largestClassSize == 4096)
    }

    @Test("a freed block is the next allocation of its class; the system is asked once")
    func reuse() throws {
        let cache = HTTP2BlockCache()
        let first = try #require(cache.allocate(100))
        first.storeBytes(of: 0xABCD, as: Int.self)
        cache.deallocate(first)
        #expect(cache.cachedBlocks == 1)
        #expect(cache.cachedBytes == 128)
        let second = try #require(cache.allocate(120))
        #expect(second == first)
        #expect(cache.cachedBlocks == 0)
        #expect(cache.requests == 2)
        #expect(cache.systemAllocations == 1)
        // Another class does not take it.
        cache.deallocate(second)
        let other = try #require(cache.allocate(20))
        #expect(other != first)
        #expect(cache.systemAllocations == 2)
        cache.deallocate(other)
        cache.deallocate(nil)
        #expect(cache.cachedBlocks == 2)
    }

    @Test("blocks are 16-byte aligned and hold their full class size")
    func alignment() throws {
        let cache = HTTP2BlockCache()
        for size in [1, 31, 32, 100, 1000, 4096, 10_000] {
            let block = try #require(cache.allocate(size))
            #expect(Int(bitPattern: block) % 16 == 0)
            block.initializeMemory(as: UInt8.self, repeating: 0x5A, count: max(size, 1))
            cache.deallocate(block)
        }
    }

    @Test("blocks over 4,096 bytes are not cached")
    func uncached() throws {
        let cache = HTTP2BlockCache()
        for _ in 0..<3 {
            let block = try #require(cache.allocate(16_384))
            cache.deallocate(block)
        }
        #expect(cache.cachedBlocks == 0)
        #expect(cache.systemAllocations == 3)
    }

    @Test("negative and overflowing sizes are refused with nil")
    func badSizes() {
        let cache = HTTP2BlockCache()
        #expect(cache.allocate(-1) == nil)
        #expect(cache.allocate(Int.max) == nil)
        #expect(cache.allocateZeroed(count: Int.max / 2, size: 3) == nil)
        #expect(cache.allocateZeroed(count: -1, size: 8) == nil)
        #expect(cache.systemAllocations == 0)
        #expect(cache.cachedBlocks == 0)
    }

    @Test("calloc's blocks are zeroed, reused ones too")
    func zeroed() throws {
        let cache = HTTP2BlockCache()
        let dirty = try #require(cache.allocate(64))
        dirty.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 64)
        cache.deallocate(dirty)
        let block = try #require(cache.allocateZeroed(count: 8, size: 8))
        #expect(block == dirty)
        #expect(UnsafeRawBufferPointer(start: block, count: 64).allSatisfy { $0 == 0 })
        cache.deallocate(block)
    }

    @Test("realloc: in place within the class, moved with its bytes beyond it, nil for size 0")
    func reallocate() throws {
        let cache = HTTP2BlockCache()
        let block = try #require(cache.reallocate(nil, to: 40))
        for index in 0..<40 { block.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
        #expect(cache.reallocate(block, to: 64) == block)
        let moved = try #require(cache.reallocate(block, to: 1000))
        #expect(moved != block)
        #expect((0..<40).allSatisfy { moved.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        #expect(cache.cachedBlocks == 1)  // the 64-byte block came back
        let huge = try #require(cache.reallocate(moved, to: 100_000))
        #expect((0..<40).allSatisfy { huge.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        let huger = try #require(cache.reallocate(huge, to: 200_000))
        #expect((0..<40).allSatisfy { huger.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        // Back into a class: the cached 64-byte block is taken.
        let back = try #require(cache.reallocate(huger, to: 50))
        #expect(back == block)
        #expect((0..<40).allSatisfy { back.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        #expect(cache.reallocate(back, to: 0) == nil)
        #expect(cache.cachedBlocks == 2)  // the 64- and 1,024-byte blocks
    }

    @Test("a burst then idle keeps at most the cap per class")
    func capAfterBurst() throws {
        let cache = HTTP2BlockCache(cacheBytesPerClass: 4096)
        #expect(cache.blockLimit(ofClass: 0) == 128)
        #expect(cache.blockLimit(ofClass: 7) == HTTP2BlockCache.minimumCachedBlocks)
        var blocks: [UnsafeMutableRawPointer] = []
        for size in [24, 200, 3000] {
            for _ in 0..<1000 { blocks.append(try #require(cache.allocate(size))) }
        }
        for block in blocks { cache.deallocate(block) }
        #expect(cache.cachedBlocks == 128 + 16 + 16)
        #expect(cache.cachedBytes == 128 * 32 + 16 * 256 + 16 * 4096)
        #expect(cache.cachedBytes <= cache.maximumCachedBytes)
    }

    @Test("a connection after 1,000 streams in flight, then idle, keeps at most the default cap")
    func connectionBurst() throws {
        let exchange = try SmallFileExchange()
        let (client, server, recorder, request) = (exchange.client, exchange.server, exchange.recorder, exchange.request)
        for _ in 0..<1000 { _ = try client.openStream(request) }
        var out: [UInt8] = []
        while recorder.ended < 1000 {
            out.removeAll(keepingCapacity: true)
            client.produceOutput(into: &out)
            if !out.isEmpty { server.receive(out) }
            let back = server.output()
            if back.isEmpty && out.isEmpty { break }
            back.withUnsafeBytes { client.receive($0, now: HTTPDeadline(uptimeNanoseconds: 0)) }
        }
        #expect(recorder.ended == 1000)
        let cache = client.blockCache
        #expect(cache.cachedBytes <= cache.maximumCachedBytes)
        #expect(cache.maximumCachedBytes <= 512 * 1024)
        for index in 0..<HTTP2BlockCache.classCount {
            #expect(cache.blockLimit(ofClass: index) >= HTTP2BlockCache.minimumCachedBlocks)
        }
    }

    /// Runs `count` GETs, `inFlight` at a time, on the in-memory server;
    /// nghttp2's allocation requests and system allocations per request
    /// after a warm-up of the same shape.
    static func inMemoryCounts(count: Int, inFlight: Int) throws -> (requests: Double, system: Double) {
        // nginx's head for a 100-byte file, as the benchmarks see it.
        let exchange = try SmallFileExchange(
            bodySize: 100,
            fields: [("server", "nginx/1.22.1"), ("date", "Sun, 29 Nov 2026 14:00:00 GMT"),
                     ("content-type", "text/plain"), ("last-modified", "Sun, 29 Nov 2026 13:00:00 GMT"),
                     ("etag", "\"6740a4b0-64\""), ("accept-ranges", "bytes")])
        let (client, server, recorder, request) = (exchange.client, exchange.server, exchange.recorder, exchange.request)
        var sent = 0
        var out: [UInt8] = []
        var marks: (requests: Int, system: Int) = (0, 0)
        let warmUp = inFlight * 2
        while recorder.ended < warmUp + count {
            if recorder.ended >= warmUp && marks == (0, 0) {
                marks = (client.blockCache.requests, client.blockCache.systemAllocations)
            }
            while sent < warmUp + count && sent - recorder.ended < inFlight {
                _ = try client.openStream(request)
                sent += 1
            }
            out.removeAll(keepingCapacity: true)
            client.produceOutput(into: &out)
            if !out.isEmpty { server.receive(out) }
            let back = server.output()
            back.withUnsafeBytes { client.receive($0, now: HTTPDeadline(uptimeNanoseconds: 0)) }
        }
        let requests = Double(client.blockCache.requests - marks.requests) / Double(count)
        let system = Double(client.blockCache.systemAllocations - marks.system) / Double(count)
        return (requests, system)
    }

    @Test("steady state: nghttp2 asks for blocks per request, none reaches malloc (in memory)")
    func steadyStateInMemory() throws {
        for inFlight in [1, 100] {
            let (requests, system) = try Self.inMemoryCounts(count: 1000, inFlight: inFlight)
            print("HTTP2 block cache: \(inFlight) in flight: nghttp2 asked \(requests) blocks per request, \(system) from malloc")
            #expect(requests >= 1)
            #expect(system < 0.05, "system allocations per request: \(system)")
        }
    }
}
