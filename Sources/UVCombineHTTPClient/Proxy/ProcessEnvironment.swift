#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment as a dictionary, read from `environ`: what
/// `ProcessInfo.processInfo.environment` gives, without Foundation (the
/// engine links no Foundation module).
///
/// Threading: reads `environ`, which `setenv` on another thread may
/// change meanwhile (as with `ProcessInfo`); call it while nothing does.
package enum ProcessEnvironment {
    /// Every `NAME=value` entry; a name given twice keeps its first value,
    /// as `getenv` finds it.
    package static func variables() -> [String: String] {
        var result: [String: String] = [:]
        #if canImport(Darwin)
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron()?.pointee
        #else
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        guard var entry = start else { return result }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }
}
