import Testing

/// The protocol core imports no Foundation module, no loop and no HTTP
/// module (Package.swift, "UVCombineWebSocketCore"): what its sources
/// import, read from the files. Only the standard library's file reading
/// would need Foundation, so the files are read with the C library.
@Suite("WebSocket core imports")
struct WebSocketCoreImportTests {
    static let allowed: Set<String> = ["CUVCombineLazyLibraries", "HTTPTypes", "UVCombineHTTPCore", "Synchronization", "Glibc", "Musl", "Darwin"]

    static var folder: String {
        let test = #filePath
        let root = test.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        return root + "/Sources/UVCombineWebSocketCore"
    }

    /// The module names of `source`'s import lines, in the forms Swift
    /// accepts (`internal import X`, `@_exported import struct X.Y`, ...).
    static func imports(of source: String) -> [String] {
        source.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard let at = words.firstIndex(of: "import"), words.prefix(at).allSatisfy({
                ["public", "package", "internal", "fileprivate", "private"].contains($0)
            }) else { return nil }
            let rest = words.dropFirst(at + 1)
            let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            guard let path = rest.first(where: { !kinds.contains($0) }) else { return nil }
            return String(path.split(separator: ".")[0])
        }
    }

    @Test("every source file imports only zlib (loaded at first use), HTTPTypes and the C library")
    func importsAreAllowed() throws {
        let files = try SourceFiles.swiftFiles(in: Self.folder)
        #expect(files.count >= 15)
        for file in files {
            for module in Self.imports(of: try SourceFiles.read(file)) where !Self.allowed.contains(module) {
                Issue.record("\(file) imports \(module)")
            }
        }
    }

    @Test("the import reader sees every spelling")
    func importReader() {
        let source = "import A\ninternal import B\n@_exported import struct C.D\n@preconcurrency public import E\n// import F\n"
        #expect(Self.imports(of: source) == ["A", "B", "C", "E"])
    }
}
