/// permessage-deflate (RFC 7692): what the client offers and what the
/// server's answer settled.
///
/// The client offers `permessage-deflate; client_max_window_bits` (it can
/// compress with any window the server asks for), plus the parameters set
/// here. The server's answer is checked strictly (RFC 7692, 5.1 and 7.1):
/// an unknown or repeated parameter, a value out of 8-15, a value on a
/// flag, `client_max_window_bits` without a value, or a second
/// permessage-deflate fails the handshake.
///
/// ```swift
/// let offer = PerMessageDeflate.Offer()
/// print(offer.headerValue) // Prints: "permessage-deflate; client_max_window_bits"
/// let agreed = try PerMessageDeflate.Parameters(response: "permessage-deflate; server_no_context_takeover", offer: offer)
/// print(agreed.serverNoContextTakeover) // Prints: "true"
/// ```
///
/// Threading: value types; `Sendable`.
public enum PerMessageDeflate {
    /// What the client asks for.
    ///
    /// ```swift
    /// var offer = PerMessageDeflate.Offer()
    /// offer.serverNoContextTakeover = true // the server starts each message afresh
    /// ```
    public struct Offer: Sendable, Hashable {
        /// Asks the server to compress each message afresh (less memory on
        /// the server, worse compression).
        public var serverNoContextTakeover = false
        /// Tells the server the client compresses each message afresh.
        public var clientNoContextTakeover = false
        /// Asks the server for an LZ77 window of at most 2^n bytes (8-15), or nil.
        public var serverMaxWindowBits: Int?

        /// The default offer: context takeover both ways, 15-bit windows.
        ///
        /// ```swift
        /// let offer = PerMessageDeflate.Offer()
        /// ```
        public init() {}

        /// The `Sec-WebSocket-Extensions` value.
        public var headerValue: String {
            var value = "permessage-deflate"
            if serverNoContextTakeover { value += "; server_no_context_takeover" }
            if clientNoContextTakeover { value += "; client_no_context_takeover" }
            if let serverMaxWindowBits { value += "; server_max_window_bits=\(serverMaxWindowBits)" }
            value += "; client_max_window_bits"
            return value
        }
    }

    /// What was agreed.
    ///
    /// ```swift
    /// let agreed = try PerMessageDeflate.Parameters(response: "permessage-deflate", offer: .init())
    /// print(agreed.clientMaxWindowBits) // Prints: "15"
    /// ```
    public struct Parameters: Sendable, Hashable {
        /// The server compresses each message afresh (the client resets
        /// its inflater after each).
        public var serverNoContextTakeover = false
        /// The client compresses each message afresh.
        public var clientNoContextTakeover = false
        /// The server's window: 2^n bytes.
        public var serverMaxWindowBits = 15
        /// The client's window: 2^n bytes. zlib cannot deflate with a
        /// window of 2^8 (it uses 2^9), so a client held to 8 bits sends
        /// its messages uncompressed, which RFC 7692 allows.
        public var clientMaxWindowBits = 15

        /// Parameters with RFC 7692's defaults.
        public init() {}

        /// Parses the one extension of a `Sec-WebSocket-Extensions`
        /// answer (already split off the others).
        ///
        /// - Throws: ``WebSocketHandshakeError`` with the reason.
        public init(response element: String, offer: Offer) throws(WebSocketHandshakeError) {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingBlanks() }
            guard parts.first?.lowercased() == "permessage-deflate" else {
                throw WebSocketHandshakeError("the server answered with extension \"\(parts.first ?? "")\", which was not offered")
            }
            var seen = Set<String>()
            for part in parts.dropFirst() {
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = pieces[0].trimmingBlanks().lowercased()
                var value: String? = pieces.count == 2 ? pieces[1].trimmingBlanks() : nil
                if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                    value = String(quoted.dropFirst().dropLast())
                }
                guard seen.insert(name).inserted else {
                    throw WebSocketHandshakeError("permessage-deflate parameter \(name) appears twice")
                }
                switch name {
                case "server_no_context_takeover", "client_no_context_takeover":
                    guard value == nil else {
                        throw WebSocketHandshakeError("permessage-deflate parameter \(name) has a value")
                    }
                    if name == "server_no_context_takeover" { serverNoContextTakeover = true } else { clientNoContextTakeover = true }
                case "server_max_window_bits", "client_max_window_bits":
                    guard let value, let bits = Int(value), (8...15).contains(bits), value.first != "0" else {
                        throw WebSocketHandshakeError("permessage-deflate parameter \(name) needs a value from 8 to 15")
                    }
                    if name == "server_max_window_bits" {
                        if let asked = offer.serverMaxWindowBits, bits > asked {
                            throw WebSocketHandshakeError("server_max_window_bits=\(bits) exceeds the \(asked) offered")
                        }
                        serverMaxWindowBits = bits
                    } else {
                        clientMaxWindowBits = bits
                    }
                default:
                    throw WebSocketHandshakeError("unknown permessage-deflate parameter \"\(name)\"")
                }
            }
            if offer.serverNoContextTakeover && !serverNoContextTakeover {
                // RFC 7692, 7.1.1.1: the server must accept it if it
                // accepts the offer at all.
                throw WebSocketHandshakeError("the server dropped server_no_context_takeover")
            }
            if offer.clientNoContextTakeover { clientNoContextTakeover = true }
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    package func trimmingBlanks() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
