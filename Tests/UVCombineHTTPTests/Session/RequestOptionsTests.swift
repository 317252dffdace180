import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Per-request deadlines (`UVURLSession.RequestOptions`) on virtual time:
/// each overrides the session's, shorter or longer, and fails with the
/// same error.
@Suite("UVURLSession per-request deadlines")
struct RequestOptionsTests {
    @Test("RequestTimeouts.overridden(by:): a nil option keeps the session's value")
    func overriding() {
        var session = RequestTimeouts()
        session.idleRead = .seconds(30)
        session.total = nil
        #expect(session.overridden(by: .init()) == session)
        let idle = session.overridden(by: .init(idleReadTimeout: .seconds(2)))
        #expect(idle.idleRead == .seconds(2))
        #expect(idle.total == nil)
        let total = session.overridden(by: .init(totalTimeout: .seconds(5)))
        #expect(total.idleRead == .seconds(30))
        #expect(total.total == .seconds(5))
        #expect(UVURLSession.RequestOptions().isDefault)
        #expect(!UVURLSession.RequestOptions(totalTimeout: .seconds(1)).isDefault)
        #expect(UVURLSession.RequestOptions(totalTimeout: .seconds(1)).description
                == "RequestOptions(totalTimeout: 1.0 seconds)")
    }

    @Test("the publishers carry their options; the old initialisers carry the defaults")
    func publishersCarryOptions() {
        withFakeSession { _, _, session in
            let options = UVURLSession.RequestOptions(idleReadTimeout: .seconds(1), totalTimeout: .seconds(2))
            #expect(session.dataTaskPublisher(for: exampleURL, options: options).options == options)
            #expect(session.bytesPublisher(for: exampleURL, options: options).options == options)
            #expect(session.dataTaskPublisher(for: exampleURL).options.isDefault)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/")
            #expect(session.dataTaskPublisher(for: request, options: options).options == options)
            #expect(session.bytesPublisher(for: request, body: nil, options: options).options == options)
            #expect(UVURLSession.DataTaskPublisher(request: request, options: options, session: session).options == options)
            #expect(UVURLSession.BytesPublisher(request: request, options: options, session: session).options == options)
            #expect(UVURLSession.DataTaskPublisher(request: request, session: session).options.isDefault)
        }
    }

    @Test("an idle read timeout shorter than the session's fails first, as .timedOut(.idleRead)")
    func shorterIdle() {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = .seconds(60)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL, options: .init(idleReadTimeout: .seconds(2))).subscribe(tracker)
            fake.last.accept()
            fake.advance(by: .milliseconds(1999))
            #expect(tracker.completion == nil)
            fake.advance(by: .milliseconds(1))
            #expect(failure(of: tracker)?.code == .timedOut)
            #expect(failure(of: tracker)?.timeoutKind == .idleRead)
            #expect(fake.last.isClosed)
            // The next task without options has the session's 60 s.
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(next)
            fake.last.accept()
            fake.advance(by: .seconds(59))
            #expect(next.completion == nil)
            fake.last.respond(response(body: "ok"))
            #expect(next.bodies == ["ok"])
        }
    }

    @Test("an idle read timeout longer than the session's lets a slow server answer")
    func longerIdle() {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = .seconds(1)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL, options: .init(idleReadTimeout: .seconds(30))).subscribe(tracker)
            fake.last.accept()
            fake.advance(by: .seconds(29))
            #expect(tracker.completion == nil, "the session's 1 s does not apply")
            fake.last.respond(response(body: "late"))
            #expect(tracker.bodies == ["late"])
            #expect(tracker.completion == .finished)
        }
    }

    @Test("a total timeout shorter than the session's: .timedOut(.total) while bytes flow")
    func shorterTotal() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL, options: .init(totalTimeout: .seconds(3))).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            for _ in 0..<5 {
                fake.advance(by: .milliseconds(500))
                fake.last.respond("a")
            }
            #expect(tracker.completion == nil)
            fake.advance(by: .milliseconds(500))
            #expect(failure(of: tracker)?.timeoutKind == .total)
            #expect(failure(of: tracker)?.detail == "total timeout")
            #expect(fake.last.isClosed)
        }
    }

    @Test("a total timeout longer than the session's; the idle timeout stays the session's")
    func longerTotal() {
        var configuration = UVURLSession.Configuration()
        configuration.totalTimeout = .seconds(2)
        configuration.idleReadTimeout = .seconds(5)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.bytesPublisher(for: exampleURL, options: .init(totalTimeout: .seconds(100)))
                .map { part in (data: part.data ?? Data(), response: HTTPResponse(status: .ok)) }
                .subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            for _ in 0..<10 {
                fake.advance(by: .seconds(4))
                fake.last.respond("a")
            }
            #expect(tracker.completion == nil, "40 s in: the session's 2 s total does not apply")
            fake.advance(by: .seconds(5))
            #expect(failure(of: tracker)?.timeoutKind == .idleRead, "the session's idle read timeout still does")
        }
    }
}
