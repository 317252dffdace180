import Foundation

/// What the embedded server serves: stand-ins for the seeds' URLs.
///
/// | path | seed | answer |
/// | --- | --- | --- |
/// | `/` | `https://example.com/` | an HTML page, after a short "download" delay |
/// | `/endpoint` | `https://example.com/endpoint` | a `User` as JSON |
/// | `/missing-user` | an unacceptable response | 404 |
/// | `/flaky` | a transient network error | drops the first request, answers the second |
/// | `/down` | a persistent error | drops every request |
/// | `/fallback` | `fallbackURL` | data from the fallback |
/// | `/image.png` | the image a data task downloads | a 64×48 PNG |
enum DemoRoutes {
    /// The HTML page at `/`.
    static let page: [UInt8] = {
        var html = """
            <!doctype html>
            <html>
            <head>
                <title>Example Domain</title>
                <meta charset="utf-8" />
            </head>
            <body>
            <div>
                <h1>Example Domain</h1>
                <p>This domain is for use in illustrative examples in documents. You may use this
                domain in literature without prior coordination or asking for permission.</p>
                <p>Served by the uvcombine demo's embedded server, on a libuv loop thread of its own.</p>
            </div>
            </body>
            </html>

            """
        // Padded with a comment to a round size that is easy to spot.
        let padding = 1_024 - html.utf8.count - "<!--  -->\n".utf8.count
        html += "<!-- \(String(repeating: "x", count: max(padding, 0))) -->\n"
        return Array(html.utf8)
    }()

    /// The user at `/endpoint`.
    static let user = User(name: "Ada Lovelace", userID: "ada")

    /// The body at `/fallback`.
    static let fallback = Array("data from the fallback URL\n".utf8)

    /// The body `/flaky` answers its second request with.
    static let flaky = Array("data from the original URL, on the retry\n".utf8)

    /// The image at `/image.png`.
    static let image = PNGImage.encodeHeader(width: 64, height: 48)

    static func all(scale: Double) -> [String: DemoServer.Route] {
        let userJSON = Array(try! JSONEncoder().encode(user))
        return [
            "/": { _ in .ok(page, contentType: "text/html; charset=utf-8", delay: 0.2 * scale) },
            "/endpoint": { _ in .ok(userJSON, contentType: "application/json") },
            "/missing-user": { _ in
                .respond(status: 404, reason: "Not Found", contentType: "application/json",
                         body: Array(#"{"error":"no such user"}"#.utf8), delay: 0)
            },
            "/flaky": { hit in hit % 2 == 1 ? .drop : .ok(flaky, contentType: "text/plain") },
            "/down": { _ in .drop },
            "/fallback": { _ in .ok(fallback, contentType: "text/plain") },
            "/image.png": { _ in .ok(image, contentType: "image/png") },
        ]
    }
}

/// The seeds' custom `User` type.
struct User: Codable, Equatable, Sendable {
    let name: String
    let userID: String
}

/// What the seed's `UIImage(data:)` does for this demo: recognises a PNG
/// and reads its size from the IHDR chunk; `nil` for anything else.
struct PNGImage: Equatable, Sendable, CustomStringConvertible {
    let width: Int
    let height: Int

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init?(data: Data) {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, Array(bytes[0..<8]) == Self.signature,
              Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        width = bigEndian(16)
        height = bigEndian(20)
    }

    var description: String { "PNG image, \(width)×\(height)" }

    /// A PNG signature and IHDR chunk (CRC included) for an 8-bit RGBA
    /// image: enough for ``init(data:)`` and for `file(1)`.
    static func encodeHeader(width: Int, height: Int) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] {
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        }
        let chunk = Array("IHDR".utf8) + bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        return signature + bigEndian(13) + chunk + bigEndian(Int(crc32(chunk)))
    }

    /// The CRC-32 PNG chunks carry.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
