import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation

@Suite("Subscribers.Demand")
struct DemandTests {
    typealias Demand = Subscribers.Demand

    @Test func descriptionsMatchCombine() {
        #expect(Demand.max(3).description == "max(3)")
        #expect(Demand.unlimited.description == "unlimited")
        #expect(Demand.none.description == "max(0)")
        #expect(Demand.none == .max(0))
    }

    @Test func additionSaturates() {
        #expect(Demand.max(2) + .max(3) == .max(5))
        #expect(Demand.max(Int.max) + .max(1) == .unlimited)
        #expect(Demand.unlimited + .max(1) == .unlimited)
        #expect(Demand.max(1) + .unlimited == .unlimited)
        #expect(Demand.max(2) + 3 == .max(5))
        #expect(Demand.max(Int.max) + 1 == .unlimited)
        #expect(Demand.unlimited + 5 == .unlimited)
        #expect(Demand.max(2) + (-5) == .none)
        var d = Demand.max(1)
        d += 1
        d += .max(1)
        #expect(d == .max(3))
    }

    @Test func subtractionClampsAtNone() {
        #expect(Demand.max(5) - .max(3) == .max(2))
        #expect(Demand.max(3) - .max(5) == .none)
        #expect(Demand.unlimited - .max(3) == .unlimited)
        #expect(Demand.unlimited - .unlimited == .unlimited)
        #expect(Demand.max(3) - .unlimited == .none)
        #expect(Demand.max(3) - 5 == .none)
        #expect(Demand.max(3) - Int.min == .none) // overflow gives .none, as in Combine
        #expect(Demand.unlimited - 5 == .unlimited)
        var d = Demand.max(3)
        d -= 1
        d -= .max(1)
        #expect(d == .max(1))
    }

    @Test func multiplicationSaturates() {
        #expect(Demand.max(3) * 4 == .max(12))
        #expect(Demand.max(Int.max) * 2 == .unlimited)
        #expect(Demand.unlimited * 0 == .unlimited)
        #expect(Demand.max(3) * -1 == .none)
    }

    @Test func comparisonsWithIntAndDemand() {
        #expect(Demand.unlimited > 1_000_000)
        #expect(Demand.unlimited > .max(Int.max))
        #expect(Demand.max(3) < 4)
        #expect(Demand.max(3) <= 3)
        #expect(Demand.max(3) == 3)
        #expect(Demand.max(3) != 4)
        #expect(Demand.unlimited != Int.max)
        #expect(3 < Demand.unlimited)
        #expect(4 > Demand.max(3))
        #expect(!(Int.max >= Demand.unlimited))
        #expect(Demand.max(0) > -1)
        #expect(Demand.max(2) < Demand.max(3))
        #expect(Demand.max(1).max == 1)
        #expect(Demand.unlimited.max == nil)
    }

    @Test func codableAsSingleUnsignedInteger() throws {
        // Combine writes .unlimited as Int.max + 1.
        let encoded = try JSONEncoder().encode([Demand.max(3), .unlimited])
        #expect(String(decoding: encoded, as: UTF8.self) == "[3,\(UInt(Int.max) + 1)]")
        let decoded = try JSONDecoder().decode([Demand].self, from: encoded)
        #expect(decoded == [.max(3), .unlimited])
    }

    @Test func decodingRejectsNegativeValuesAndReadsLargeOnesAsUnlimited() throws {
        let bad = Data("[-1]".utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Demand].self, from: bad) }
        let large = Data("[\(UInt.max)]".utf8)
        #expect(try JSONDecoder().decode([Demand].self, from: large) == [.unlimited])
    }
}
