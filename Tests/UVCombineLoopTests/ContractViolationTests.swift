import CLibUV
import Testing
import UVCombineLoop

/// Misuse of a loop traps with a message naming the rule (each case runs in
/// a child process: Swift Testing exit tests).
@Suite("Loop contract violations trap")
struct LoopContractViolationTests {
    @Test func runInsideAnActionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try UVLoop()
            loop.schedule { loop.run() }
            loop.run()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("UVLoop.run(): the loop is already running"))
    }

    @Test func runningAnAdoptedLoopTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let raw = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
            uv_loop_init(raw)
            let loop = try UVLoop(adopting: raw)
            loop.run()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("UVLoop.run(): an adopted loop is run by its host"))
    }

    @Test func shuttingALoopThreadDownFromItselfTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let background = try UVLoopThread()
            background.loop.schedule { try? background.shutdown() }
            while true { sched_yield() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("UVLoopThread.shutdown() called on its own loop thread"))
    }
}
