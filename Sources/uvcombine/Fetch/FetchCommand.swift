import Foundation
import HTTPTypes
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

/// `uvcombine fetch`: one request on a `UVURLSession` bound to a loop on
/// the main thread, the response streamed through `bytesPublisher` into
/// standard output or a file.
///
/// - The session's configuration carries the options: `-L` keeps the
///   default redirect policy (raised to curl's 50 redirects), its absence
///   sets `RedirectPolicy.none` so a 3xx is the result; `--max-time` sets
///   the total timeout (and caps the connect timeout).
/// - Every failure is the task's typed `UVURLError`, printed on standard
///   error with its code; the exit status follows from the code
///   (``FetchExitCode``).
struct FetchCommand {
    let options: FetchOptions

    func run() -> Int32 {
        // A closed pipe on standard output is a write error (status 23),
        // not a signal that kills the process.
        signal(SIGPIPE, SIG_IGN)

        let target: HTTPRequestTarget
        do {
            // As curl: a URL without a scheme is http.
            target = try HTTPRequestTarget(string: options.url.contains("://") ? options.url : "http://" + options.url)
        } catch {
            return fail(error)
        }
        let body = options.data.map { Data($0.utf8) }
        let method = options.method.flatMap { HTTPRequest.Method($0) } ?? (body == nil ? .get : .post)
        let request = target.makeRequest(method: method, headerFields: headerFields(hasBody: body != nil))

        let loop: UVLoop
        do {
            loop = try UVLoop()
        } catch {
            printError("uvcombine fetch: cannot create a loop: \(error)")
            return FetchExitCode.otherFailure
        }
        let status = transfer(request, body: body, on: loop)
        try? loop.close()
        return status
    }

    /// The request's header fields: curl's defaults (`User-Agent`,
    /// `Accept`, and for `-d` a form `Content-Type`) unless `-H` names the
    /// same field, then every `-H` in order.
    private func headerFields(hasBody: Bool) -> HTTPFields {
        var defaults: [(HTTPField.Name, String)] = [(.userAgent, "uvcombine-fetch/1"), (.accept, "*/*")]
        if hasBody { defaults.append((.contentType, "application/x-www-form-urlencoded")) }
        let given = options.headers.compactMap { HTTPField.Name($0.name) }
        var fields = HTTPFields()
        for (name, value) in defaults where !given.contains(name) {
            fields.append(HTTPField(name: name, value: value))
        }
        for (name, value) in options.headers {
            // Names were checked while parsing.
            fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        return fields
    }

    private func configuration() -> UVURLSession.Configuration {
        var configuration = UVURLSession.Configuration()
        if options.followRedirects {
            configuration.redirectPolicy.maximumRedirects = 50
        } else {
            configuration.redirectPolicy = .none
        }
        if let maxTime = options.maxTime {
            let limit = UVLoop.SchedulerTimeType.Stride.seconds(maxTime)
            let duration = Duration.nanoseconds(limit.nanoseconds)
            configuration.totalTimeout = duration
            configuration.connectTimeout = min(configuration.connectTimeout, duration)
        }
        return configuration
    }

    private func transfer(_ request: HTTPRequest, body: Data?, on loop: UVLoop) -> Int32 {
        let output = FetchOutput(path: options.output)
        let receiver = FetchReceiver(options: options, output: output, loop: loop)
        do {
            let session = UVURLSession(loop: loop, configuration: configuration())
            session.bytesPublisher(for: request, body: body).subscribe(receiver)
            loop.run()
        }
        switch receiver.outcome {
        case .completed:
            do {
                try output.close()
            } catch {
                printError("uvcombine fetch: \(error)")
                return FetchExitCode.writeError
            }
            return FetchExitCode.success
        case .httpError(let status):
            printError("uvcombine fetch: (22) the requested URL returned error: \(status.code) \(status.reasonPhrase)")
            return FetchExitCode.httpError
        case .writeFailed(let error):
            printError("uvcombine fetch: (23) \(error)")
            return FetchExitCode.writeError
        case .failed(let error):
            return fail(error)
        case nil:
            printError("uvcombine fetch: the transfer ended without a result")
            return FetchExitCode.otherFailure
        }
    }

    /// Prints the typed error and returns its exit status.
    private func fail(_ error: UVURLError) -> Int32 {
        let status = FetchExitCode.forError(error)
        printError("uvcombine fetch: (\(status)) UVURLError.\(error.code): \(error)")
        return status
    }
}

/// Receives the response parts: the head (status check, `-i`, the file
/// created, the progress bar started), then the body parts, written as
/// they arrive. Loop thread only.
final class FetchReceiver: Subscriber {
    typealias Input = UVURLSession.ResponsePart
    typealias Failure = UVURLError

    enum Outcome {
        case completed
        case httpError(HTTPResponse.Status)
        case writeFailed(FetchOutput.WriteError)
        case failed(UVURLError)
    }

    private let options: FetchOptions
    private let output: FetchOutput
    private let loop: UVLoop
    private var subscription: (any Subscription)?
    private var progress: ProgressBar?
    private(set) var outcome: Outcome?

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
                if options.failOnHTTPError && response.status.code >= 400 {
                    stop(.httpError(response.status))
                    return .none
                }
                try output.open()
                if options.includeHead { try output.write(Data(Self.head(of: response).utf8)) }
                if ProgressBar.isWanted(output: output) {
                    let length = response.headerFields[.contentLength].flatMap { Int($0) }
                    progress = ProgressBar(loop: loop, expectedBytes: length)
                }
            case .body(let data):
                try output.write(data)
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
        case .finished: outcome = .completed
        case .failure(let error): outcome = .failed(error)
        }
        progress?.finish(completed: completion == .finished)
        progress = nil
    }

    /// Ends the transfer early: the task is cancelled (its socket closes).
    private func stop(_ outcome: Outcome) {
        self.outcome = outcome
        progress?.finish(completed: false)
        progress = nil
        subscription?.cancel()
        subscription = nil
    }

    /// `HTTP/1.1 200 OK`, the fields as received, and the blank line.
    static func head(of response: HTTPResponse) -> String {
        var text = "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n"
        for field in response.headerFields {
            text += "\(field.name.rawName): \(field.value)\r\n"
        }
        return text + "\r\n"
    }
}
