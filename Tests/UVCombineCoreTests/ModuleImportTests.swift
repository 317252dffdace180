import Foundation
import Testing

/// Modules by weight (docs/engineering-notes.md, "Modules by weight"): what
/// each library module's sources may import, read from the files. The C
/// library links Core, Loop, HTTPCore, HTTPClient, WebSocketCore and
/// WebSocketClient; one `import Foundation` in any of them brings
/// swift-corelibs-foundation and ICU's tables (about 50 MB) into
/// libuvcombine-c.so, and one `import FoundationEssentials` about 5 MB,
/// which LibraryTests and `make c-lib-size` bound.
@Suite("Module imports")
struct ModuleImportTests {
    /// What may be imported, by source folder. `nil` allows anything but
    /// the `forbidden` list.
    struct Rule: Sendable, CustomStringConvertible {
        let folder: String
        /// The only modules allowed, when not nil.
        let allowed: Set<String>?
        /// Modules never allowed.
        let forbidden: Set<String>

        var description: String { folder }
    }

    /// Foundation in every spelling, the heavy half of it, and our modules
    /// that import it.
    static let foundation: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationXML", "CoreFoundation", "UVCombineFoundation",
    ]

    static let rules: [Rule] = [
        // The standard library, Synchronization and the header-only thread
        // identity read: no Foundation module, no Dispatch.
        Rule(folder: "Sources/UVCombineCore",
             allowed: ["Synchronization", "Glibc", "Musl", "Darwin", "CUVCombineThreadIdentity"],
             forbidden: []),
        Rule(folder: "Sources/UVCombineLoop",
             allowed: ["Synchronization", "Glibc", "Musl", "Darwin", "CLibUV", "UVCombineCore"],
             forbidden: []),
        // FoundationEssentials (Date, Data, URL) at most.
        Rule(folder: "Sources/UVCombineLoopFoundation", allowed: nil, forbidden: foundation.union(["Dispatch"])),
        // The HTTP protocol core: no I/O, no loop, no Combine core, and no
        // Foundation module (it parses URLs itself: HTTPURLReference).
        // swift-http-types and the C library (memchr, inet_pton) only, so
        // the fuzzers and the state machines' tests build it alone, and
        // the C library's HTTP path needs no FoundationEssentials for it.
        Rule(folder: "Sources/UVCombineHTTPCore",
             allowed: ["HTTPTypes", "Glibc", "Musl", "Darwin"],
             forbidden: []),
        // The session's engine (pool, transports, TLS, proxy tunnel,
        // decoder, deadlines), which the C API drives: no Foundation
        // module, no Dispatch, so libuvcombine-c.so links none; and
        // OpenSSL and zlib only as loaded at first use
        // (CUVCombineLazyLibraries), never the linked COpenSSL or CZlib,
        // so the library does not load them at start-up.
        Rule(folder: "Sources/UVCombineHTTPClient", allowed: nil,
             forbidden: foundation.union(["FoundationEssentials", "Dispatch", "COpenSSL", "CZlib"])),
        // The public Swift surface: FoundationEssentials (`URL`, `Data`)
        // at most, converted at the edge.
        Rule(folder: "Sources/UVCombineHTTP", allowed: nil, forbidden: foundation),
        Rule(folder: "Sources/UVCombineWebSocket", allowed: nil, forbidden: foundation),
        // The WebSocket task in bytes, which the C API drives: no
        // Foundation module, no Dispatch, as UVCombineHTTPClient.
        Rule(folder: "Sources/UVCombineWebSocketClient", allowed: nil,
             forbidden: foundation.union(["FoundationEssentials", "Dispatch", "COpenSSL", "CZlib"])),
        // The C API: only the Foundation-free modules (the Client ones for
        // fetches and WebSockets), so libuvcombine-c.so links no
        // Foundation module at all.
        Rule(folder: "Sources/CUVCombineImplementation", allowed: nil,
             forbidden: foundation.union(["FoundationEssentials", "Dispatch", "UVCombineHTTP", "UVCombineWebSocket",
                                          "UVCombineLoopFoundation", "COpenSSL", "CZlib"])),
    ]

    /// The package's root directory.
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The modules `source` imports, in every form Swift accepts
    /// (`@preconcurrency`, `@_exported`, an access level, `import struct
    /// M.T`), including those under `#if`.
    static func importedModules(_ source: String) -> [String] {
        let pattern = #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)/#
        return source.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            (try? pattern.firstMatch(in: line)).map { String($0.output.1) }
        }
    }

    @Test("the import scanner sees every form of import")
    func scannerSeesEveryForm() {
        let source = """
            import Synchronization
            @preconcurrency import Dispatch
            #if canImport(FoundationEssentials)
              public import FoundationEssentials
            #endif
            @_spi(X) @testable internal import struct Foundation.Data
            /// import NotAModule (a doc comment)
            // import NotAModuleEither
            let importance = 1
            """
        #expect(Self.importedModules(source) == ["Synchronization", "Dispatch", "FoundationEssentials", "Foundation"])
    }

    @Test("each library module imports only what its weight allows", arguments: rules)
    func importsFollowTheRule(_ rule: Rule) throws {
        let folder = Self.root.appendingPathComponent(rule.folder)
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty, "no sources in \(rule.folder)")
        for file in files {
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for module in Self.importedModules(source) {
                if let allowed = rule.allowed {
                    #expect(allowed.contains(module), "\(rule.folder)/\(file) imports \(module)")
                }
                #expect(!rule.forbidden.contains(module), "\(rule.folder)/\(file) imports \(module)")
            }
        }
    }
}
