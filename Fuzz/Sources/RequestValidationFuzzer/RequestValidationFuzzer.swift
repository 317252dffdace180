// Fuzzes URL and request validation: HTTPRequestTarget, the
// HTTPRequestValidation checks and HTTPField.strict, with arbitrary strings
// (CR, LF and NUL included: these doors take raw strings).
//
// Input: six length-prefixed strings (bytes decoded as UTF-8): a URL, a
// field name, a field value, a method, a request target, an authority.
//
// Properties:
// - HTTPRequestTarget(string:) refuses with `.badURL` or `.unsupportedURL`
//   every URL with CR, LF or NUL; what it accepts has a port in 1...65535,
//   an origin-form target and an authority that the rules of HTTPGrammar
//   accept, a lowercase host name, and round-trips: its `description`
//   parses to the same scheme, authority, port, target (and host, but for
//   an IPv6 zone, which the `Host` field never carries).
// - A request made from an accepted target is always written (the writer
//   never refuses what the target accepted) and reads back as `GET`, the
//   target, and `Host: <authority>`.
// - validateMethod, validateTarget, validateAuthority, validateFieldName,
//   validateFieldValue and HTTPField.strict accept exactly what HTTPGrammar
//   accepts; strict keeps the name and value bytes exactly (it refuses,
//   never repairs).
import FuzzSupport
import HTTPTypes
import UVCombineHTTPCore

func accepts(_ body: () throws(UVURLError) -> Void, codes: [UVURLError.Code]) -> Bool {
    do throws(UVURLError) {
        try body()
        return true
    } catch {
        fuzzCheck(codes.contains(error.code), "refused with \(error), expected one of \(codes)")
        return false
    }
}

func checkURL(_ string: String) {
    let bytes = Array(string.utf8)
    let target: HTTPRequestTarget
    do throws(UVURLError) {
        target = try HTTPRequestTarget(string: string)
    } catch {
        fuzzCheck(error.code == .badURL || error.code == .unsupportedURL, "URL refused with \(error)")
        return
    }
    fuzzCheck(!bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "accepted a URL with CR, LF or NUL: \(quotedBytes(bytes))")
    fuzzCheck((1...65535).contains(target.port), "port \(target.port)")
    fuzzCheck(HTTPGrammar.isRequestTarget(Array(target.target.utf8), method: Array("GET".utf8)), "target \(quotedBytes(target.target.utf8)) from \(quotedBytes(bytes))")
    fuzzCheck(HTTPGrammar.isAuthority(Array(target.authority.utf8)), "authority \(quotedBytes(target.authority.utf8)) from \(quotedBytes(bytes))")
    fuzzCheck(!target.host.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "host \(quotedBytes(target.host.utf8))")
    if !target.host.contains(":") {
        fuzzCheck(target.host == target.host.lowercased(), "host \(target.host) is not lowercase")
    }

    let again: HTTPRequestTarget
    do throws(UVURLError) {
        again = try HTTPRequestTarget(string: target.description)
    } catch {
        fuzzCheck(false, "\(quotedBytes(bytes)) was accepted as \(target.description), which is refused: \(error)")
        return
    }
    fuzzCheck(
        again.scheme == target.scheme && again.authority == target.authority && again.port == target.port
            && again.target == target.target && (target.host.contains("%") || again.host == target.host),
        "round trip of \(quotedBytes(bytes)): \(target.description) (host \(target.host)) became \(again.description) (host \(again.host))"
    )

    var buffer: [UInt8] = []
    do throws(UVURLError) {
        try HTTPRequestWriter.append(target.makeRequest(method: .get), to: &buffer)
    } catch {
        fuzzCheck(false, "the writer refused the request for accepted URL \(quotedBytes(bytes)) (\(target)): \(error)")
        return
    }
    guard case .success(let parsed) = SimpleRequestParser.parse(buffer) else {
        fuzzCheck(false, "the request for \(target) does not parse: \(quotedBytes(buffer))")
        return
    }
    fuzzCheck(
        parsed.method == Array("GET".utf8) && parsed.target == Array(target.target.utf8)
            && parsed.fields == [FieldRecord(name: "Host", value: Array(target.authority.utf8))],
        "the request for \(target) reads back as \(parsed)"
    )
}

/// Checks the properties above on one input.
func check(_ data: UnsafeRawBufferPointer) {
    var input = FuzzInput(data)
    let url = String(decoding: input.lengthPrefixed(), as: UTF8.self)
    let name = String(decoding: input.lengthPrefixed(), as: UTF8.self)
    let value = String(decoding: input.lengthPrefixed(), as: UTF8.self)
    let method = String(decoding: input.lengthPrefixed(), as: UTF8.self)
    let requestTarget = String(decoding: input.lengthPrefixed(), as: UTF8.self)
    let authority = String(decoding: input.lengthPrefixed(), as: UTF8.self)

    checkURL(url)

    let nameIsToken = HTTPGrammar.isToken(name.utf8)
    fuzzCheck(
        accepts({ () throws(UVURLError) in try HTTPRequestValidation.validateFieldName(name) }, codes: [.invalidRequest]) == nameIsToken,
        "validateFieldName(\(quotedBytes(name.utf8)))"
    )
    let valueBytes = Array(value.utf8)
    fuzzCheck(
        accepts({ () throws(UVURLError) in try HTTPRequestValidation.validateFieldValue(value, name: name) }, codes: [.invalidRequest])
            == valueBytes.allSatisfy(HTTPGrammar.isFieldValueByte),
        "validateFieldValue(\(quotedBytes(valueBytes)))"
    )
    do throws(UVURLError) {
        let field = try HTTPField.strict(name: name, value: value)
        fuzzCheck(nameIsToken && HTTPGrammar.isTrimmedFieldValue(valueBytes), "strict accepted \(quotedBytes(name.utf8)): \(quotedBytes(valueBytes))")
        fuzzCheck(FieldRecord(field) == FieldRecord(name: name, value: valueBytes), "strict changed the field: \(FieldRecord(field))")
    } catch {
        fuzzCheck(error.code == .invalidRequest, "strict refused with \(error)")
        fuzzCheck(!(nameIsToken && HTTPGrammar.isTrimmedFieldValue(valueBytes)), "strict refused \(quotedBytes(name.utf8)): \(quotedBytes(valueBytes)): \(error)")
    }

    let methodBytes = Array(method.utf8)
    fuzzCheck(
        accepts({ () throws(UVURLError) in try HTTPRequestValidation.validateMethod(method) }, codes: [.invalidRequest])
            == HTTPGrammar.isSendableMethod(methodBytes),
        "validateMethod(\(quotedBytes(methodBytes)))"
    )
    fuzzCheck(
        accepts({ () throws(UVURLError) in try HTTPRequestValidation.validateTarget(requestTarget, method: method) }, codes: [.badURL])
            == HTTPGrammar.isRequestTarget(Array(requestTarget.utf8), method: methodBytes),
        "validateTarget(\(quotedBytes(requestTarget.utf8)), method: \(quotedBytes(methodBytes)))"
    )
    fuzzCheck(
        accepts({ () throws(UVURLError) in try HTTPRequestValidation.validateAuthority(authority) }, codes: [.badURL])
            == HTTPGrammar.isAuthority(Array(authority.utf8)),
        "validateAuthority(\(quotedBytes(authority.utf8)))"
    )
}

/// libFuzzer's entry point: called with each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
