import Testing
import UVCombineHTTP
import UVCombineHTTPCore

@Suite("UVURLError")
struct UVURLErrorTests {
    @Test func equalityIsOnTheCodeAlone() {
        #expect(UVURLError(.badServerResponse, detail: "a") == UVURLError(.badServerResponse, detail: "b"))
        #expect(UVURLError(.badServerResponse) != UVURLError(.badURL))
        #expect(Set([UVURLError(.timedOut), .timedOut(.connect), .timedOut(.total)]).count == 1)
    }

    @Test func descriptionNamesCodeDetailAndLibuvError() {
        #expect(UVURLError(.cannotConnectToHost, underlyingErrorName: "UV_ECONNREFUSED").description
            == "cannot connect to host [UV_ECONNREFUSED]")
        #expect(UVURLError(.badServerResponse, detail: "conflicting Content-Length values").description
            == "bad server response (conflicting Content-Length values)")
        #expect(UVURLError(.unsupportedURL).description == "unsupported URL")
    }

    @Test func codesFollowURLErrorRawValues() {
        let codes: [(UVURLError.Code, Int, String)] = [
            (.cancelled, -999, "cancelled"),
            (.badURL, -1000, "badURL"),
            (.timedOut, -1001, "timedOut"),
            (.unsupportedURL, -1002, "unsupportedURL"),
            (.cannotFindHost, -1003, "cannotFindHost"),
            (.cannotConnectToHost, -1004, "cannotConnectToHost"),
            (.networkConnectionLost, -1005, "networkConnectionLost"),
            (.httpTooManyRedirects, -1007, "httpTooManyRedirects"),
            (.resourceUnavailable, -1008, "resourceUnavailable"),
            (.badServerResponse, -1011, "badServerResponse"),
            (.cannotDecodeContentData, -1016, "cannotDecodeContentData"),
            (.dataLengthExceedsMaximum, -1103, "dataLengthExceedsMaximum"),
            (.invalidRequest, -1300, "invalidRequest"),
            (.insecureRedirect, -1301, "insecureRedirect"),
            (.requestBodyFailed, -1330, "requestBodyFailed"),
            (.requestBodyLengthMismatch, -1331, "requestBodyLengthMismatch"),
            (.cannotOpenFile, -3000, "cannotOpenFile"),
        ]
        for (code, raw, name) in codes {
            #expect(code.rawValue == raw)
            #expect(code.description == name)
            #expect(UVURLError.Code(rawValue: raw) == code)
        }
        #expect(UVURLError.Code(rawValue: 42).description == "code(42)")
        #expect(UVURLError(.cannotDecodeContentData, detail: "the gzip stream is truncated").description
            == "cannot decode the response body's content encoding (the gzip stream is truncated)")
        #expect(UVURLError(.requestBodyFailed, detail: "the body publisher failed: disk gone").description
            == "the request body could not be sent (the body publisher failed: disk gone)")
    }
}
