import Testing
import UVCombineCore
import UVCombineLoop

/// The re-armable, unref'd deadline timer the URL session runs on.
@Suite("UVDeadlineTimer")
struct UVDeadlineTimerTests {
    @Test("fires once, never before its deadline")
    func firesOnceNotEarly() {
        withLoop { loop in
            let firings = Shared<[UInt64]>([])
            let token = Unchecked<AnyCancellable?>(loop.keepAlive())
            let timer = UVDeadlineTimer(loop: loop) {
                firings.append(loop.now.uptimeNanoseconds)
                token.value = nil
            }
            loop.run(.noWait)
            let deadline = loop.now.advanced(by: .milliseconds(15)).uptimeNanoseconds
            timer.arm(at: deadline)
            #expect(timer.deadline == deadline)
            loop.run()
            #expect(firings.value.count == 1)
            #expect(firings.value[0] >= deadline)
            #expect(timer.deadline == nil)
            timer.close()
        }
    }

    @Test("arming again replaces the deadline; disarm stops it")
    func rearmAndDisarm() {
        withLoop { loop in
            let firings = Shared<[UInt64]>([])
            let token = Unchecked<AnyCancellable?>(loop.keepAlive())
            let timer = UVDeadlineTimer(loop: loop) {
                firings.append(loop.now.uptimeNanoseconds)
                token.value = nil
            }
            loop.run(.noWait)
            let start = loop.now
            timer.arm(at: start.advanced(by: .seconds(10)).uptimeNanoseconds)
            timer.arm(at: start.advanced(by: .milliseconds(5)).uptimeNanoseconds)
            loop.run()
            #expect(firings.value.count == 1)
            #expect(loop.now < start.advanced(by: .seconds(5)), "the later arming replaced the first")

            let silent = UVDeadlineTimer(loop: loop) { Issue.record("a disarmed timer fired") }
            silent.arm(at: loop.now.advanced(by: .milliseconds(5)).uptimeNanoseconds)
            silent.disarm()
            let stop = Unchecked<AnyCancellable?>(loop.keepAlive())
            loop.schedule(after: loop.now.advanced(by: .milliseconds(20))) { stop.value = nil }
            loop.run()
            timer.close()
            silent.close()
        }
    }

    @Test("an armed deadline timer does not keep the loop alive")
    func unrefd() {
        withLoop { loop in
            let fired = Shared(false)
            let timer = UVDeadlineTimer(loop: loop) { fired.withLock { $0 = true } }
            loop.run(.noWait)
            timer.arm(at: loop.now.advanced(by: .seconds(30)).uptimeNanoseconds)
            let start = loop.now
            #expect(loop.run() == false)
            #expect(start.distance(to: loop.now) < .seconds(5))
            #expect(fired.value == false)
            timer.close()
            timer.arm(at: 0)
            #expect(timer.deadline == nil, "a closed timer stays closed")
        }
    }

    @Test("the loop closing closes an open deadline timer and releases its handler")
    func loopCloseClosesIt() {
        weak var released: Token?
        withLoop { loop in
            let token = Token()
            released = token
            let timer = UVDeadlineTimer(loop: loop) { _ = token }
            loop.run(.noWait)
            timer.arm(at: loop.now.advanced(by: .seconds(30)).uptimeNanoseconds)
        }
        #expect(released == nil)
    }
}
