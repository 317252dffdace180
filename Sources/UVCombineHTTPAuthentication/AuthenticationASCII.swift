/// ASCII helpers for the authentication parsers and writers.
internal enum AuthenticationASCII {
    /// `text` with ASCII `A`–`Z` lowercased.
    internal static func lowercased(_ text: some StringProtocol) -> String {
        var bytes = Array(text.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] += 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 9110's tchar.
    internal static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110's token68 characters, without the trailing `=`.
    internal static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/".utf8.contains(byte)
        }
    }

    /// `text` as a quoted-string: in double quotes, `"` and `\` escaped.
    internal static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { result += "\\" }
            result.unicodeScalars.append(character)
        }
        result += "\""
        return result
    }

    /// Lowercase hexadecimal of `bytes`.
    internal static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
