import Foundation
import Testing

/// What libuvcombine-c.so is: a library C hosts can load without a Swift
/// toolchain, exporting exactly the header's functions, installable with
/// pkg-config.
@Suite("libuvcombine-c.so", .serialized)
struct LibraryTests {
    /// What the library may need at start-up: libuv, the C runtime
    /// (glibc's loader included) and libgcc's unwinder, nothing of Swift's
    /// and not libstdc++ (linked in statically, as the Swift runtime is:
    /// the Makefile's C_STATIC_CXX_DIR). OpenSSL 3 (https, docs/tls.md),
    /// zlib (compressed bodies, permessage-deflate) and nghttp2 (HTTP/2,
    /// docs/http2.md) are loaded at first use (`dlopen`), never at
    /// start-up (issue 30; `make c-lib-size` checks this too).
    static let allowedDependencies: Set<String> = [
        "libuv.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
    ]

    @Test("needs only libuv, libc, libm and libgcc at start-up (not libstdc++, OpenSSL, zlib or nghttp2)")
    func dependencies() async {
        guard await CPrograms.requireBuild() else { return }
        let dynamic = await CPrograms.run(["readelf", "-d", CPrograms.library.path])
        #expect(dynamic.status == 0, "\(dynamic.tail)")
        let needed = Set(dynamic.output.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["),
                  let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        })
        #expect(needed.contains("libuv.so.1"))
        #expect(needed.isSubset(of: Self.allowedDependencies), "unexpected: \(needed.subtracting(Self.allowedDependencies))")
        // Every one of them resolves on this system, without the toolchain.
        let ldd = await CPrograms.run(["ldd", CPrograms.library.path])
        #expect(ldd.status == 0, "\(ldd.tail)")
        #expect(!ldd.output.contains("not found"), "\(ldd.output)")
        #expect(!ldd.output.contains("swift"), "\(ldd.output)")
    }

    /// The release library stripped stays under the Makefile's
    /// C_LIB_STRIPPED_LIMIT_KB: a Foundation import on the C API's path
    /// (Core, Loop, LoopFoundation, HTTP, the implementation) would take it
    /// from about 13 MB to about 60 MB. The limit is for release builds
    /// (`make test`); a debug library is larger.
    @Test("stripped, the release library is under its size limit (make c-lib-size)",
          .enabled(if: CPrograms.configuration == "release", "the limit is for the release library"))
    func strippedSize() async {
        guard await CPrograms.requireBuild() else { return }
        let check = await CPrograms.run(["make", "--no-print-directory", "c-lib-size"] + CPrograms.makeVariables,
                                        timeout: 900)
        #expect(check.status == 0, "\(check.tail)")
        #expect(check.output.contains("kB stripped"), "\(check.tail)")
    }

    /// Start-up stays within the Makefile's C_STARTUP_LIMIT_KINSTR: the
    /// instructions Examples/c-footprint's uvc.c runs from exec to its timer
    /// armed, beyond what the plain C libuv program runs (callgrind,
    /// Examples/c-footprint/startup.py). A count, not a time, so a loaded
    /// machine does not move it (issue 30). Release library only.
    @Test("start-up to the armed timer stays within its instruction limit (make c-startup)",
          .enabled(if: CPrograms.configuration == "release", "the limit is for the release library"))
    func startupInstructions() async {
        guard await CPrograms.requireBuild() else { return }
        let check = await CPrograms.run(["make", "--no-print-directory", "c-startup"] + CPrograms.makeVariables,
                                        timeout: 900)
        #expect(check.status == 0, "\(check.tail)")
        #expect(check.output.contains("exec to timer armed, instructions"), "\(check.tail)")
    }

    @Test("exports exactly the functions uvcombine.h declares")
    func exports() async throws {
        guard await CPrograms.requireBuild() else { return }
        let symbols = await CPrograms.run(["nm", "-D", "--defined-only", CPrograms.library.path])
        #expect(symbols.status == 0, "\(symbols.tail)")
        // Global symbols have an upper-case type letter.
        let exported = Set(symbols.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1].first?.isUppercase == true else { return nil }
            return String(fields[2])
        })
        let declared = try CPrograms.declaredFunctions()
        #expect(exported == declared,
                "exported only: \(exported.subtracting(declared).sorted()), declared only: \(declared.subtracting(exported).sorted())")
    }

    @Test("make install: a host builds with pkg-config and runs")
    func installAndBuildWithPkgConfig() async throws {
        guard await CPrograms.requireBuild() else { return }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let install = await CPrograms.run(["make", "--no-print-directory", "install", "PREFIX=\(prefix.path)"]
                                    + CPrograms.makeVariables, timeout: 900)
        #expect(install.status == 0, "\(install.tail)")
        guard install.status == 0 else { return }
        for file in ["include/uvcombine.h", "lib/libuvcombine-c.so", "lib/pkgconfig/uvcombine.pc"] {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "\(file)")
        }
        let host = prefix.appendingPathComponent("host").path
        let build = await CPrograms.run(
            ["sh", "-c", "gcc -std=gnu11 -Wall -Wextra -Werror Examples/c-host/host.c "
                + "$(pkg-config --cflags --libs uvcombine) -lpthread -o \(host)"],
            environment: ["PKG_CONFIG_PATH": prefix.appendingPathComponent("lib/pkgconfig").path])
        #expect(build.status == 0, "\(build.tail)")
        let run = await CPrograms.run([CPrograms.withServer, host],
                                environment: ["LD_LIBRARY_PATH": prefix.appendingPathComponent("lib").path])
        #expect(run.status == 0, "\(run.tail)")
        #expect(run.output.contains("uv_loop_close: 0"))
    }
}
