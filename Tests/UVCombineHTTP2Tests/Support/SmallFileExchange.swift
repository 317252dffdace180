import HTTPTypes
import UVCombineHTTP2

/// A client connection and an in-memory server for repeated GETs of one
/// small file, with a delegate that consumes everything: the set-up the
/// cost and block-cache tests share. The exchange holds the delegate,
/// which the connection does not keep.
struct SmallFileExchange {
    let client: HTTP2ClientConnection
    let server: InMemoryServer
    let recorder: CountingDelegate
    let request = HTTPRequest(method: .get, scheme: "http", authority: "example.test", path: "/small.txt")

    /// A body of `bodySize` bytes of 7s under `fields`.
    init(bodySize: Int = 1024, fields: [(String, String)] = [("content-type", "text/plain")]) throws {
        client = try HTTP2ClientConnection()
        server = InMemoryServer()
        let body = Array(repeating: UInt8(7), count: bodySize)
        server.respond = { _, _ in InMemoryServer.Response(fields: fields, body: body) }
        recorder = CountingDelegate()
        client.delegate = recorder
    }
}
