import Foundation
import HTTPTypes
import UVCombine
import UVCombineHTTP
import UVCombineHTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// `uvcombine fetch`: curl's common command lines on a `UVURLSession`
/// bound to a loop on the main thread, the response streamed through
/// `bytesPublisher` into standard output or a file.
///
/// - Each request of a transfer (one per redirect hop) is one task on a
///   session whose redirect policy is `.none`: the tool follows redirects
///   itself, as curl does (which responses, which method and body after a
///   301/302/303, credentials only to the first host), so `-i` can print
///   every hop's head and `-w` can count them.
/// - `--retry` repeats the whole transfer for curl's transient failures
///   (``retryReason(_:)``), waiting 1 s doubling (or `--retry-delay`, or
///   the response's `Retry-After`).
/// - The heads printed by `-i`, `-I` and `-v` are the bytes on the wire,
///   seen through the session's package-level wire observer
///   (``FetchWire``).
/// - Every failure is the task's typed `UVURLError`, printed on standard
///   error with its code (unless `-s`); the exit status is curl's
///   (``FetchExitCode``).
struct FetchCommand {
    let options: FetchOptions

    /// How one attempt ended.
    struct Attempt {
        var status: Int32 = 0
        var message: String?
        var report = FetchReport()
        var error: UVURLError?
        var retryAfter: Double?
    }

    func run() -> Int32 {
        // A closed pipe on standard output is a write error (status 23),
        // not a signal that kills the process.
        signal(SIGPIPE, SIG_IGN)

        for warning in options.warnings { note(warning) }
        if let option = options.unsupported {
            return report(FetchExitCode.notBuiltIn, "option \(option): is not supported by uvcombine fetch")
        }
        // -x: checked once (an empty value means no proxy, as with curl).
        if let proxy = options.proxy, !proxy.isEmpty {
            do {
                _ = try UVURLSession.Proxy(url: proxy)
            } catch {
                if error.code == .unsupportedURL {
                    return report(FetchExitCode.notBuiltIn, "option --proxy: \(error.detail ?? "unsupported proxy")")
                }
                return report(FetchExitCode.cannotFindProxy, "Could not resolve proxy: \(proxy) (\(error))")
            }
        }

        var format: String?
        if let writeOut = options.writeOut {
            if writeOut.hasPrefix("@") {
                let file = String(writeOut.dropFirst())
                let contents = file == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                    : FileManager.default.contents(atPath: file)
                // As curl reads it: the lines joined, without line ends
                // (each line cut at its first CR).
                format = contents.map { data in
                    var kept: [UInt8] = []
                    var inLineEnd = false
                    for byte in data {
                        if byte == 0x0A { inLineEnd = false } else if byte == 0x0D { inLineEnd = true } else if !inLineEnd { kept.append(byte) }
                    }
                    return String(decoding: kept, as: UTF8.self)
                } ?? ""
            } else {
                format = writeOut
            }
        }

        let loop: UVLoop
        do {
            loop = try UVLoop()
        } catch {
            return report(FetchExitCode.otherFailure, "cannot create a loop: \(error)")
        }
        // As curl: each URL in turn, whatever happened to the one before;
        // the status is the last one's.
        var status: Int32 = 0
        // The cookie engine, for the whole run (every URL), when asked.
        let cookies = FetchCookies(options: options)
        for (index, url) in options.urls.enumerated() {
            let output: String?? = index < options.outputs.count ? options.outputs[index]
                : (options.remoteNameAll ? .some(nil) : .none)
            status = fetch(url, output: output, format: format, loop: loop, cookies: cookies)
            if status != 0 && options.failEarly { break }
        }
        try? loop.close()
        if let cookies, let error = cookies.writeJar() {
            // curl warns and keeps the transfer's status.
            note("Warning: Failed to save cookies in \(options.cookieJar ?? ""): \(error)")
        }
        return status
    }

    /// Fetches one URL (with its retries); `output` is nil for standard
    /// output, `.some(nil)` for `-O`, `.some(path)` for `-o path`.
    private func fetch(_ url: String, output outputOption: String??, format: String?, loop: UVLoop,
                       cookies: FetchCookies?) -> Int32 {
        let plan: FetchPlan
        do {
            plan = try FetchPlan(options: options, url: url)
        } catch {
            return report(error.status, error.message)
        }
        for warning in plan.warnings { note(warning) }

        var outputPath: String?
        switch outputOption {
        case .none: outputPath = nil
        case .some(.some(let path)): outputPath = path == "-" ? nil : path
        case .some(.none):
            let name = Self.remoteName(of: plan.url)
            guard !name.isEmpty else { return report(FetchExitCode.writeError, "Remote file name has no length!") }
            outputPath = name
        }
        if let directory = options.outputDirectory, let path = outputPath, !path.hasPrefix("/") {
            outputPath = directory + "/" + path
        }
        if options.createDirectories, let path = outputPath {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty {
                try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
        }
        let output = FetchOutput(path: outputPath)
        let dump = options.dumpHeader.map { FetchOutput(path: $0 == "-" ? nil : $0) }
        // As curl: each head line to -D's file first, then to the output.
        var heads: [FetchOutput] = []
        if let dump { heads.append(dump) }
        if options.includeHead || options.headOnly { heads.append(output) }

        let clock = FetchClock()
        let retryStart = ContinuousClock.now
        var retriesLeft = options.retries
        var sleep = options.retryDelay > 0 ? options.retryDelay : 1
        var attempt: Attempt
        while true {
            clock.restart()
            attempt = transfer(plan, output: output, heads: heads, loop: loop, clock: clock, cookies: cookies)
            let elapsed = Double((ContinuousClock.now - retryStart).components.seconds)
            if retriesLeft > 0, options.retryMaxTime == 0 || elapsed < options.retryMaxTime,
               let reason = retryReason(attempt) {
                var delay = sleep
                if reason == ": HTTP error", let after = attempt.retryAfter { delay = after }
                if options.retryMaxTime > 0 { delay = min(delay, max(options.retryMaxTime - elapsed, 0)) }
                note("Warning: Problem \(reason). Will retry in \(Int(delay)) seconds. \(retriesLeft) retries left.")
                retriesLeft -= 1
                if options.retryDelay == 0 { sleep = min(sleep * 2, 600) }
                do {
                    try output.truncateForRetry()
                } catch {
                    attempt.status = FetchExitCode.writeError
                    attempt.message = "Failed writing received data to disk/application: \(error)"
                    break
                }
                if delay > 0 { usleep(UInt32(min(delay, 4000) * 1_000_000)) }
                continue
            }
            break
        }

        do {
            try output.close()
            try dump?.close()
        } catch {
            if attempt.status == 0 {
                attempt.status = FetchExitCode.writeError
                attempt.message = "Failure writing output to destination: \(error)"
            }
        }
        if let path = outputPath {
            if attempt.status != 0 && options.removeOnError {
                unlink(path)
            } else if attempt.status == 0 && options.remoteTime,
                      let text = attempt.report.responseFields[HTTPField.Name("Last-Modified")!],
                      let date = Self.httpDate(text) {
                // -R: the file's times are the server's Last-Modified.
                let seconds = time_t(date.timeIntervalSince1970)
                var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
                _ = utimensat(AT_FDCWD, path, &times, 0)
            }
        }
        if let format {
            var report = attempt.report
            report.exitCode = attempt.status
            report.errorMessage = attempt.status == 0 ? "" : (attempt.message ?? "")
            report.outputFile = outputPath
            for piece in FetchWriteOut.render(format, report, silent: options.silent) {
                let bytes = Array(piece.text.utf8)
                if piece.toStandardOutput {
                    FetchOutput.writeStandardOutput(bytes)
                } else {
                    FetchOutput.writeStandardError(bytes)
                }
            }
        }
        if attempt.status != 0, let message = attempt.message {
            return report(attempt.status, message)
        }
        return attempt.status
    }

    // MARK: Proxies

    /// The proxies as curl picks them: `-x` for every scheme (`""`: none,
    /// whatever the environment says), else the environment's
    /// (`http_proxy`, `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`);
    /// `-U`'s credentials unless the proxy URL has its own; `--noproxy`,
    /// else `no_proxy`/`NO_PROXY`.
    private var proxies: UVURLSession.ProxyConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let fromEnvironment = UVURLSession.ProxyConfiguration(environment: environment)
        var proxies: UVURLSession.ProxyConfiguration
        if let given = options.proxy {
            // Checked in run(); no_proxy still applies, as with curl.
            let proxy = given.isEmpty ? nil : try? UVURLSession.Proxy(url: given)
            proxies = UVURLSession.ProxyConfiguration(http: proxy, https: proxy, noProxy: fromEnvironment.noProxy)
        } else {
            proxies = fromEnvironment
        }
        if let user = options.proxyUser {
            func credited(_ proxy: UVURLSession.Proxy?) -> UVURLSession.Proxy? {
                guard let proxy, proxy.username == nil else { return proxy }
                let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                return UVURLSession.Proxy(host: proxy.host, port: proxy.port, username: String(parts[0]),
                                          password: parts.count > 1 ? String(parts[1]) : "")
            }
            proxies.http = credited(proxies.http)
            proxies.https = credited(proxies.https)
        }
        if let noProxy = options.noProxy { proxies.noProxy = noProxy }
        return proxies
    }

    /// The session of one transfer: curl's settings (no idle timeout, 300
    /// s to connect or `--connect-timeout`, capped by `--max-time`;
    /// redirects followed by the tool itself).
    private func sessionConfiguration(limit: Double?, cookies: FetchCookies?) -> UVURLSession.Configuration {
        var configuration = UVURLSession.Configuration()
        // As curl: no cookies unless -b FILE or -c switched the engine on;
        // the engine's store then takes every response's Set-Cookie.
        configuration.httpCookieStorage = cookies?.storage
        // As curl: no Accept-Encoding and bodies as sent, unless
        // --compressed (then gzip and deflate are asked for and decoded).
        configuration.decompressesResponses = options.compressed
        // --http1.1, --http2, --http2-prior-knowledge.
        configuration.httpVersion = options.httpVersion
        // --unix-socket: the bytes go through the socket; the URL
        // still gives Host and the request target, as curl.
        configuration.unixSocketPath = options.unixSocket
        configuration.proxy = proxies
        configuration.redirectPolicy = .none
        // curl has no idle timeout, and allows 300 s to connect.
        configuration.idleReadTimeout = nil
        var connectLimit = options.connectTimeout.flatMap { $0 > 0 ? $0 : nil } ?? 300
        if let limit { connectLimit = min(connectLimit, limit) }
        // Each hop carries its share of --max-time (RequestOptions).
        configuration.totalTimeout = nil
        configuration.connectTimeout = Self.duration(connectLimit)
        if let caCertificates = options.caCertificates {
            configuration.tls.trustRoots = .pemFile(caCertificates)
        }
        if options.insecure {
            configuration.tls.certificateVerification = .disabledInsecure
        }
        if options.tlsVersion13 {
            configuration.tls.minimumVersion = .v1_3
        }
        return configuration
    }

    // MARK: One attempt: the request and its redirects

    private func transfer(_ plan: FetchPlan, output: FetchOutput, heads: [FetchOutput], loop: UVLoop,
                          clock: FetchClock, cookies: FetchCookies?) -> Attempt {
        var attempt = Attempt()
        attempt.report.url = plan.commandLineURL
        var url = plan.url
        var method = plan.method
        var body = plan.body
        var redirects = 0
        var firstKey: ConnectionKey?
        let limit: Double? = options.maxTime.flatMap { $0 > 0 ? $0 : nil }
        var redirectTime = 0.0
        // One session for the whole transfer, as curl keeps one connection
        // cache: a redirect to the same origin reuses the kept-alive
        // connection (`num_connects` 1, as curl's).
        let session = UVURLSession(loop: loop, configuration: sessionConfiguration(limit: limit, cookies: cookies))
        let timings = FetchTimings()

        while true {
            attempt.report.urlEffective = url
            let target: HTTPRequestTarget
            do {
                target = try HTTPRequestTarget(string: url)
            } catch {
                return failed(attempt, error, url: url, host: nil, port: nil, clock: clock, received: 0)
            }
            attempt.report.scheme = target.scheme == .https ? "HTTPS" : "HTTP"
            // --proto, and --proto-redir for the requests after a redirect.
            let scheme = target.scheme == .https ? "https" : "http"
            if !options.protocols.contains(scheme) || (redirects > 0 && !options.redirectProtocols.contains(scheme)) {
                attempt.status = FetchExitCode.otherFailure
                attempt.message = "Protocol \"\(scheme)\" not supported or disabled in libcurl"
                return attempt
            }
            if attempt.report.remoteIP.isEmpty {
                // Until a connection says which address it reached.
                attempt.report.remotePort = target.port
                attempt.report.remoteIP = Self.isAddressLiteral(target.host) ? target.host : ""
            }
            if firstKey == nil { firstKey = target.key }
            if target.scheme == .https, let file = options.caCertificates, !FileManager.default.isReadableFile(atPath: file) {
                attempt.status = FetchExitCode.caCertificateFile
                attempt.message = "error setting certificate verify locations: CAfile: \(file)"
                return attempt
            }
            let sent = plan.customMethod ?? method
            attempt.report.method = sent
            guard let requestMethod = HTTPRequest.Method(sent) else {
                attempt.status = FetchExitCode.invalidRequest
                attempt.message = "invalid request method \"\(sent)\""
                return attempt
            }
            // Routed per hop: a redirect may leave (or enter) the proxy.
            let proxies = self.proxies
            let proxy: UVURLSession.Proxy?
            do {
                proxy = options.unixSocket == nil ? try proxies.proxy(for: target) : nil
            } catch {
                return failed(attempt, error, url: url, host: target.host, port: target.port, clock: clock, received: 0)
            }
            var fields = HTTPFields()
            for (name, value) in plan.fields(withBody: body != nil, keepingCredentials: options.locationTrusted || target.key == firstKey,
                                             forwardProxied: proxy != nil && target.scheme == .http) {
                guard let fieldName = HTTPField.Name(name) else {
                    attempt.status = FetchExitCode.invalidRequest
                    attempt.message = "invalid header field name \"\(name)\""
                    return attempt
                }
                fields.append(HTTPField(name: fieldName, value: value))
            }
            if let cookies { cookies.merge(into: &fields, for: target, custom: options.cookie) }
            let request = target.makeRequest(method: requestMethod, headerFields: fields)

            // The hop's share of --max-time (the session's connect timeout
            // was capped by it when the transfer began).
            var requestOptions = UVURLSession.RequestOptions(metricsHandler: timings.handler)
            if let limit {
                let remaining = limit - clock.seconds
                guard remaining > 0 else {
                    attempt.status = FetchExitCode.timedOut
                    attempt.message = "Operation timed out after \(Int(limit * 1000)) milliseconds"
                    return attempt
                }
                requestOptions.totalTimeout = Self.duration(remaining)
            }
            // --digest: the session answers the 401 (credentials only to
            // the first host, as the Basic field, unless --location-trusted).
            if options.digest, let credentials = plan.credentials,
               options.locationTrusted || target.key == firstKey {
                let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                requestOptions.credential = UVURLSession.Credential(
                    username: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : "", schemes: .digest)
            }

            // Through a proxy, curl names the proxy here.
            let connectHost = proxy?.host ?? target.host
            let connectPort = proxy?.port ?? target.port
            if options.verbose {
                FetchOutput.writeStandardError(Array("*   Trying \(connectHost):\(connectPort)...\n".utf8))
            }
            let wire = FetchWire(outputs: heads, verbose: options.verbose, clock: clock,
                                 endpoint: "\(connectHost) port \(connectPort)")
            let receiver = FetchReceiver(options: options, output: output, loop: loop)
            session.engine.wireObserver = wire
            session.bytesPublisher(for: request, body: body, options: requestOptions).subscribe(receiver)
            loop.run()
            session.engine.wireObserver = nil

            var report = attempt.report
            report.sizeHeader += wire.headerBytes
            report.sizeRequest += wire.requestBytes
            report.sizeUpload += body?.count ?? 0
            report.numConnects += wire.connectionCount
            report.httpVersion = wire.httpVersion ?? report.httpVersion
            // The hop's times, added to the earlier hops' as curl adds
            // them (each measured from the hop's start), and the address
            // actually connected to.
            if let transaction = timings.takeLastTransaction() {
                report.add(hop: transaction)
            }
            report.timeTotal = clock.seconds
            // curl counts the body as sent: before decoding (--compressed).
            report.sizeDownload = options.compressed && receiver.response?.headerFields[.contentEncoding] != nil
                ? wire.encodedBodyBytes : receiver.bodyBytes
            if let response = receiver.response {
                report.httpCode = response.status.code
                report.contentType = response.headerFields[.contentType]
                report.responseFields = response.headerFields
                report.redirectURL = nil
                if (300..<400).contains(response.status.code), let location = response.headerFields[.location] {
                    report.redirectURL = Self.resolve(location, against: url)
                }
                attempt.retryAfter = response.headerFields[HTTPField.Name("Retry-After")!].flatMap { Double($0) }
            }
            attempt.report = report
            if let error = wire.writeError {
                attempt.status = FetchExitCode.writeError
                attempt.message = "Failure writing output to destination: \(error)"
                return attempt
            }

            switch receiver.outcome {
            case .redirect(let location):
                redirects += 1
                if options.maximumRedirects >= 0 && redirects > options.maximumRedirects {
                    attempt.status = FetchExitCode.redirects
                    attempt.message = "Maximum (\(options.maximumRedirects)) redirects followed"
                    return attempt
                }
                redirectTime = clock.seconds
                attempt.report.numRedirects = redirects
                attempt.report.timeRedirect = redirectTime
                url = Self.resolve(location, against: url)
                if options.verbose {
                    FetchOutput.writeStandardError(Array("* Issue another request to this URL: '\(url)'\n".utf8))
                }
                // curl's rules for the method after a redirect.
                let code = receiver.response?.status.code ?? 0
                if (code == 301 || code == 302) && method == "POST" {
                    method = "GET"
                    body = nil
                } else if code == 303 && method != "GET" && method != "HEAD" {
                    method = "GET"
                    body = nil
                }
            case .completed:
                if options.failWithBody, let code = receiver.response?.status.code, code >= 400 {
                    attempt.status = FetchExitCode.httpError
                    attempt.message = "The requested URL returned error: \(code)"
                }
                return attempt
            case .httpError(let status):
                attempt.status = FetchExitCode.httpError
                attempt.message = "The requested URL returned error: \(status.code)"
                return attempt
            case .tooLarge:
                attempt.status = FetchExitCode.tooLarge
                attempt.message = "Maximum file size exceeded"
                return attempt
            case .writeFailed(let error):
                attempt.status = FetchExitCode.writeError
                attempt.message = "Failure writing output to destination: \(error)"
                return attempt
            case .failed(let error):
                let isProxyError = error.code == .cannotConnectToProxy || error.code == .cannotFindProxyHost
                return failed(attempt, error, url: url, host: isProxyError ? connectHost : target.host,
                              port: isProxyError ? connectPort : target.port, clock: clock,
                              received: receiver.bodyBytes)
            case nil:
                attempt.status = FetchExitCode.otherFailure
                attempt.message = "the transfer ended without a result"
                return attempt
            }
        }
    }

    /// The attempt failed with `error`: curl's status, and curl's words
    /// followed by the typed error.
    private func failed(_ attempt: Attempt, _ error: UVURLError, url: String, host: String?, port: Int?,
                        clock: FetchClock, received: Int) -> Attempt {
        var attempt = attempt
        attempt.status = FetchExitCode.forError(error)
        let milliseconds = Int(clock.seconds * 1000)
        let words: String? = switch error.code {
        case .badURL: "URL using bad/illegal format or missing URL"
        case .unsupportedURL:
            "Protocol \"\(url.split(separator: ":").first.map(String.init) ?? "")\" not supported or disabled"
        case .cannotFindHost: "Could not resolve host: \(host ?? "")"
        case .cannotFindProxyHost: "Could not resolve proxy: \(host ?? "")"
        case .cannotConnectToHost, .cannotConnectToProxy:
            "Failed to connect to \(host ?? "") port \(port ?? 0) after \(milliseconds) ms: Couldn't connect to server"
        case .proxyAuthenticationRequired: "CONNECT tunnel failed, response 407"
        case .proxyConnectFailed:
            (error.detail?.firstMatch(of: /answered (\d{3})/)).map { "CONNECT tunnel failed, response \($0.1)" }
        case .timedOut where error.timeoutKind == .connect: "Connection timed out after \(milliseconds) milliseconds"
        case .timedOut: "Operation timed out after \(milliseconds) milliseconds with \(received) bytes received"
        case .badServerResponse: "Weird server reply"
        case .networkConnectionLost where attempt.status == FetchExitCode.emptyReply: "Empty reply from server"
        case .networkConnectionLost: "Recv failure: the connection was lost"
        default: nil
        }
        let typed = "UVURLError.\(error.code): \(error)"
        attempt.message = words.map { "\($0) (\(typed))" } ?? typed
        attempt.error = error
        return attempt
    }

    /// curl's transient failures (its tool_operate.c): a timeout or a host
    /// that did not resolve; a refused connection with
    /// `--retry-connrefused`; HTTP 408, 429, 500, 502, 503 and 504 (a
    /// completed transfer, or `-f`'s failure); anything with
    /// `--retry-all-errors`. Returns curl's wording, or nil.
    private func retryReason(_ attempt: Attempt) -> String? {
        var reason: String?
        switch attempt.status {
        case FetchExitCode.timedOut, FetchExitCode.cannotFindHost, FetchExitCode.cannotFindProxy:
            reason = ": timeout"
        case FetchExitCode.cannotConnect where options.retryConnectionRefused:
            reason = ": connection refused"
        case 0, FetchExitCode.httpError:
            if attempt.status == 0 || options.failOnHTTPError || options.failWithBody,
               [408, 429, 500, 502, 503, 504].contains(attempt.report.httpCode) {
                reason = ": HTTP error"
            }
        default:
            break
        }
        if reason == nil && attempt.status != 0 && options.retryAllErrors { reason = " (retrying all errors)" }
        return reason
    }

    // MARK: Helpers

    /// Prints `uvcombine fetch: (status) message` unless `-s` (without
    /// `-S`); returns `status`.
    @discardableResult
    private func report(_ status: Int32, _ message: String) -> Int32 {
        if !options.silent || options.showError {
            printError("uvcombine fetch: (\(status)) \(message)")
        }
        return status
    }

    /// A warning, unless `-s`.
    private func note(_ message: String) {
        if !options.silent { printError(message) }
    }

    private static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
    }

    /// `Location` resolved against the URL it came from.
    static func resolve(_ location: String, against url: String) -> String {
        guard let base = URL(string: url), let resolved = URL(string: location, relativeTo: base) else {
            return location
        }
        return resolved.absoluteString
    }

    /// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    /// `-O`'s file name: the URL path's last segment.
    static func remoteName(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix(while: { $0 != "?" && $0 != "#" })
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        return String(rest[rest.index(after: slash)...])
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}

/// Receives one request's response parts: the head (redirect, `-f`, the
/// progress bar), then the body parts, written as they arrive. Loop
/// thread only.
final class FetchReceiver: Subscriber {
    typealias Input = UVURLSession.ResponsePart
    typealias Failure = UVURLError

    enum Outcome {
        case completed
        case redirect(String)
        case httpError(HTTPResponse.Status)
        /// `--max-filesize`: the Content-Length says the body is too large.
        case tooLarge
        case writeFailed(FetchOutput.WriteError)
        case failed(UVURLError)
    }

    private let options: FetchOptions
    private let output: FetchOutput
    private let loop: UVLoop
    private var subscription: (any Subscription)?
    private var progress: ProgressBar?
    /// A redirect's `Location`: its body is read and dropped (not
    /// cancelled, which would close the connection the next hop may
    /// reuse), and the outcome is the redirect once it ended.
    private var redirectLocation: String?
    private(set) var outcome: Outcome?
    private(set) var response: HTTPResponse?
    private(set) var bodyBytes = 0

    init(options: FetchOptions, output: FetchOutput, loop: UVLoop) {
        self.options = options
        self.output = output
        self.loop = loop
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        // Writes are synchronous: while one runs the loop reads nothing,
        // so a slow disk slows the socket down.
        subscription.request(.unlimited)
    }

    func receive(_ part: UVURLSession.ResponsePart) -> Subscribers.Demand {
        guard outcome == nil else { return .none }
        do {
            switch part {
            case .head(let response):
                self.response = response
                let code = response.status.code
                // curl follows every 3xx with a Location but 304.
                if options.followRedirects, (300..<400).contains(code), code != 304,
                   let location = response.headerFields[.location] {
                    redirectLocation = location
                    return .none
                }
                if options.failOnHTTPError && !options.failWithBody && code >= 400 {
                    stop(.httpError(response.status))
                    return .none
                }
                if let maximum = options.maximumFileSize, maximum > 0,
                   let length = response.headerFields[.contentLength].flatMap({ Int($0) }), length > maximum {
                    stop(.tooLarge)
                    return .none
                }
                // As curl: the file exists even when the body is empty.
                try output.open()
                if !options.headOnly && !options.silent && ProgressBar.isWanted(output: output) {
                    let length = response.headerFields[.contentLength].flatMap { Int($0) }
                    progress = ProgressBar(loop: loop, expectedBytes: length)
                }
            case .body(let data):
                guard redirectLocation == nil else { return .none }
                bodyBytes += data.count
                if !options.headOnly { try output.write(data) }
                progress?.add(data.count)
            }
        } catch {
            stop(.writeFailed(error))
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<UVURLError>) {
        subscription = nil
        guard outcome == nil else { return }
        switch completion {
        case .finished: outcome = redirectLocation.map { .redirect($0) } ?? .completed
        case .failure(let error): outcome = .failed(error)
        }
        progress?.finish(completed: completion == .finished)
        progress = nil
    }

    /// Ends the request early: the task is cancelled (its socket closes).
    private func stop(_ outcome: Outcome) {
        self.outcome = outcome
        progress?.finish(completed: false)
        progress = nil
        subscription?.cancel()
        subscription = nil
    }
}
