import UVCombineHTTP
import UVCombineWebSocketCore
import UVCombineHTTPCore
import FoundationEssentials
import HTTPTypes
import UVCombineWebSocketClient

extension UVURLSession {
    /// Creates a WebSocket task for `url` (`ws://` or `wss://`; `http://`
    /// and `https://` mean the same), offering `protocols` as
    /// subprotocols. Call ``UVWebSocketTask/resume()`` (or subscribe to its
    /// messages) to connect. An invalid URL fails the task when it starts.
    ///
    /// `wss` uses the session's TLS configuration (verification, trusted
    /// roots, SNI) and, as https, its proxy through a `CONNECT` tunnel;
    /// so does `ws` when the session has a proxy for `http`.
    ///
    /// Any thread.
    ///
    /// ```swift
    /// let task = session.webSocketTask(with: URL(string: "wss://example.com/chat")!, protocols: ["chat"])
    /// task.resume()
    /// ```
    public func webSocketTask(with url: URL, protocols: [String] = [],
                              options: UVWebSocketTask.Options = UVWebSocketTask.Options()) -> UVWebSocketTask {
        UVWebSocketTask(session: self, target: WebSocketTarget.parse(url.absoluteString), extraFields: [:],
                        subprotocols: protocols, options: options)
    }

    /// Creates a WebSocket task for `request`: its scheme (`ws`, `wss`,
    /// `http`, `https`), authority and path say where; a
    /// `Sec-WebSocket-Protocol` field lists the subprotocols offered; its
    /// other fields are sent with the handshake (those the handshake
    /// writes itself, like `Upgrade`, fail the task).
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .get, scheme: "ws", authority: "127.0.0.1:8080", path: "/chat")
    /// request.headerFields[.authorization] = "Bearer token"
    /// let task = session.webSocketTask(with: request)
    /// ```
    public func webSocketTask(with request: HTTPRequest,
                              options: UVWebSocketTask.Options = UVWebSocketTask.Options()) -> UVWebSocketTask {
        var fields = request.headerFields
        let protocolName = HTTPField.Name("Sec-WebSocket-Protocol")!
        let protocols = fields[values: protocolName].flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks() }
        fields[protocolName] = nil
        let url = "\(request.scheme ?? "ws")://\(request.authority ?? "")\(request.path ?? "/")"
        return UVWebSocketTask(session: self, target: WebSocketTarget.parse(url), extraFields: fields,
                               subprotocols: protocols, options: options)
    }
}
