import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Issue 17, bug 2: over TLS, a body delimited by the connection's close
/// must end with the server's `close_notify`; a bare TCP FIN (which anyone
/// on the path can send) fails the task instead of shortening the body.
@Suite("TLS: close-delimited bodies and close_notify")
struct TLSTruncationTests {
    static let truncationDetail = "truncated body: TLS connection closed without close_notify"

    @Test("the parser: an unauthenticated end fails a close-delimited body, and ends anything already complete")
    func parserEndOfInput() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: .get)
        Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc".utf8).withUnsafeBytes { bytes in
            var rest = bytes
            while true {
                guard let (event, consumed) = try? parser.next(rest) else { break }
                rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
                if case .needMoreData = event { break }
            }
        }
        do throws(UVURLError) {
            _ = try parser.endOfInput(isAuthenticated: false)
            Issue.record("an unauthenticated end must not end a close-delimited body")
        } catch {
            #expect(error.code == .networkConnectionLost)
            #expect(error.detail == Self.truncationDetail)
        }

        // A Content-Length body that arrived whole ends as before.
        var complete = HTTPResponseParser()
        complete.expectResponse(to: .get)
        var ended = false
        Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8).withUnsafeBytes { bytes in
            if case .head? = try? complete.next(bytes).event { ended = true }
        }
        #expect(ended)
        if case .end(let keepAlive) = try complete.endOfInput(isAuthenticated: false) {
            #expect(!keepAlive)
        } else {
            Issue.record("expected .end")
        }
    }

    @Test("a close-delimited body cut by a bare FIN fails with networkConnectionLost; with close_notify it arrives whole")
    func closeDelimitedBody() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let file = pseudoRandomBytes(100 * 1024 + 3, seed: 17)
        let server = try TLSTestServer(.closeDelimited, certificate: certificates.localhost,
                                       key: certificates.keyFile, files: ["file.bin": Data(file)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))

            let whole = fetch(session.dataTaskPublisher(for: server.url("/notify/file.bin")), on: loop)
            #expect(whole?.error == nil, "\(String(describing: whole?.error))")
            #expect(whole?.data == Data(file), "ended by close_notify: byte for byte")

            let cut = fetch(session.dataTaskPublisher(for: server.url("/cut/file.bin")), on: loop)
            #expect(cut?.error?.code == .networkConnectionLost, "\(String(describing: cut))")
            #expect(cut?.error?.detail == Self.truncationDetail)

            // Streaming: the parts that arrived, then the same failure.
            let tracker = PartsTracker()
            session.bytesPublisher(for: server.url("/cut/file.bin")).subscribe(tracker)
            loop.run()
            #expect(tracker.parts.first == "head(200)")
            #expect(tracker.bodyByteCount <= file.count)
            if case .failure(let error)? = tracker.completion {
                #expect(error.code == .networkConnectionLost)
                #expect(error.detail == Self.truncationDetail)
            } else {
                Issue.record("expected a failure, got \(String(describing: tracker.completion))")
            }

            // The session goes on working.
            let again = fetch(session.dataTaskPublisher(for: server.url("/notify/file.bin")), on: loop)
            #expect(again?.data == Data(file))
        }
    }
}
