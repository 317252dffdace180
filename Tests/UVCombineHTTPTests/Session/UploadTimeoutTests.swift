import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Issue 17, bug 3: write progress counts as activity for the idle
/// timeout, so an upload slower than `idleReadTimeout` lives while its
/// bytes flow; a stall in either direction is still a timeout. Against a
/// server in its own process that reads at its own pace
/// (``SlowReaderServer``); the sizes and the timeout are scaled down from
/// the 8 MiB and 1 s to keep the tests short, the rule is the same.
@Suite("UVURLSession uploads and the idle timeout")
struct UploadTimeoutTests {
    static let idleRead: Duration = .milliseconds(300)

    static func upload(_ count: Int, to url: URL, on loop: UVLoop) -> (Result<(data: Data, response: HTTPResponse), UVURLError>?, Duration) {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = idleRead
        let session = UVURLSession(loop: loop, configuration: configuration)
        var request = HTTPRequest(method: .post, scheme: "http", authority: url.host! + ":\(url.port!)", path: url.path)
        request.headerFields[.contentType] = "application/octet-stream"
        let body = Data(pseudoRandomBytes(count, seed: 3))
        let start = ContinuousClock.now
        let outcome = fetch(session.dataTaskPublisher(for: request, body: body), on: loop)
        return (outcome, ContinuousClock.now - start)
    }

    @Test("an upload that takes several idle timeouts to send, to a server reading slowly but steadily, succeeds")
    func slowSteadyUpload() throws {
        let server = try SlowReaderServer(.steady)
        defer { server.stop() }
        let count = 1024 * 1024
        withRealLoop { loop in
            let (outcome, elapsed) = Self.upload(count, to: server.url(), on: loop)
            #expect(outcome?.error == nil, "\(String(describing: outcome?.error)) after \(elapsed)")
            #expect(outcome?.text == "\(count)", "the server read every byte")
            // Otherwise the kernel's buffers took the upload at once and the
            // test proved nothing.
            #expect(elapsed > Self.idleRead * 2, "the upload lasted \(elapsed)")
        }
    }

    @Test("an upload the server stops reading fails with the idle read timeout")
    func stalledUpload() throws {
        let server = try SlowReaderServer(.stallUpload)
        defer { server.stop() }
        withRealLoop { loop in
            let (outcome, elapsed) = Self.upload(8 * 1024 * 1024, to: server.url(), on: loop)
            #expect(outcome?.error?.code == .timedOut, "\(String(describing: outcome))")
            #expect(outcome?.error?.timeoutKind == .idleRead)
            #expect(elapsed < .seconds(5), "\(elapsed)")
        }
    }

    @Test("a server that read the whole upload and never answers: the idle read timeout, measured from the last byte written")
    func stalledResponse() throws {
        let server = try SlowReaderServer(.stallResponse)
        defer { server.stop() }
        withRealLoop { loop in
            let (outcome, elapsed) = Self.upload(256 * 1024, to: server.url(), on: loop)
            #expect(outcome?.error?.code == .timedOut, "\(String(describing: outcome))")
            #expect(outcome?.error?.timeoutKind == .idleRead)
            #expect(elapsed >= Self.idleRead)
            #expect(elapsed < .seconds(5), "\(elapsed)")
        }
    }
}
