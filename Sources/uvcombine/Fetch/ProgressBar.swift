import Foundation
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

/// The download progress on standard error, redrawn ten times a second
/// on the loop, for downloads that last longer than half a second (short
/// ones never show it):
///
///     [##############----------------]  47%   1.4 MiB of 3.0 MiB   2.8 MiB/s
///
/// Without a `Content-Length` it shows the bytes and the rate only.
/// Loop thread only.
final class ProgressBar {
    /// Whether a bar may be drawn: standard error is a terminal and the
    /// body does not go to a terminal too.
    static func isWanted(output: FetchOutput) -> Bool {
        isatty(2) != 0 && !output.isTerminal
    }

    private let loop: UVLoop
    private let start: UVLoop.SchedulerTimeType
    private var expected: Int?
    private var received = 0
    private var shown = false
    private var ticking: (any Cancellable)?

    /// How long a download runs before the bar appears.
    static let delay = 0.5
    static let width = 30

    /// Starts the clock when the response head arrived.
    init(loop: UVLoop, expectedBytes: Int?) {
        self.loop = loop
        start = loop.now
        expected = expectedBytes
        ticking = loop.schedule(after: loop.now.advanced(by: .seconds(Self.delay)), interval: .milliseconds(100)) {
            [unowned self] in self.draw()
        }
    }

    /// Counts body bytes.
    func add(_ count: Int) {
        received += count
    }

    /// Stops redrawing; a bar that was shown is drawn complete (when the
    /// transfer completed) and the line ended.
    func finish(completed: Bool) {
        ticking?.cancel()
        ticking = nil
        if shown {
            if completed { draw() }
            writeError("\n")
        }
    }

    private func draw() {
        shown = true
        let seconds = max(Double(start.distance(to: loop.now).nanoseconds) / 1e9, 0.001)
        let rate = "\(Self.format(Int(Double(received) / seconds)))/s"
        var line = "\r"
        if let expected, expected > 0 {
            let fraction = min(Double(received) / Double(expected), 1)
            let filled = Int(fraction * Double(Self.width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled) + "]"
            line += String(format: " %3d%%", Int(fraction * 100))
            line += "  \(Self.format(received)) of \(Self.format(expected))  \(rate)"
        } else {
            line += "\(Self.format(received))  \(rate)"
        }
        writeError(line + "\u{1B}[K")
    }

    /// `512 B`, `12.0 KiB`, `3.4 MiB`, `1.2 GiB`.
    static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    private func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
