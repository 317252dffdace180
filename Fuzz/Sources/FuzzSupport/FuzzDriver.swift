#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibFuzzer

/// Runs a fuzz target: hands the process to libFuzzer's driver, which calls
/// `testOneInput` with each input (generated, or read from the files and
/// folders named on the command line) and takes every libFuzzer flag from
/// argv.
///
/// Each target defines `LLVMFuzzerTestOneInput` and its `main.swift` is
/// one call:
///
/// ```swift
/// @_cdecl("LLVMFuzzerTestOneInput")
/// public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
///     check(UnsafeRawBufferPointer(start: start, count: count))
///     return 0
/// }
///
/// FuzzDriver.run(fuzzOneInput)  // main.swift
/// ```
///
/// Why both: SwiftPM links an executable with `--defsym main=<Target>_main`
/// (its renamed entry point), but the linker may already have taken
/// libFuzzer's own `main` (FuzzerMain.o, in libclang_rt.fuzzer) while `main`
/// was still undefined. Whichever `main` the process ends up with, it runs
/// the same driver on the same `LLVMFuzzerTestOneInput`.
///
/// Threading: libFuzzer calls `testOneInput` on the main thread, one input
/// at a time.
public enum FuzzDriver {
    /// Starts libFuzzer's driver with the process's arguments and exits
    /// with its status.
    public static func run(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }
}

/// Checks a property of the code under test. A violation prints `message`
/// and aborts, which libFuzzer reports as a crash and saves the input that
/// caused it (`crash-<sha1>`, replayed by passing the file to the target).
///
/// ```swift
/// fuzzCheck(!value.contains(0x0D), "an accepted value contains CR: \(value)")
/// ```
public func fuzzCheck(
    _ condition: Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if condition { return }
    var report = "\nPROPERTY VIOLATED at \(file):\(line)\n\(message())\n\n"
    report.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    abort()
}
