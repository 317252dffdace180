/// The ALPN protocol ids (RFC 7301) for the TLS layer: what a client offers
/// in its ClientHello and how it reads the server's choice.
///
/// `h2` is HTTP/2 over TLS (RFC 9113, section 3.2); `http/1.1` is
/// HTTP/1.1. Cleartext HTTP/2 (`h2c`) is spoken only with prior knowledge
/// (``HTTP2ClientConnection`` sends the client preface first); the HTTP/1.1
/// `Upgrade: h2c` dance was removed by RFC 9113 and is not offered.
///
/// Threading: constants; any thread.
///
/// ```swift
/// // OpenSSL's SSL_CTX_set_alpn_protos wants the wire format:
/// let wire = HTTP2ALPN.wireFormat([HTTP2ALPN.http2, HTTP2ALPN.http11])
/// print(wire.count) // Prints: "12"
/// ```
public enum HTTP2ALPN {
    /// `"h2"`: HTTP/2 over TLS.
    public static let http2 = "h2"
    /// `"http/1.1"`: HTTP/1.1.
    public static let http11 = "http/1.1"

    /// The protocols in ALPN's wire format: each id preceded by its length
    /// in one byte, in order of preference. Ids longer than 255 bytes or
    /// empty ones cannot be sent and are left out.
    ///
    /// ```swift
    /// print(HTTP2ALPN.wireFormat(["h2"])) // Prints: "[2, 104, 50]"
    /// ```
    public static func wireFormat(_ protocols: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for name in protocols {
            let utf8 = Array(name.utf8)
            guard (1...255).contains(utf8.count) else { continue }
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        return bytes
    }
}
