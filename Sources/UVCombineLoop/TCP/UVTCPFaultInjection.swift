#if DEBUG
import Synchronization

/// Debug-only fault injection at the points where the TCP layer hears from
/// libuv: socket faults a test server cannot produce on demand (a reset in
/// the middle of a read, `EPIPE` on a write, a resolver failure, no file
/// descriptor left).
///
/// A test arms a libuv status for one point on one loop; the next event at
/// that point on that loop (after `skipping` of them) sees that status
/// instead of libuv's, and takes the code path a real failure takes:
///
/// | point | replaced | real-world counterpart |
/// | --- | --- | --- |
/// | ``Point/resolve`` | the status `uv_getaddrinfo` calls back with | `UV_EAI_AGAIN`, `UV_EAI_NONAME` |
/// | ``Point/connect`` | the status `uv_tcp_connect` returns (it creates the socket) | `UV_EMFILE`, `UV_ENFILE` |
/// | ``Point/read`` | a read callback's outcome (bytes or end of file) | `UV_ECONNRESET` mid-stream or while idle |
/// | ``Point/write`` | the status a write callback reports | `UV_EPIPE`, `UV_ECONNRESET` |
///
/// Compiled only in debug builds: release builds have neither this type
/// nor any check at those points. Faults are scoped to a loop, so tests
/// running in parallel on other loops (and servers on their own loop
/// threads) are unaffected.
///
/// Threading: any thread; the points are checked on the loop thread.
///
/// ```swift
/// UVTCPFaultInjection.inject(UV_ECONNRESET.rawValue, at: .read, on: loop, skipping: 1)
/// defer { UVTCPFaultInjection.removeAll(on: loop) }
/// // The second read on `loop` fails with UV_ECONNRESET.
/// ```
package enum UVTCPFaultInjection {
    /// Where a fault strikes.
    package enum Point: Hashable, Sendable {
        case resolve
        case connect
        case read
        case write
    }

    private struct Armed {
        var point: Point
        var status: Int32
        var skipping: Int
        var remaining: Int
    }

    private static let armed = Mutex<[ObjectIdentifier: [Armed]]>([:])
    /// Whether anything is armed anywhere: the points skip the lock when not.
    private static let armedCount = Atomic<Int>(0)

    /// Arms `status` at `point` on `loop`: after `skipping` events at that
    /// point pass untouched, the next `times` events see `status`.
    package static func inject(_ status: Int32, at point: Point, on loop: UVLoop, skipping: Int = 0, times: Int = 1) {
        armed.withLock { table in
            table[ObjectIdentifier(loop), default: []].append(
                Armed(point: point, status: status, skipping: skipping, remaining: times))
        }
        armedCount.add(1, ordering: .releasing)
    }

    /// Disarms every fault of `loop` (armed faults that never struck).
    package static func removeAll(on loop: UVLoop) {
        let removed = armed.withLock { table in table.removeValue(forKey: ObjectIdentifier(loop))?.count ?? 0 }
        if removed > 0 { armedCount.subtract(removed, ordering: .releasing) }
    }

    /// The status to report instead of libuv's at `point`, if a fault
    /// strikes now. Loop thread.
    internal static func take(_ point: Point, on loop: UVLoop) -> Int32? {
        guard armedCount.load(ordering: .acquiring) > 0 else { return nil }
        let (status, spent) = armed.withLock { table -> (Int32?, Bool) in
            let key = ObjectIdentifier(loop)
            guard var faults = table[key], let index = faults.firstIndex(where: { $0.point == point }) else {
                return (nil, false)
            }
            if faults[index].skipping > 0 {
                faults[index].skipping -= 1
                table[key] = faults
                return (nil, false)
            }
            let status = faults[index].status
            faults[index].remaining -= 1
            let spent = faults[index].remaining == 0
            if spent { faults.remove(at: index) }
            table[key] = faults.isEmpty ? nil : faults
            return (status, spent)
        }
        if spent { armedCount.subtract(1, ordering: .releasing) }
        return status
    }
}
#endif
