import Foundation
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The engine's task table (`SessionTaskTable`, issue 32): a slot array
/// whose request IDs carry the slot and a generation, so a stale ID finds
/// nothing even after its slot was reused.
@Suite("SessionTaskTable (the engine's tasks by request ID)")
struct SessionTaskTableTests {
    private func makeTask(_ session: UVURLSession) -> SessionTask {
        SessionTask(session: session, spec: session.taskRequest(url: exampleURL), isStreaming: false,
                    deliverOutcome: { _, _ in }, offerPart: { _, _ in .cancelled })
    }

    @Test("insert names the task; lookup and removal by that name; a stale ID finds nothing after its slot is reused")
    func namesAndReuse() {
        withFakeSession { _, _, session in
            var table = SessionTaskTable()
            #expect(table.isEmpty)
            let a = makeTask(session)
            let b = makeTask(session)
            let idA = table.insert(a)
            let idB = table.insert(b)
            #expect(a.requestID == idA && b.requestID == idB)
            #expect(idA != idB)
            #expect(table[idA] === a && table[idB] === b)
            #expect(table.count == 2)
            #expect(table.removeValue(forKey: idA) === a)
            #expect(table[idA] == nil)
            #expect(table.removeValue(forKey: idA) == nil)
            // The freed slot is reused, under another generation.
            let c = makeTask(session)
            let idC = table.insert(c)
            #expect(idC != idA)
            #expect(idC.rawValue & 0xFFFF_FFFF == idA.rawValue & 0xFFFF_FFFF)
            #expect(table[idA] == nil)
            #expect(table[idC] === c)
            #expect(table.values.count == 2)
            #expect(table.values.contains { $0 === b } && table.values.contains { $0 === c })
            // An ID the table never gave, and one past its slots.
            #expect(table[ConnectionPoolStateMachine.RequestID(0)] == nil)
            #expect(table[ConnectionPoolStateMachine.RequestID(1 << 32 | 99)] == nil)
            table.removeValue(forKey: idB)
            table.removeValue(forKey: idC)
            #expect(table.isEmpty)
        }
    }
}
