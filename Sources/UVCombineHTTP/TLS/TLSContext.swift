internal import COpenSSL

/// A session's OpenSSL client context (`SSL_CTX`), built once from its
/// ``UVURLSession/TLSConfiguration`` and shared by all its `https`
/// connections: protocol versions, ALPN, renegotiation refused, and the
/// trusted certificates loaded from disk.
///
/// Building it reads the trust roots (the system bundle, or the configured
/// PEM file): a few milliseconds, once per session, at its first `https`
/// connection.
///
/// Threading: built and used on the loop thread; OpenSSL allows sharing a
/// finished context between threads, but a session never does.
internal final class TLSContext {
    /// `SSL_CTX *`, owned.
    internal let pointer: OpaquePointer
    /// Whether connections check the server's certificate and host name.
    internal let verifiesCertificates: Bool

    /// ALPN's wire format: one length-prefixed protocol name.
    private static let alpn: [UInt8] = [8] + Array("http/1.1".utf8)

    /// Builds the context, or fails with `.secureConnectionFailed` and
    /// OpenSSL's reason (a CA file that does not exist or holds no
    /// certificate).
    internal init(configuration: UVURLSession.TLSConfiguration) throws(UVURLError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw UVURLError(.secureConnectionFailed,
                             detail: "cannot create the TLS context: \(TLSFailure.queuedReason() ?? "out of memory")")
        }
        pointer = context
        verifiesCertificates = configuration.certificateVerification == .full

        let minimum = configuration.minimumVersion == .v1_3 ? TLS1_3_VERSION : TLS1_2_VERSION
        guard copenssl_ctx_set_min_proto_version(context, minimum) == 1 else {
            throw Self.setupFailure("cannot set the minimum TLS version")
        }
        copenssl_ctx_refuse_renegotiation(context)
        // SSL_CTX_set_alpn_protos returns 0 on success.
        let alpnStatus = Self.alpn.withUnsafeBufferPointer {
            SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count))
        }
        guard alpnStatus == 0 else { throw Self.setupFailure("cannot set ALPN") }

        switch configuration.certificateVerification {
        case .full:
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            switch configuration.trustRoots {
            case .system:
                guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                    throw Self.setupFailure("cannot load the system's trusted certificates")
                }
            case .pemFile(let path):
                guard SSL_CTX_load_verify_file(context, path) == 1 else {
                    throw Self.setupFailure("cannot load the CA bundle \"\(path)\"")
                }
            }
        case .disabledInsecure:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    private static func setupFailure(_ what: String) -> UVURLError {
        let reason = TLSFailure.queuedReason() ?? "no reason given"
        return UVURLError(.secureConnectionFailed, detail: "\(what): \(reason)", underlyingErrorName: "SSL_ERROR_SSL")
    }
}
