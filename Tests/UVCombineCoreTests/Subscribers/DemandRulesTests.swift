import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation

/// `Subscribers.Demand` arithmetic and coding, as Combine's.
@Suite("Demand follows Combine")
struct DemandRulesTests {
    private struct Wrapper: Codable, Equatable {
        let value: Subscribers.Demand
    }

    @Test func subtractionClampsAndSaturatesAsCombine() {
        #expect(Subscribers.Demand.max(1) - .unlimited == .max(0))
        #expect(Subscribers.Demand.max(42) - .unlimited == .none)
        #expect(Subscribers.Demand.unlimited - .unlimited == .unlimited)
        #expect(Subscribers.Demand.unlimited - .max(42) == .unlimited)
        #expect(Subscribers.Demand.max(100) - .max(42) == .max(58))
        #expect(Subscribers.Demand.max(81) - 42 == .max(39))
        #expect(Subscribers.Demand.unlimited - 42 == .unlimited)
        // Overflow when subtracting a large negative number gives .none.
        #expect(Subscribers.Demand.max(Int.max) - (-1) == .none)
        var demand = Subscribers.Demand.max(100)
        demand -= .max(1)
        demand -= 21
        #expect(demand == .max(78))
        demand -= .unlimited
        #expect(demand == .max(0))
        demand = .unlimited
        demand -= Int.max
        demand -= .unlimited
        #expect(demand == .unlimited)
        demand = .max(Int.max)
        demand -= -1
        #expect(demand == .none)
    }

    @Test func additionAndMultiplicationSaturateAsCombine() {
        #expect(Subscribers.Demand.max(42) + .unlimited == .unlimited)
        #expect(Subscribers.Demand.max(100) + .max(42) == .max(142))
        #expect(Subscribers.Demand.max(81) + 42 == .max(123))
        #expect(Subscribers.Demand.max(Int.max) + 10 == .unlimited)
        var demand = Subscribers.Demand.unlimited
        demand += Int.min
        #expect(demand == .unlimited)
        #expect(Subscribers.Demand.max(42) * 2 == .max(84))
        #expect(Subscribers.Demand.unlimited * Int.max == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) * 2 == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) * -2 == .unlimited)
        #expect(Subscribers.Demand.none * 10 == .none)
    }

    @Test func comparisonsTreatUnlimitedAsGreatest() {
        #expect(!(Subscribers.Demand.unlimited < .unlimited))
        #expect(Subscribers.Demand.unlimited > .max(42))
        #expect(Subscribers.Demand.unlimited > 42)
        #expect(Subscribers.Demand.unlimited >= 42)
        #expect(Subscribers.Demand.unlimited != 42)
        #expect(42 < Subscribers.Demand.unlimited)
        #expect(!(42 >= Subscribers.Demand.unlimited))
        #expect(Subscribers.Demand.max(42) < .unlimited)
        #expect(Subscribers.Demand.max(100) == 100)
        #expect(100 <= Subscribers.Demand.max(100))
        #expect(!(Subscribers.Demand.max(142) <= 100))
        #expect(Subscribers.Demand.none.max == 0)
        #expect(Subscribers.Demand.unlimited.max == nil)
        #expect(Subscribers.Demand.none.description == "max(0)")
        #expect(Subscribers.Demand.unlimited.description == "unlimited")
    }

    @Test func encodesToJSONAsCombine() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(Wrapper(value: .max(42))), as: UTF8.self) == #"{"value":42}"#)
        #expect(String(decoding: try encoder.encode(Wrapper(value: .unlimited)), as: UTF8.self)
                == #"{"value":9223372036854775808}"#)
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Wrapper.self, from: Data(#"{"value":42}"#.utf8)) == Wrapper(value: .max(42)))
        #expect(try decoder.decode(Wrapper.self, from: Data(#"{"value":9223372036854775808}"#.utf8)) == Wrapper(value: .unlimited))
        // Anything above Int.max is unlimited; a negative number is an error.
        #expect(try decoder.decode(Wrapper.self, from: Data(#"{"value":9223372036854775809}"#.utf8)).value == .unlimited)
        #expect(try decoder.decode(Wrapper.self, from: Data(#"{"value":18446744073709551615}"#.utf8)).value == .unlimited)
        #expect(throws: (any Error).self) { try decoder.decode(Wrapper.self, from: Data(#"{"value":-1}"#.utf8)) }
    }

    @Test func encodesToPropertyListAsCombine() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        let unlimited = String(decoding: try encoder.encode(Wrapper(value: .unlimited)), as: UTF8.self)
        #expect(unlimited.contains("<integer>9223372036854775808</integer>"))
        let max = String(decoding: try encoder.encode(Wrapper(value: .max(42))), as: UTF8.self)
        #expect(max.contains("<integer>42</integer>"))
        let decoder = PropertyListDecoder()
        #expect(try decoder.decode(Wrapper.self, from: Data(unlimited.utf8)) == Wrapper(value: .unlimited))
        #expect(try decoder.decode(Wrapper.self, from: Data(max.utf8)) == Wrapper(value: .max(42)))
    }

    @Test func combineIdentifierPrintsTheObjectAddressInHex() {
        final class Object {}
        let object = Object()
        let id = CombineIdentifier(object)
        #expect(id.description == "0x" + String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16))
        #expect(id == CombineIdentifier(object))
        #expect(CombineIdentifier() != CombineIdentifier())
        #expect(Mirror(reflecting: id).children.first?.value is UInt64)
    }
}
