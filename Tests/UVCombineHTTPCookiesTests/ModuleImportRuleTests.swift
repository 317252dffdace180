import Foundation
import Testing

/// The two modules of issue 35 stay light (docs/engineering-notes.md,
/// "Modules by weight"): no Foundation module and no Dispatch, so the C
/// library may link them. Read from the source files, as
/// UVCombineCoreTests' ModuleImportTests does for the other modules.
@Suite("Cookie and authentication module imports")
struct ModuleImportRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("each module imports only what it may", arguments: [
        ("Sources/UVCombineHTTPCookies", Set(["HTTPTypes", "Synchronization"])),
        ("Sources/UVCombineHTTPAuthentication", Set(["HTTPTypes", "CUVCombineLazyLibraries", "UVCombineHTTPCore"])),
    ])
    func imports(_ folder: String, _ allowed: Set<String>) throws {
        let directory = Self.root.appendingPathComponent(folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        let pattern = #/^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)/#
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let match = try pattern.firstMatch(in: String(line)) else { continue }
                #expect(allowed.contains(String(match.output.1)), "\(folder)/\(file) imports \(match.output.1)")
            }
        }
    }
}
