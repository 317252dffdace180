import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Certificate and handshake failures: each fails the task with its typed
/// error and OpenSSL's reason; `.disabledInsecure` accepts the same
/// servers.
@Suite("UVURLSession TLS verification")
struct TLSVerificationTests {
    enum Certificate: Sendable {
        case localhost, wrongHost, expired, notYetValid

        func path(in certificates: TestCertificates) -> String {
            switch self {
            case .localhost: certificates.localhost
            case .wrongHost: certificates.wrongHost
            case .expired: certificates.expired
            case .notYetValid: certificates.notYetValid
            }
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let certificate: Certificate
        /// Trust the test CA (otherwise: the system store).
        let trustsTestCA: Bool
        let host: String
        let code: UVURLError.Code
        let detail: String
        let name: String
    }

    static let cases: [Case] = [
        Case(description: "unknown root: the system store does not know the test CA", certificate: .localhost,
             trustsTestCA: false, host: "localhost", code: .serverCertificateHasUnknownRoot,
             detail: "unable to get local issuer certificate", name: "X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY"),
        Case(description: "a certificate for another host name", certificate: .wrongHost,
             trustsTestCA: true, host: "localhost", code: .serverCertificateHostnameMismatch,
             detail: "hostname mismatch", name: "X509_V_ERR_HOSTNAME_MISMATCH"),
        Case(description: "a certificate without the URL's IP address", certificate: .wrongHost,
             trustsTestCA: true, host: "127.0.0.1", code: .serverCertificateHostnameMismatch,
             detail: "IP address mismatch", name: "X509_V_ERR_IP_ADDRESS_MISMATCH"),
        Case(description: "an expired certificate", certificate: .expired,
             trustsTestCA: true, host: "localhost", code: .serverCertificateHasBadDate,
             detail: "certificate has expired", name: "X509_V_ERR_CERT_HAS_EXPIRED"),
        Case(description: "a certificate not valid yet", certificate: .notYetValid,
             trustsTestCA: true, host: "localhost", code: .serverCertificateNotYetValid,
             detail: "certificate is not yet valid", name: "X509_V_ERR_CERT_NOT_YET_VALID"),
    ]

    @Test("fails with the typed error and OpenSSL's reason; with verification disabled the same server is fetched",
          arguments: cases)
    func verificationFailure(_ testCase: Case) throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let page = Data("served over TLS\n".utf8)
        let server = try TLSTestServer(.openSSL(arguments: []), certificate: testCase.certificate.path(in: certificates),
                                       key: certificates.keyFile, files: ["page.txt": page])
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            if testCase.trustsTestCA { configuration.tls.trustRoots = .pemFile(certificates.caFile) }
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/page.txt", host: testCase.host)), on: loop)
            let error = outcome?.error
            #expect(error?.code == testCase.code, "\(String(describing: error))")
            #expect(error?.detail == testCase.detail)
            #expect(error?.underlyingErrorName == testCase.name)
            #expect(error.map { "\($0)".contains(testCase.detail) } == true)
            #expect(session.engine.connectionCount == 0, "the failed connection is closed")

            var insecure = configuration
            insecure.tls.certificateVerification = .disabledInsecure
            let insecureSession = UVURLSession(loop: loop, configuration: insecure)
            let accepted = fetch(insecureSession.dataTaskPublisher(for: server.url("/page.txt", host: testCase.host)), on: loop)
            #expect(accepted?.error == nil, "\(String(describing: accepted?.error))")
            #expect(accepted?.data == page)
        }
    }

    @Test("after a certificate failure the session keeps working for a valid server")
    func failureThenSuccess() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let page = Data("fine".utf8)
        let expired = try TLSTestServer(.openSSL(arguments: []), certificate: certificates.expired,
                                        key: certificates.keyFile, files: ["page.txt": page])
        defer { expired.stop() }
        let valid = try TLSTestServer(.python, certificate: certificates.localhost,
                                      key: certificates.keyFile, files: ["page.txt": page])
        defer { valid.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
            var outcomes: [Result<(data: Data, response: HTTPResponse), UVURLError>] = []
            // Both at once: the failure must not disturb the other task.
            let first = session.dataTaskPublisher(for: expired.url("/page.txt"))
                .sink(receiveCompletion: { if case .failure(let error) = $0 { outcomes.append(.failure(error)) } },
                      receiveValue: { outcomes.append(.success($0)) })
            let second = session.dataTaskPublisher(for: valid.url("/page.txt"))
                .sink(receiveCompletion: { if case .failure(let error) = $0 { outcomes.append(.failure(error)) } },
                      receiveValue: { outcomes.append(.success($0)) })
            withExtendedLifetime((first, second)) { _ = loop.run() }
            #expect(outcomes.count == 2)
            #expect(outcomes.compactMap(\.error).map(\.code) == [.serverCertificateHasBadDate])
            #expect(outcomes.compactMap(\.data) == [page])
            let again = fetch(session.dataTaskPublisher(for: valid.url("/page.txt")), on: loop)
            #expect(again?.data == page)
        }
    }

    @Test("no protocol version in common: secureConnectionFailed with the server's alert")
    func protocolVersionMismatch() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try TLSTestServer(.openSSL(arguments: ["-tls1_2"]), certificate: certificates.localhost,
                                       key: certificates.keyFile, files: ["page.txt": Data("1.2".utf8)])
        defer { server.stop() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration.trusting(certificates.caFile)
            configuration.tls.minimumVersion = .v1_3
            let session = UVURLSession(loop: loop, configuration: configuration)
            let error = fetch(session.dataTaskPublisher(for: server.url("/page.txt")), on: loop)?.error
            #expect(error?.code == .secureConnectionFailed, "\(String(describing: error))")
            #expect(error?.detail?.contains("alert protocol version") == true, "\(String(describing: error?.detail))")
            #expect(error?.underlyingErrorName == "SSL_ERROR_SSL")

            // TLS 1.2 is accepted by default.
            let accepted = fetch(UVURLSession(loop: loop, configuration: .trusting(certificates.caFile))
                .dataTaskPublisher(for: server.url("/page.txt")), on: loop)
            #expect(accepted?.text == "1.2")
        }
    }

    @Test("an https URL to a plain HTTP server answering 400: secureConnectionFailed with OpenSSL's reason")
    func plainServer() throws {
        withRealLoop { loop in
            let plain = try! StalledHandshakeServer(loop: loop)
            plain.reply = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            let session = UVURLSession(loop: loop)
            let error = fetch(session.dataTaskPublisher(for: URL(string: "https://127.0.0.1:\(plain.port)/")!), on: loop)?.error
            #expect(!plain.guardFired)
            #expect(error?.code == .secureConnectionFailed, "\(String(describing: error))")
            #expect(error?.detail?.hasPrefix("error:") == true, "\(String(describing: error?.detail))")
            #expect(error?.detail?.contains("SSL routines") == true)
            #expect(session.engine.connectionCount == 0)
            plain.close()
        }
    }

    @Test("a server that never answers the handshake: the connect timeout covers it")
    func handshakeTimeout() throws {
        withRealLoop { loop in
            let stalled = try! StalledHandshakeServer(loop: loop)
            var configuration = UVURLSession.Configuration()
            // Long enough for the TCP connect and the ClientHello even on a
            // loaded machine (a timeout before the connect would leave the
            // server waiting for a client that never comes: its guard
            // would end the test after 20 s).
            configuration.connectTimeout = .seconds(1)
            let session = UVURLSession(loop: loop, configuration: configuration)
            var serverSawClientHello = false
            var serverSawEnd = false
            stalled.onFirstBytes = { serverSawClientHello = $0.first == 0x16 }
            stalled.onEnd = { serverSawEnd = true }
            let start = loop.now
            // A numeric host: no resolver thread involved.
            let error = fetch(session.dataTaskPublisher(for: URL(string: "https://127.0.0.1:\(stalled.port)/")!), on: loop)?.error
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(error?.timeoutKind == .connect)
            #expect(serverSawClientHello, "the timeout struck mid-handshake")
            // fetch's run() returned once the server saw the client's end of
            // file and closed.
            #expect(serverSawEnd)
            #expect(!stalled.guardFired)
            #expect(start.distance(to: loop.now) < .seconds(10))
            stalled.close()
        }
    }

    @Test("a CA bundle that cannot be loaded fails https tasks with OpenSSL's reason, before connecting")
    func missingCABundle() {
        withRealLoop { loop in
            let session = UVURLSession(loop: loop, configuration: .trusting("/nonexistent/uvcombine-ca.pem"))
            let error = fetch(session.dataTaskPublisher(for: URL(string: "https://127.0.0.1:1/")!), on: loop)?.error
            #expect(error?.code == .secureConnectionFailed, "\(String(describing: error))")
            #expect(error?.detail?.hasPrefix("cannot load the CA bundle \"/nonexistent/uvcombine-ca.pem\": error:") == true,
                    "\(String(describing: error?.detail))")
            #expect(session.engine.connectionCount == 0)
        }
    }

    @Test("the configuration's TLS settings describe themselves")
    func configurationDescription() {
        var tls = UVURLSession.TLSConfiguration()
        #expect(tls.description == "TLS(trustRoots: system, verification: full, minimum: TLS 1.2)")
        tls.trustRoots = .pemFile("/ca.pem")
        tls.certificateVerification = .disabledInsecure
        tls.minimumVersion = .v1_3
        #expect(tls.description == "TLS(trustRoots: pemFile(/ca.pem), verification: disabledInsecure, minimum: TLS 1.3)")
        #expect(UVURLSession.Configuration().tls == UVURLSession.TLSConfiguration())
        #expect(UVURLError.Code.serverCertificateHasBadDate.rawValue == -1201, "URLError's raw value")
        #expect(UVURLError.Code.secureConnectionFailed.description == "secureConnectionFailed")
    }
}
