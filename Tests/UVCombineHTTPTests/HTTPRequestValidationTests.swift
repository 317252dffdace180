import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The error a throwing check produced, or nil.
private func failure(_ body: () throws(UVURLError) -> Void) -> UVURLError? {
    do throws(UVURLError) {
        try body()
        return nil
    } catch {
        return error
    }
}

@Suite("HTTPRequestValidation")
struct HTTPRequestValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var detail: String?
        var testDescription: String { input.debugDescription }
    }

    @Test(arguments: [
        Case(input: "GET", detail: nil),
        Case(input: "M-SEARCH", detail: nil),
        Case(input: "", detail: "empty method"),
        Case(input: "GE T", detail: "space in method \"GE T\""),
        Case(input: "GET\r\n", detail: "CR in method \"GET\\r\\n\""),
        Case(input: "G\nET", detail: "LF in method \"G\\nET\""),
        Case(input: "G\0", detail: "NUL in method \"G\\0\""),
        Case(input: "G(E)T", detail: "method \"G(E)T\" is not an RFC 9110 token"),
        Case(input: "CONNECT", detail: "CONNECT requests are not supported"),
    ])
    func method(_ c: Case) {
        let error = failure { () throws(UVURLError) in try HTTPRequestValidation.validateMethod(c.input) }
        #expect(error?.detail == c.detail)
        if c.detail != nil { #expect(error?.code == .invalidRequest) }
    }

    @Test(arguments: [
        Case(input: "/", detail: nil),
        Case(input: "/a/b?c=%20&d", detail: nil),
        Case(input: "", detail: "empty request target"),
        Case(input: "/a\r\nb", detail: "CR in request target"),
        Case(input: "/a\nb", detail: "LF in request target"),
        Case(input: "/a\0b", detail: "NUL in request target"),
        Case(input: "/a b", detail: "space in request target"),
        Case(input: "/a\u{7F}", detail: "DEL in request target"),
        Case(input: "/a\u{1B}", detail: "control byte 0x1B in request target"),
        Case(input: "/\u{e9}", detail: "non-ASCII byte 0xC3 in request target"),
        Case(input: "/a#b", detail: "fragment in request target"),
        Case(input: "a", detail: "request target does not start with \"/\""),
    ])
    func target(_ c: Case) {
        let error = failure { () throws(UVURLError) in try HTTPRequestValidation.validateTarget(c.input) }
        #expect(error?.detail == c.detail)
        if c.detail != nil { #expect(error?.code == .badURL) }
    }

    @Test(arguments: [
        Case(input: "example.com", detail: nil),
        Case(input: "[::1]:8080", detail: nil),
        Case(input: "h\r\nX: y", detail: "CR in host"),
        Case(input: "h\n", detail: "LF in host"),
        Case(input: "h\0", detail: "NUL in host"),
        Case(input: "a b", detail: "space in host"),
        Case(input: "u@h", detail: "\"@\" in host"),
        Case(input: "", detail: "empty host"),
    ])
    func authority(_ c: Case) {
        let error = failure { () throws(UVURLError) in try HTTPRequestValidation.validateAuthority(c.input) }
        #expect(error?.detail == c.detail)
        if c.detail != nil { #expect(error?.code == .badURL) }
    }

    @Test(arguments: [
        Case(input: "X-Trace", detail: nil),
        Case(input: "", detail: "empty header field name"),
        Case(input: "X-A\r\n", detail: "CR in header field name \"X-A\\r\\n\""),
        Case(input: "X\nA", detail: "LF in header field name \"X\\nA\""),
        Case(input: "X\0", detail: "NUL in header field name \"X\\0\""),
        Case(input: "X A", detail: "space in header field name \"X A\""),
        Case(input: "X:A", detail: "header field name \"X:A\" is not an RFC 9110 token"),
    ])
    func fieldName(_ c: Case) {
        let error = failure { () throws(UVURLError) in try HTTPRequestValidation.validateFieldName(c.input) }
        #expect(error?.detail == c.detail)
        if c.detail != nil { #expect(error?.code == .invalidRequest) }
    }

    @Test(arguments: [
        Case(input: "text/plain; q=0.5\tx", detail: nil),
        Case(input: "", detail: nil),
        Case(input: "caf\u{e9}", detail: nil),
        Case(input: "a\r\nSet-Cookie: x", detail: "CR in value of header field \"X-A\""),
        Case(input: "a\nb", detail: "LF in value of header field \"X-A\""),
        // obs-fold (RFC 9112 section 5.2): unfolded in responses, never sent.
        Case(input: "a\r\n b", detail: "CR in value of header field \"X-A\""),
        Case(input: "a\r\n\tb", detail: "CR in value of header field \"X-A\""),
        Case(input: "a\0b", detail: "NUL in value of header field \"X-A\""),
        Case(input: "a\u{7F}", detail: "DEL in value of header field \"X-A\""),
        Case(input: "a\u{01}", detail: "control byte 0x01 in value of header field \"X-A\""),
    ])
    func fieldValue(_ c: Case) {
        let error = failure { () throws(UVURLError) in try HTTPRequestValidation.validateFieldValue(c.input, name: "X-A") }
        #expect(error?.detail == c.detail)
        if c.detail != nil { #expect(error?.code == .invalidRequest) }
    }

    @Test func strictFieldRefusesWhatHTTPFieldWouldRepair() throws {
        let ok = try HTTPField.strict(name: "X-Trace", value: "abc def")
        #expect(ok.name.rawName == "X-Trace")
        #expect(ok.value == "abc def")

        let cases: [(String, String, String)] = [
            ("X-Trace", "abc\r\nX-Admin: 1", "CR in value of header field \"X-Trace\""),
            ("X-Trace", "abc\n", "LF in value of header field \"X-Trace\""),
            ("X-Trace", "\0", "NUL in value of header field \"X-Trace\""),
            ("X-Trace", " abc", "leading or trailing whitespace in value of header field \"X-Trace\""),
            ("X-Trace", "abc\t", "leading or trailing whitespace in value of header field \"X-Trace\""),
            ("X Trace", "abc", "space in header field name \"X Trace\""),
            ("X-Trace\r\nX-Admin", "1", "CR in header field name \"X-Trace\\r\\nX-Admin\""),
        ]
        for (name, value, detail) in cases {
            let error = failure { () throws(UVURLError) in _ = try HTTPField.strict(name: name, value: value) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.detail == detail)
        }
    }
}

@Suite("Token bytes")
struct TokenByteTests {
    /// The bit masks behind the token check agree with RFC 9110's tchar
    /// for every byte.
    @Test func everyByteIsClassifiedAsRFC9110Says() {
        let symbols = Array("!#$%&'*+-.^_`|~".utf8)
        for value in 0..<256 {
            let byte = UInt8(value)
            let isTChar = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || symbols.contains(byte)
            let name = String(decoding: [UInt8(ascii: "X"), byte], as: UTF8.self)
            let accepted = failure { () throws(UVURLError) in try HTTPRequestValidation.validateFieldName(name) } == nil
            #expect(accepted == isTChar, "byte \(value)")
        }
    }
}
