import Testing
import UVCombineHTTP
import UVCombineHTTPCore

@Suite("ConnectionPoolStateMachine identifiers")
struct ConnectionPoolIdentifierTests {
    typealias Pool = ConnectionPoolStateMachine

    @Test func equalIdentifiersHashAlikeAndDictionariesFindThem() {
        #expect(Pool.RequestID(42)._rawHashValue(seed: 7) == Pool.RequestID(42)._rawHashValue(seed: 7))
        #expect(Pool.ConnectionID(42).hashValue == Pool.ConnectionID(42).hashValue)
        var requests: [Pool.RequestID: Int] = [:]
        for n in 0..<10_000 { requests[Pool.RequestID(n)] = n }
        for n in stride(from: 0, to: 10_000, by: 7) { requests[Pool.RequestID(n)] = nil }
        #expect(requests.count == 10_000 - (0..<10_000).filter { $0 % 7 == 0 }.count)
        #expect(requests[Pool.RequestID(1)] == 1 && requests[Pool.RequestID(7)] == nil)
    }

    @Test func sequentialNumbersSpreadOverTheLowBits() {
        // A dictionary picks buckets by the low bits: consecutive counters
        // must not pile into a few of them. 4,096 numbers into 4,096
        // buckets fill about 63% (1 - 1/e) when the hash is uniform.
        for seed in [0, 1, -1, 0x5EED] {
            let buckets = Set((0..<4096).map { Pool.idHash($0, seed: seed) & 4095 })
            #expect(buckets.count > 2_400, "seed \(seed): \(buckets.count) buckets")
        }
        #expect(Pool.idHash(1, seed: 0) != Pool.idHash(1, seed: 1))
    }
}
