import Foundation
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The `CONNECT` answer read by ``ProxyTunnelConnection`` through the data
/// tasks' ``HTTPResponseParser``, event by event: the tunnel sits on a
/// recording lower connection, and each answer is fed whole, in 7-byte
/// reads and one byte per read, so a head or a 407 split anywhere behaves
/// as one read. (ProxySessionTests has the same answers on real sockets.)
@Suite("CONNECT answers, parsed as responses")
struct ProxyTunnelAnswerTests {
    static let proxy = UVURLSession.Proxy(host: "127.0.0.1", port: 3128, username: "alice", password: "s3cret")
    static let splits = [Int.max, 7, 1]

    /// The lower connection: records writes and reading.
    final class Lower: HTTPConnectionIO {
        var written: [String] = []
        var isReading = false
        var isClosed = false
        func write(_ bytes: [UInt8]) { written.append(String(decoding: bytes, as: UTF8.self)) }
        var hasPendingWrites: Bool { false }
        func startReading() { isReading = true }
        func stopReading() { isReading = false }
        func setKeepsLoopAlive(_ keepsAlive: Bool) {}
        func close() { isClosed = true }
        var establishment: ConnectionEstablishment { ConnectionEstablishment() }
    }

    /// The layer above: records what the tunnel reported.
    final class Above: HTTPConnectionHandler {
        var connected = false
        var failure: UVURLError?
        func connectionDidConnect() { connected = true }
        func connectionDidFailToConnect(_ error: UVURLError) { failure = error }
        func connectionDidRead(_ bytes: UnsafeRawBufferPointer) {}
        func connectionDidReachEndOfStream() {}
        func connectionDidFail(_ error: UVURLError) {}
    }

    /// A tunnel to localhost:443 whose TCP connection just connected.
    static func tunnel(proxy: UVURLSession.Proxy = proxy) -> (ProxyTunnelConnection, Lower, Above) {
        let above = Above()
        let lower = Lower()
        let tunnel = ProxyTunnelConnection(originHost: "localhost", port: 443, proxy: proxy, handler: above)
        tunnel.lower = lower
        tunnel.connectionDidConnect()
        return (tunnel, lower, above)
    }

    /// Feeds `text` in reads of at most `split` bytes.
    static func feed(_ text: String, to tunnel: ProxyTunnelConnection, split: Int) {
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + min(split, bytes.count))
            bytes[start..<end].withUnsafeBytes { tunnel.connectionDidRead($0) }
            start = end
        }
    }

    static let digest407Head = "HTTP/1.1 407 Proxy Authentication Required\r\n"
        + "Proxy-Authenticate: Basic realm=\"r\"\r\n"
        + "Proxy-Authenticate:   Digest realm=\"r\",\r\n\t  nonce=\"n1\", qop=\"auth\",\r\n algorithm=MD5 \t\r\n"

    @Test("a folded Digest challenge after a Basic field, odd whitespace, any split: answered, then the tunnel opens",
          arguments: splits)
    func foldedDuplicateChallenge(split: Int) {
        let (tunnel, lower, above) = Self.tunnel()
        Self.feed(Self.digest407Head + "Content-Length: 5\r\n\r\nabcde", to: tunnel, split: split)
        #expect(above.failure == nil, "\(String(describing: above.failure))")
        #expect(lower.written.count == 2)
        let answer = lower.written.last ?? ""
        #expect(answer.hasPrefix("CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\nProxy-Authorization: Digest "),
                "\(answer)")
        #expect(answer.contains("nonce=\"n1\"") && answer.contains("uri=\"localhost:443\"") && answer.hasSuffix("\r\n\r\n"),
                "\(answer)")
        Self.feed("HTTP/1.1 200 Connection established\r\n\r\n", to: tunnel, split: split)
        #expect(above.connected)
        #expect(tunnel.phase == .established)
        #expect(!lower.isReading, "the layer above starts reading")
    }

    @Test("a 407 with a chunked body: the body is dropped and the challenge answered", arguments: splits)
    func chunked407(split: Int) {
        let (tunnel, lower, above) = Self.tunnel()
        Self.feed(Self.digest407Head + "Transfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n", to: tunnel, split: split)
        #expect(above.failure == nil, "\(String(describing: above.failure))")
        #expect(lower.written.count == 2)
        #expect(lower.written.last?.contains("Proxy-Authorization: Digest ") == true)
    }

    @Test("interim 100 before a 2xx is skipped, as a data task skips it", arguments: splits)
    func interimThen200(split: Int) {
        let (tunnel, _, above) = Self.tunnel()
        Self.feed("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", to: tunnel, split: split)
        #expect(above.connected)
        #expect(above.failure == nil)
    }

    @Test("a head over 16 KiB: .proxyConnectFailed with the parser's detail", arguments: splits)
    func oversizedHead(split: Int) {
        let (tunnel, lower, above) = Self.tunnel()
        let filler = String(repeating: "a", count: ProxyTunnelConnection.maximumHeadBytes)
        Self.feed("HTTP/1.1 407 Proxy Authentication Required\r\nX-Filler: \(filler)\r\n\r\n", to: tunnel, split: split)
        #expect(above.failure?.code == .proxyConnectFailed)
        #expect(above.failure?.detail
                == "CONNECT localhost:443: \(Self.proxy) sent a malformed answer: header section exceeds 16384 bytes")
        #expect(lower.written.count == 1, "nothing answered")
        #expect(tunnel.phase == .failed)
    }

    @Test("malformed heads: the parser's exact detail")
    func malformedHeads() {
        let cases: [(String, String)] = [
            ("HTTP/1.1 4O7 Nope\r\n\r\n", "malformed status code"),
            ("HTTP/2 200\r\n\r\n", "malformed status line"),
            ("HTTP/1.1 200 OK\r\n Folded-First: x\r\n\r\n", "whitespace before the first header field"),
            ("HTTP/1.1 407 Proxy Authentication Required\r\nBad Name: x\r\n\r\n", "invalid byte in header field name"),
            ("HTTP/1.1 407 Proxy Authentication Required\nContent-Length: 0\r\n\r\n", "bare LF in header section"),
            ("HTTP/1.1 101 Switching Protocols\r\n\r\n", "unexpected 101 Switching Protocols"),
        ]
        for (answer, detail) in cases {
            let (tunnel, _, above) = Self.tunnel()
            Self.feed(answer, to: tunnel, split: Int.max)
            #expect(above.failure?.code == .proxyConnectFailed, "\(answer)")
            #expect(above.failure?.detail == "CONNECT localhost:443: \(Self.proxy) sent a malformed answer: \(detail)",
                    "\(String(describing: above.failure))")
        }
    }

    @Test("a 407 that closes the connection (Connection: close, close-delimited, HTTP/1.0) is not answered")
    func closing407() {
        let notAnswered = "CONNECT localhost:443: \(Self.proxy) answered 407 Proxy Authentication Required"
            + " (not answered: the proxy closed the connection)"
        let heads = [
            Self.digest407Head + "Connection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
            Self.digest407Head + "\r\n",
            Self.digest407Head.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.0") + "Content-Length: 0\r\n\r\n",
        ]
        for head in heads {
            let (tunnel, lower, above) = Self.tunnel()
            Self.feed(head, to: tunnel, split: Int.max)
            #expect(above.failure?.code == .proxyAuthenticationRequired, "\(head)")
            #expect(above.failure?.detail == notAnswered, "\(String(describing: above.failure))")
            #expect(lower.written.count == 1)
        }
        // The end of the stream inside the 407's body.
        let (tunnel, _, above) = Self.tunnel()
        Self.feed(Self.digest407Head + "Content-Length: 10\r\n\r\nabc", to: tunnel, split: Int.max)
        #expect(above.failure == nil)
        tunnel.connectionDidReachEndOfStream()
        #expect(above.failure?.detail == notAnswered)
    }

    @Test("bytes after the 407 in its read, before the answer went out: .proxyConnectFailed")
    func dataAfter407() {
        let (tunnel, lower, above) = Self.tunnel()
        Self.feed(Self.digest407Head + "Content-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", to: tunnel, split: Int.max)
        #expect(above.failure?.code == .proxyConnectFailed)
        #expect(above.failure?.detail == "CONNECT localhost:443: \(Self.proxy) sent data after its 407")
        #expect(lower.written.count == 1)
    }

    @Test("the end of the stream before or inside the head: .proxyConnectFailed naming where")
    func earlyEnd() {
        let (silent, _, quiet) = Self.tunnel()
        silent.connectionDidReachEndOfStream()
        #expect(quiet.failure?.code == .proxyConnectFailed)
        #expect(quiet.failure?.detail == "CONNECT localhost:443: \(Self.proxy) closed the connection before answering")
        let (cut, _, above) = Self.tunnel()
        Self.feed("HTTP/1.1 407 Proxy Auth", to: cut, split: Int.max)
        cut.connectionDidReachEndOfStream()
        #expect(above.failure?.code == .proxyConnectFailed)
        #expect(above.failure?.detail == "CONNECT localhost:443: \(Self.proxy) closed the connection inside its answer's head")
    }
}
