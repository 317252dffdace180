import HTTPTypes
import UVCombineHTTPCore

/// Turns a request written for an origin into one for a forwarding proxy
/// (RFC 9112, 3.2.2): the request target in absolute form
/// (`GET http://example.com:8080/a?b HTTP/1.1`; `Host` stays), and
/// `Proxy-Authorization: Basic ...` after the `Host` line (where curl puts
/// it) when the proxy has credentials and the request carries no such
/// field of its own.
///
/// The head was written (and checked) by ``HTTPRequestWriter`` already; the
/// prefix is inserted in place, so the body behind it moves once. Runs only
/// for requests through an `http` proxy.
///
/// ```swift
/// var bytes = Array("GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8)
/// ProxyRequestHead.rewrite(&bytes, for: request, target: target, on: key)
/// // "GET http://example.com/a HTTP/1.1\r\nHost: example.com\r\nProxy-Authorization: Basic YTpi\r\n\r\n"
/// ```
///
/// Threading: stateless.
package enum ProxyRequestHead {
    private static let proxyAuthorization = HTTPField.Name("Proxy-Authorization")!

    package static func rewrite(_ buffer: inout [UInt8], for request: HTTPRequest, target: HTTPRequestTarget?,
                                 on key: ConnectionKey) {
        guard let proxy = key.proxy else { return }
        var lineEnd: Int? = nil
        if let space = buffer.firstIndex(of: 0x20), space + 1 < buffer.count, buffer[space + 1] == UInt8(ascii: "/"),
           let authority = request.authority ?? target?.authority {
            // Origin form becomes absolute form; `*` (OPTIONS) stays.
            let prefix = Array("http://\(authority)".utf8)
            buffer.insert(contentsOf: prefix, at: space + 1)
        }
        if !proxy.authorizationLine.isEmpty && request.headerFields[proxyAuthorization] == nil {
            // After the request line and the `Host` line the writer puts
            // right after it, where curl puts it.
            var linesToSkip = request.authority == nil ? 1 : 2
            var index = 0
            while index + 1 < buffer.count {
                if buffer[index] == 0x0D && buffer[index + 1] == 0x0A {
                    linesToSkip -= 1
                    if linesToSkip == 0 {
                        lineEnd = index + 2
                        break
                    }
                }
                index += 1
            }
            if let lineEnd { buffer.insert(contentsOf: proxy.authorizationLine, at: lineEnd) }
        }
    }
}
