import UVCombineWebSocketCore

/// How a ``WebSocketClientTask`` frames, compresses and times its
/// connection: the fields of `UVWebSocketTask.Options`, whose defaults
/// these are.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// var options = WebSocketClientOptions()
/// options.compression = nil
/// ```
package struct WebSocketClientOptions: Sendable, Hashable {
    /// Outgoing messages longer than this are sent as fragments of this size.
    package var maximumFrameSize = 64 * 1024
    /// The permessage-deflate offer, or nil to send none.
    package var compression: PerMessageDeflate.Offer? = PerMessageDeflate.Offer()
    /// How long connecting and the opening handshake may take.
    package var openingHandshakeTimeout: Duration = .seconds(30)
    /// How long to wait for the server's close frame after sending ours.
    package var closeTimeout: Duration = .seconds(10)

    /// The defaults.
    package init() {}
}
