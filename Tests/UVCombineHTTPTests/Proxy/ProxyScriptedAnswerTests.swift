import Foundation
import Testing
import TestServerSupport
import UVCombineHTTP
import UVCombineLoop

/// `CONNECT` answers no real proxy sends, written byte for byte by a
/// scripted TCP server, through a session: a 407 whose head arrives in
/// pieces with a folded Digest challenge after a Basic one, and a head
/// over the 16 KiB limit. ProxyTunnelAnswerTests feeds the same answers
/// split at every byte, without sockets.
extension ProxySessionTests {
    /// How many heads (`CRLF CRLF`) `bytes` holds.
    static func headCount(_ bytes: [UInt8]) -> Int {
        let end = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4 else { return 0 }
        return (0...(bytes.count - 4)).count(where: { Array(bytes[$0..<$0 + 4]) == end })
    }

    @Test("a real socket: a 407 written in pieces, its Digest challenge folded after a Basic one, is answered on the same connection")
    func scriptedFolded407() throws {
        let head = Array((ProxyTunnelAnswerTests.digest407Head + "Content-Length: 5\r\n\r\nabcde").utf8)
        let server = try ScriptedTCPServer { connection in
            guard connection.read(until: { Self.headCount($0) == 1 }) else { return }
            for start in stride(from: 0, to: head.count, by: 19) {
                guard connection.write(Array(head[start..<min(start + 19, head.count)])) else { return }
            }
            guard connection.read(until: { Self.headCount($0) == 2 }) else { return }
            connection.write(Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
            _ = connection.awaitClose()
        }
        let proxy = Proxy(host: "127.0.0.1", port: server.port, username: "alice", password: "s3cret")
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(https: proxy))
            let outcome = fetch(session.dataTaskPublisher(for: URL(string: "https://localhost:1/x")!), on: loop)
            #expect(outcome?.error?.code == .proxyConnectFailed, "\(String(describing: outcome))")
            #expect(outcome?.error?.detail == "CONNECT localhost:1: \(proxy) answered 502 Bad Gateway",
                    "\(String(describing: outcome?.error))")
            #expect(session.engine.connectionCount == 0)
        }
        let connection = server.wait()
        let received = String(decoding: connection?.received ?? [], as: UTF8.self)
        let requests = received.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        #expect(requests.count == 2, "\(received)")
        #expect(requests.first?.contains("Proxy-Authorization: Basic ") == true)
        #expect(requests.last?.hasPrefix("CONNECT localhost:1 HTTP/1.1\r\nHost: localhost:1\r\nProxy-Authorization: Digest ") == true)
        #expect(requests.last?.contains("nonce=\"n1\"") == true, "\(received)")
        #expect(connection?.peerClosed == true)
    }

    @Test("a real socket: a CONNECT answer whose head passes 16 KiB fails with the parser's detail; the connection is closed")
    func scriptedOversizedHead() throws {
        let filler = String(repeating: "a", count: 1000)
        let head = "HTTP/1.1 407 Proxy Authentication Required\r\n"
            + (0..<20).map { "X-Filler-\($0): \(filler)\r\n" }.joined() + "\r\n"
        let server = try ScriptedTCPServer { connection in
            guard connection.read(until: { Self.headCount($0) == 1 }) else { return }
            connection.write(Array(head.utf8))
            _ = connection.awaitClose()
        }
        let proxy = Proxy(host: "127.0.0.1", port: server.port, username: "alice", password: "s3cret")
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: Self.configuration(https: proxy))
            let outcome = fetch(session.dataTaskPublisher(for: URL(string: "https://localhost:1/x")!), on: loop)
            #expect(outcome?.error?.code == .proxyConnectFailed)
            #expect(outcome?.error?.detail
                    == "CONNECT localhost:1: \(proxy) sent a malformed answer: header section exceeds 16384 bytes",
                    "\(String(describing: outcome?.error))")
        }
        #expect(server.wait()?.peerClosed == true)
    }
}
