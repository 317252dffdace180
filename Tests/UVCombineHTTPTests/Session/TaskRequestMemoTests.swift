import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The session's remembered task request for the last URL
/// (`TaskRequestMemo`, issue 32): the same URL reuses it, a different URL
/// or per-request options do not, and a URL's error is remembered with it.
@Suite("UVURLSession remembered task request")
struct TaskRequestMemoTests {
    @Test("the same URL reuses the task request; another URL replaces it")
    func sameURLReuses() {
        withFakeSession { _, _, session in
            let first = session.taskRequest(url: exampleURL)
            // An equal URL made separately: equal strings, not the same storage.
            let again = session.taskRequest(url: URL(string: exampleURL.absoluteString)!)
            #expect(first === again)
            let other = session.taskRequest(url: URL(string: "http://example.com/b")!)
            #expect(other !== first)
            #expect(other.request.path == "/b")
            let back = session.taskRequest(url: exampleURL)
            #expect(back !== first)
            #expect(back.request.path == "/a")
            #expect(session.taskRequest(url: exampleURL) === back)
        }
    }

    @Test("per-request options bypass the memo")
    func optionsBypass() {
        withFakeSession { _, _, session in
            let plain = session.taskRequest(url: exampleURL)
            let options = UVURLSession.RequestOptions(totalTimeout: .seconds(1))
            let timed = session.taskRequest(url: exampleURL, options: options)
            #expect(timed !== plain)
            #expect(timed.options == options)
            #expect(session.taskRequest(url: exampleURL) === plain)
            #expect(session.dataTaskPublisher(for: exampleURL, options: options).options == options)
        }
    }

    @Test("a metrics handler or a credential bypasses the memo: the task request carries them")
    func handlerAndCredentialBypass() {
        withFakeSession { _, _, session in
            let plain = session.taskRequest(url: exampleURL)
            var options = UVURLSession.RequestOptions()
            options.metricsHandler = UVURLSession.MetricsHandler { _ in }
            #expect(options.isDefault, "a metrics handler overrides nothing")
            let measured = session.taskRequest(url: exampleURL, options: options)
            #expect(measured !== plain)
            #expect(measured.options.metricsHandler != nil)
            var authenticated = UVURLSession.RequestOptions()
            authenticated.credential = UVURLSession.Credential(username: "bob", password: "pw")
            let answering = session.taskRequest(url: exampleURL, options: authenticated)
            #expect(answering !== plain)
            #expect(answering.options.credential != nil)
            #expect(session.taskRequest(url: exampleURL) === plain, "the memo still holds the plain one")
        }
    }

    @Test("a URL that fails its checks is remembered with its error")
    func errorRemembered() {
        withFakeSession { _, _, session in
            let url = URL(string: "ftp://example.com/a")!
            for _ in 0..<2 {
                guard case .failure(let error) = session.taskRequest(url: url).target else {
                    Issue.record("ftp was accepted")
                    return
                }
                #expect(error.code == .unsupportedURL)
            }
        }
    }

    @Test("a session's publishers for the same URL share its request")
    func publishersShare() {
        withFakeSession { _, _, session in
            let a = session.dataTaskPublisher(for: exampleURL)
            let b = session.bytesPublisher(for: exampleURL)
            #expect(a.request == b.request)
            #expect(a.request.authority == "example.com")
        }
    }
}
