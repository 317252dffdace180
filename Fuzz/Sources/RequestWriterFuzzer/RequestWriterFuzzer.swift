// Fuzzes HTTPRequestWriter with requests built through every public door of
// swift-http-types, including the lenient ones that keep control bytes,
// spaces, DEL and obs-text (only CR, LF and NUL are replaced there).
//
// Input:
//   byte 0  bit 0 a path; bit 1 a lenient path (else a legalised string);
//           bit 2 an authority; bit 3 a lenient authority; bit 4
//           closeConnection
//   then    the method (length-prefixed bytes; `HTTPRequest.Method(_:)`,
//           GET when it refuses), the path, the authority, the body length
//           (one byte), the number of fields (one byte, modulo 8), and per
//           field: a kind byte (Host, Content-Length, Transfer-Encoding,
//           Connection, or a name read next), a value mode byte (lenient or
//           legalised) and the value (length-prefixed)
//
// Properties:
// - The writer accepts exactly the requests the documented rules allow
//   (HTTPGrammar: token method but not CONNECT, an origin-form or `*`
//   target, an authority of host characters, field-value bytes with no
//   leading or trailing whitespace, at most one Host and only without an
//   authority, a Content-Length equal to the body's, no Transfer-Encoding).
// - A refusal is `.invalidRequest` or `.badURL` and leaves the buffer as it
//   was.
// - What it accepts reads back (SimpleRequestParser) as the same method,
//   target and fields (Host from the authority first, then the fields in
//   order, one Content-Length, `Connection: close` when asked), then the
//   body; no field value contains CR, LF or NUL; the result's byte count
//   and `closesConnection` are right.
import FuzzSupport
import HTTPTypes
import UVCombineHTTPCore

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let flags = input.byte()
    let methodBytes = input.lengthPrefixed()
    let pathBytes = input.lengthPrefixed()
    let authorityBytes = input.lengthPrefixed()
    let body = [UInt8](repeating: UInt8(ascii: "b"), count: Int(input.byte()))
    let closeConnection = flags & 16 != 0

    // Made with a path and an authority for their pseudo field names
    // (swift-http-types keeps `.path` and `.authority` internal).
    var request = HTTPRequest(
        method: HTTPRequest.Method(String(decoding: methodBytes, as: UTF8.self)) ?? .get,
        scheme: "http",
        authority: "a",
        path: "/"
    )
    let pathName = request.pseudoHeaderFields.path!.name
    let authorityName = request.pseudoHeaderFields.authority!.name
    request.pseudoHeaderFields.path = flags & 1 == 0 ? nil : flags & 2 != 0
        ? HTTPField(name: pathName, lenientValue: pathBytes)
        : HTTPField(name: pathName, value: String(decoding: pathBytes, as: UTF8.self))
    request.pseudoHeaderFields.authority = flags & 4 == 0 ? nil : flags & 8 != 0
        ? HTTPField(name: authorityName, lenientValue: authorityBytes)
        : HTTPField(name: authorityName, value: String(decoding: authorityBytes, as: UTF8.self))
    let fieldCount = Int(input.byte() % 8)
    for _ in 0..<fieldCount {
        let name: HTTPField.Name?
        switch input.byte() % 6 {
        case 0: name = HTTPField.Name("Host")
        case 1: name = .contentLength
        case 2: name = .transferEncoding
        case 3: name = .connection
        default: name = HTTPField.Name(String(decoding: input.lengthPrefixed(), as: UTF8.self))
        }
        let lenient = input.byte() & 1 != 0
        let value = input.lengthPrefixed()
        guard let name else { continue }
        request.headerFields.append(lenient ? HTTPField(name: name, lenientValue: value) : HTTPField(name: name, value: value))
    }

    // The rules, applied to what the request holds.
    let method = Array(request.method.rawValue.utf8)
    let path = request.path.map { Array($0.utf8) }
    let authority = request.authority.map { Array($0.utf8) }
    let fields = request.headerFields.map(FieldRecord.init)
    var allowed = HTTPGrammar.isSendableMethod(method)
        && path.map { HTTPGrammar.isRequestTarget($0, method: method) } ?? false
        && authority.map(HTTPGrammar.isAuthority) ?? true
    var hostFields = 0
    var fieldsAskToClose = false
    var hasContentLength = false
    for field in fields {
        allowed = allowed && HTTPGrammar.isToken(field.name.utf8) && HTTPGrammar.isTrimmedFieldValue(field.value)
        if HTTPGrammar.nameEquals(field.name, "Host") { hostFields += 1 }
        if HTTPGrammar.nameEquals(field.name, "Content-Length") {
            hasContentLength = true
            allowed = allowed && HTTPGrammar.decimal(field.value) == body.count
        }
        if HTTPGrammar.nameEquals(field.name, "Transfer-Encoding") { allowed = false }
        if HTTPGrammar.nameEquals(field.name, "Connection") && HTTPGrammar.listContains(field.value, "close") {
            fieldsAskToClose = true
        }
    }
    allowed = allowed && (authority == nil ? hostFields == 1 : hostFields == 0)

    let prefix: [UInt8] = Array("previous request bytes".utf8)
    var buffer = prefix
    let result: HTTPRequestWriter.Result
    do throws(UVURLError) {
        result = try HTTPRequestWriter.append(request, body: body, closeConnection: closeConnection, to: &buffer)
    } catch {
        fuzzCheck(!allowed, "the writer refused an allowed request: \(error)\nrequest: \(request) fields \(fields)")
        fuzzCheck(error.code == .invalidRequest || error.code == .badURL, "refused with \(error)")
        fuzzCheck(buffer == prefix, "a refused request changed the buffer")
        return
    }
    fuzzCheck(
        allowed,
        "the writer accepted a request the rules refuse\nrequest: \(request) fields \(fields)\nwritten: \(quotedBytes(buffer[prefix.count...]))"
    )
    fuzzCheck(Array(buffer[..<prefix.count]) == prefix, "the writer changed bytes already in the buffer")
    let written = Array(buffer[prefix.count...])
    fuzzCheck(result.byteCount == written.count, "byteCount \(result.byteCount), wrote \(written.count)")
    fuzzCheck(result.closesConnection == (closeConnection || fieldsAskToClose), "closesConnection \(result.closesConnection)")

    let parsed: ParsedRequest
    switch SimpleRequestParser.parse(written) {
    case .success(let request): parsed = request
    case .failure(let failure): fuzzCheck(false, "the written request does not parse: \(failure)\n\(quotedBytes(written))"); return
    }
    var expectedFields: [FieldRecord] = []
    if let authority { expectedFields.append(FieldRecord(name: "Host", value: authority)) }
    expectedFields += fields.filter { !HTTPGrammar.nameEquals($0.name, "Content-Length") }
    let method0 = request.method
    if body.count > 0 || hasContentLength || method0 == .post || method0 == .put || method0 == .patch {
        expectedFields.append(FieldRecord(name: "Content-Length", value: Array(String(body.count).utf8)))
    }
    if closeConnection && !fieldsAskToClose {
        expectedFields.append(FieldRecord(name: "Connection", value: Array("close".utf8)))
    }
    let expected = ParsedRequest(
        method: method,
        target: path ?? [],
        version: Array("HTTP/1.1".utf8),
        fields: expectedFields,
        body: body
    )
    fuzzCheck(parsed == expected, "read back differently\nexpected: \(expected)\nread:     \(parsed)\nwritten:  \(quotedBytes(written))")
    for field in parsed.fields {
        fuzzCheck(!field.value.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }), "CR, LF or NUL in \(field)")
    }
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
