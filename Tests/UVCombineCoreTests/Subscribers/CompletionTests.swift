import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation

struct CodableError: Error, Codable, Equatable { var code: Int }

@Suite("Subscribers.Completion")
struct CompletionTests {
    @Test func encodesLikeCombine() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let finished = Subscribers.Completion<CodableError>.finished
        let failed = Subscribers.Completion<CodableError>.failure(CodableError(code: 7))
        #expect(String(decoding: try encoder.encode(finished), as: UTF8.self) == #"{"success":true}"#)
        #expect(String(decoding: try encoder.encode(failed), as: UTF8.self) == #"{"error":{"code":7},"success":false}"#)
    }

    @Test func roundTrips() throws {
        for completion in [Subscribers.Completion<CodableError>.finished, .failure(CodableError(code: 3))] {
            let data = try JSONEncoder().encode(completion)
            #expect(try JSONDecoder().decode(Subscribers.Completion<CodableError>.self, from: data) == completion)
        }
    }
}
