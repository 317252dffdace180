import Foundation
import Testing

/// UVCombineHTTP2 imports no Foundation module and no Dispatch: only
/// nghttp2 (through CUVCombineLazyLibraries' table: the library loads at
/// the first connection, it is not linked), swift-http-types
/// and the protocol core (the C library links it without Foundation).
@Suite("HTTP/2 module imports")
struct HTTP2ModuleImportTests {
    static let allowed: Set<String> = ["CUVCombineLazyLibraries", "HTTPTypes", "UVCombineHTTPCore", "Synchronization", "Glibc", "Musl"]

    @Test("each UVCombineHTTP2 source imports only nghttp2, HTTPTypes and the core")
    func imports() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/UVCombineHTTP2")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        let pattern = #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)/#
        for file in files {
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in source.split(separator: "\n") {
                guard let match = try pattern.firstMatch(in: String(line)) else { continue }
                let module = String(match.output.1)
                #expect(Self.allowed.contains(module), "\(file) imports \(module)")
            }
        }
    }
}
