extension AuthenticationChallenge {
    /// Why a challenge field did not parse, and where (a byte offset in
    /// the field value).
    ///
    /// Threading: a value type; `Sendable`.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong.
        public enum Reason: Sendable, Hashable {
            /// No auth-scheme token where a challenge starts (also: an
            /// empty field).
            case expectedScheme
            /// A scheme followed by something other than a space, a comma
            /// or the end.
            case expectedSpace
            /// Neither a parameter nor a token68 after the scheme, or a
            /// parameter without `=`.
            case expectedParameter
            /// `name=` followed by neither a token nor a quoted-string.
            case expectedParameterValue
            /// A quoted-string without its closing quote.
            case unterminatedQuotedString
            /// Something other than a comma after a parameter or token68.
            case expectedComma
        }

        /// What was wrong.
        public var reason: Reason
        /// The byte offset in the field value where it was found.
        public var offset: Int

        /// A parse error.
        public init(_ reason: Reason, at offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        /// `<reason> at byte <offset>`.
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Parses one `WWW-Authenticate` or `Proxy-Authenticate` field value
    /// (`1#challenge`, RFC 9110 section 11.6.1): challenges separated by
    /// commas, each a scheme, then a token68 or comma-separated
    /// `name=value` parameters (token or quoted-string). Empty list
    /// elements are skipped, as the list rule allows.
    ///
    /// ```swift
    /// let challenges = try AuthenticationChallenge.parse("Basic realm=\"x\", Bearer")
    /// print(challenges.count) // Prints: "2"
    /// ```
    ///
    /// - Throws: ``ParseError`` naming the first problem and its offset.
    public static func parse(_ value: String) throws(ParseError) -> [AuthenticationChallenge] {
        var parser = ChallengeParser(bytes: Array(value.utf8))
        return try parser.parseAll()
    }
}

extension AuthenticationChallenge {
    /// Parses a field value that is a bare `#auth-param` list, without a
    /// scheme: `Authentication-Info` and `Proxy-Authentication-Info`
    /// (RFC 9110 section 11.6.3). Names are lowercased, values unquoted;
    /// an empty value gives an empty list.
    ///
    /// ```swift
    /// let info = try AuthenticationChallenge.parseParameters(#"nextnonce="n2", qop=auth"#)
    /// print(info.map(\.name)) // Prints: "["nextnonce", "qop"]"
    /// ```
    ///
    /// - Throws: ``ParseError`` naming the first problem and its offset.
    public static func parseParameters(_ value: String) throws(ParseError) -> [(name: String, value: String)] {
        var parser = ChallengeParser(bytes: Array(value.utf8))
        parser.skipSeparators()
        guard !parser.atEnd else { return [] }
        var holder = AuthenticationChallenge(scheme: "")
        while true {
            try parser.parseParameters(into: &holder)
            parser.skipSeparators()
            if parser.atEnd { return holder.parameters }
        }
    }
}

/// The byte-level parser behind ``AuthenticationChallenge/parse(_:)``.
private struct ChallengeParser {
    fileprivate let bytes: [UInt8]
    fileprivate var index = 0

    fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

    fileprivate var atEnd: Bool { index >= bytes.count }

    fileprivate mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    fileprivate mutating func skipSeparators() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") {
            index += 1
        }
    }

    fileprivate mutating func readToken() -> String? {
        let start = index
        while index < bytes.count, AuthenticationASCII.isTokenCharacter(bytes[index]) { index += 1 }
        return start == index ? nil : String(decoding: bytes[start..<index], as: UTF8.self)
    }

    fileprivate mutating func readQuoted() throws(AuthenticationChallenge.ParseError) -> String {
        let start = index
        index += 1 // the opening quote
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: value, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                index += 1
            }
            value.append(bytes[index])
            index += 1
        }
        throw .init(.unterminatedQuotedString, at: start)
    }

    /// Whether a `name =` starts at the current position (not moving).
    fileprivate func parameterStartsHere() -> Bool {
        var probe = self
        guard probe.readToken() != nil else { return false }
        probe.skipWhitespace()
        guard !probe.atEnd, probe.bytes[probe.index] == UInt8(ascii: "=") else { return false }
        probe.index += 1
        probe.skipWhitespace()
        return !probe.atEnd && (probe.bytes[probe.index] == UInt8(ascii: "\"")
            || AuthenticationASCII.isTokenCharacter(probe.bytes[probe.index]))
    }

    /// A token68 at the current position, if one runs up to a comma or the end.
    fileprivate mutating func readToken68() -> String? {
        var probe = self
        let start = probe.index
        while !probe.atEnd, AuthenticationASCII.isToken68Character(probe.bytes[probe.index]) { probe.index += 1 }
        guard probe.index > start else { return nil }
        while !probe.atEnd, probe.bytes[probe.index] == UInt8(ascii: "=") { probe.index += 1 }
        let end = probe.index
        probe.skipWhitespace()
        guard probe.atEnd || probe.bytes[probe.index] == UInt8(ascii: ",") else { return nil }
        self = probe
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    fileprivate mutating func parseAll() throws(AuthenticationChallenge.ParseError) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        while true {
            skipSeparators()
            if atEnd { break }
            guard let scheme = readToken() else { throw .init(.expectedScheme, at: index) }
            var challenge = AuthenticationChallenge(scheme: scheme)
            let afterScheme = index
            skipWhitespace()
            if atEnd || bytes[index] == UInt8(ascii: ",") {
                challenges.append(challenge)
                continue
            }
            guard index > afterScheme else { throw .init(.expectedSpace, at: index) }
            if !parameterStartsHere() {
                guard let token68 = readToken68() else { throw .init(.expectedParameter, at: index) }
                challenge.token68 = token68
                challenges.append(challenge)
                continue
            }
            try parseParameters(into: &challenge)
            challenges.append(challenge)
        }
        guard !challenges.isEmpty else { throw .init(.expectedScheme, at: 0) }
        return challenges
    }

    /// `name=value` pairs until the end or a list element that is not one
    /// (the next challenge's scheme).
    fileprivate mutating func parseParameters(into challenge: inout AuthenticationChallenge) throws(AuthenticationChallenge.ParseError) {
        while true {
            guard let name = readToken() else { throw .init(.expectedParameter, at: index) }
            skipWhitespace()
            guard !atEnd, bytes[index] == UInt8(ascii: "=") else { throw .init(.expectedParameter, at: index) }
            index += 1
            skipWhitespace()
            let value: String
            if !atEnd, bytes[index] == UInt8(ascii: "\"") {
                value = try readQuoted()
            } else if let token = readToken() {
                value = token
            } else {
                throw .init(.expectedParameterValue, at: index)
            }
            challenge.parameters.append((AuthenticationASCII.lowercased(name), value))
            skipWhitespace()
            if atEnd { return }
            guard bytes[index] == UInt8(ascii: ",") else { throw .init(.expectedComma, at: index) }
            let comma = index
            skipSeparators()
            if atEnd { return }
            if !parameterStartsHere() {
                index = comma
                return
            }
        }
    }
}
