import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The package-level wire observer (`uvcombine fetch -v`, `-i`): it sees
/// each request as written, the response bytes as read and each
/// connection established, on real sockets.
@Suite("SessionWireObserver")
struct SessionWireObserverTests {
    final class Recorder: SessionWireObserver {
        var written: [UInt8] = []
        var read: [UInt8] = []
        var connects = 0
        func sessionWillWrite(_ bytes: UnsafeRawBufferPointer) { written.append(contentsOf: bytes) }
        func sessionDidRead(_ bytes: UnsafeRawBufferPointer) { read.append(contentsOf: bytes) }
        func sessionDidConnect() { connects += 1 }
    }

    @Test func seesTheRequestAndTheResponseBytesOnTheWire() throws {
        let server = try TestHTTPServer(routes: ["/hello": .text("hello\n")])
        defer { server.shutdown() }
        let loop = try UVLoop()
        defer { try? loop.close() }
        let recorder = Recorder()
        let session = UVURLSession(loop: loop)
        session.engine.wireObserver = recorder
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/hello")
        request.headerFields[.userAgent] = "wire-test"
        // Two requests on one keep-alive connection: one connect.
        for _ in 0..<2 {
            let outcome = fetch(session.dataTaskPublisher(for: request, body: Data("ab".utf8)), on: loop)
            #expect(outcome?.text == "hello\n")
        }
        let sent = String(decoding: recorder.written, as: UTF8.self)
        let one = "POST /hello HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nUser-Agent: wire-test\r\nAccept-Encoding: gzip, deflate\r\nContent-Length: 2\r\n\r\nab"
        #expect(sent == one + one)
        let received = String(decoding: recorder.read, as: UTF8.self)
        #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(received.components(separatedBy: "\r\n\r\nhello\n").count == 3)
        #expect(recorder.connects == 1)
    }
}
