import FoundationEssentials
import HTTPTypes
import UVCombineHTTPCore
import UVCombineHTTPClient

// Foundation's `URL` and `Data` into the engine's forms, once per
// publisher: the URL parsed by the protocol core, the body copied into
// bytes (the one copy a request body costs).
extension HTTPTaskRequest {
    /// A GET for `url`; with `acceptEncoding`, it says
    /// `Accept-Encoding: gzip, deflate`.
    package convenience init(url: URL, acceptEncoding: Bool,
                             options: UVURLSession.RequestOptions = UVURLSession.RequestOptions()) {
        do throws(UVURLError) {
            let target = try HTTPRequestTarget(url: url)
            let fields = acceptEncoding ? Self.acceptEncodingFields : HTTPFields()
            self.init(request: target.makeRequest(method: .get, headerFields: fields), body: nil, target: .success(target),
                      options: options)
        } catch {
            self.init(request: HTTPRequest(method: .get, scheme: url.scheme, authority: url.host, path: "/"),
                      body: nil, target: .failure(error), options: options)
        }
    }
}

extension UVURLSession {
    /// What a publisher for `url` asks this session to fetch, with the
    /// session's `Accept-Encoding` (`Configuration/decompressesResponses`).
    /// With default options the last URL's task request is reused
    /// (``TaskRequestMemo``): a publisher made per request for the same URL
    /// parses it once. Options with a metrics handler or a credential
    /// bypass it too, though `isDefault` (no override of a deadline or the
    /// version) holds for them: the remembered task request carries
    /// default options, and reusing it dropped the handler (found by the
    /// HTTP/2 benchmarks' protocol check, which then saw no metrics).
    package func taskRequest(url: URL, options: RequestOptions = RequestOptions()) -> HTTPTaskRequest {
        guard options.isDefault, options.metricsHandler == nil, options.credential == nil else {
            return HTTPTaskRequest(url: url, acceptEncoding: configuration.decompressesResponses, options: options)
        }
        let key = url.absoluteString
        if let remembered = taskRequestMemo.task(for: key) { return remembered }
        let task = HTTPTaskRequest(url: url, acceptEncoding: configuration.decompressesResponses, options: options)
        taskRequestMemo.remember(task, for: key)
        return task
    }

    /// What a publisher for `request` with `body` asks this session to
    /// fetch: the body copied into bytes once, here.
    package func taskRequest(request: HTTPRequest, body: Data?,
                             options: RequestOptions = RequestOptions()) -> HTTPTaskRequest {
        taskRequest(request: request, bytes: body.map { [UInt8]($0) }, options: options)
    }
}

extension Data: RequestBodyChunk {}
