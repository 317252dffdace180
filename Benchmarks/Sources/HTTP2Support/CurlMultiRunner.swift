import CCurlMulti

/// libcurl's multi interface as the peer of the HTTP/2 workloads: the C
/// client in Sources/CCurlMulti (`curl_multi_client.c`), run on the
/// calling thread, so that its CPU time (`CLOCK_THREAD_CPUTIME_ID`) and
/// its mallocs (package-benchmark's interposer counts every malloc of the
/// process) are measured as UVURLSession's are.
///
/// Threading: the thread that made it, only.
///
/// ```swift
/// let curl = CurlMultiRunner(url: nginx.urlString(.tls), version: .tls, caFile: nginx.certificatePath, width: 100)
/// curl.run(total: 3_000)
/// curl.close()
/// ```
public final class CurlMultiRunner {
    /// What the C client speaks.
    public enum Version: Sendable {
        /// HTTP/1.1, one connection per transfer in flight.
        case http1_1
        /// HTTP/2 with prior knowledge over cleartext, multiplexed.
        case priorKnowledge
        /// HTTP/2 by ALPN over TLS, multiplexed.
        case tls
    }

    private let client: OpaquePointer

    /// A client of `url` with `width` transfers in flight; `freshHandles`
    /// makes an easy handle per transfer (as `curl --parallel`) instead of
    /// reusing `width` of them. Stops the process when libcurl has no
    /// HTTP/2.
    public init(url: String, version: Version, caFile: String? = nil, width: Int, freshHandles: Bool = false) {
        let cVersion: cm_version = switch version {
        case .http1_1: CM_HTTP1_1
        case .priorKnowledge: CM_HTTP2_PRIOR_KNOWLEDGE
        case .tls: CM_HTTP2_TLS
        }
        guard let client = cm_client_create(url, cVersion, caFile, Int32(width), freshHandles ? 1 : 0) else {
            fatalError("CurlMultiRunner: libcurl could not make the client (no HTTP/2?)")
        }
        self.client = client
    }

    /// Runs `total` transfers; stops the process on a failure.
    public func run(total: Int) {
        let code = cm_client_run(client, total)
        precondition(code == 0, "CurlMultiRunner: a transfer failed: code \(code)")
    }

    /// Body bytes received so far.
    public var bodyBytes: Int { Int(cm_client_body_bytes(client)) }

    /// Connections libcurl opened so far.
    public var connections: Int { cm_client_connections(client) }

    /// The last transfer's HTTP version: `"h2"` or `"http/1.1"`.
    public var lastProtocol: String {
        cm_client_last_http_version(client) == 3 ? "h2" : "http/1.1"
    }

    /// Frees the client and its connections.
    public func close() {
        cm_client_destroy(client)
    }
}
