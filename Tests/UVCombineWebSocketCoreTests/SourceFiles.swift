#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Lists and reads source files with the C library (the core's tests
/// import no Foundation module, as the core does not).
enum SourceFiles {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `.swift` files directly in `folder`, sorted.
    static func swiftFiles(in folder: String) throws -> [String] {
        guard let directory = opendir(folder) else { throw Failure(description: "cannot open \(folder)") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".swift") { names.append(folder + "/" + name) }
        }
        return names.sorted()
    }

    /// The whole file as UTF-8 text.
    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw Failure(description: "cannot read \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
