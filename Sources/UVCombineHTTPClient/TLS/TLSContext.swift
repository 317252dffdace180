internal import CUVCombineLazyLibraries

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import UVCombineHTTPCore

/// A session's OpenSSL client context (`SSL_CTX`), built once from its
/// ``UVURLSession/TLSConfiguration`` and shared by all its `https`
/// connections: protocol versions, ALPN, renegotiation refused, and the
/// trusted certificates loaded from disk.
///
/// It is built on the loop thread at the session's first `https`
/// connection. With the system's trust roots that costs well under a
/// millisecond: certificates are read from the hashed directory only when
/// a chain needs them. A configured PEM file is read whole.
///
/// Threading: built and used on the loop thread; OpenSSL allows sharing a
/// finished context between threads, but a session never does.
package final class TLSContext {
    /// `SSL_CTX *`, owned.
    package let pointer: OpaquePointer
    /// Whether connections check the server's certificate and host name.
    package let verifiesCertificates: Bool

    /// ALPN's wire format: one length-prefixed protocol name.
    private static let alpn: [UInt8] = [8] + Array("http/1.1".utf8)

    /// OpenSSL's functions (``OpenSSLLibrary``), for the connections too.
    let openSSL: cuvc_openssl_functions

    /// Builds the context, loading OpenSSL if this is the process's first,
    /// or fails with `.secureConnectionFailed` and OpenSSL's reason (a CA
    /// file that does not exist or holds no certificate), or the loader's
    /// (OpenSSL missing: ``OpenSSLLibrary/load()``).
    package convenience init(configuration: UVURLSession.TLSConfiguration) throws(UVURLError) {
        try self.init(configuration, openSSL: OpenSSLLibrary.load())
    }

    /// Builds the context on OpenSSL loaded from the libraries named (as
    /// ``OpenSSLLibrary/check(libssl:libcrypto:)`` loads them): for tests
    /// of a missing or wrong library.
    package convenience init(configuration: UVURLSession.TLSConfiguration, libssl: String,
                             libcrypto: String) throws(UVURLError) {
        try self.init(configuration, openSSL: OpenSSLLibrary.load(libssl: libssl, libcrypto: libcrypto))
    }

    private init(_ configuration: UVURLSession.TLSConfiguration, openSSL: cuvc_openssl_functions) throws(UVURLError) {
        self.openSSL = openSSL
        openSSL.ERR_clear_error()
        guard let context = openSSL.SSL_CTX_new(openSSL.TLS_client_method()) else {
            throw UVURLError(.secureConnectionFailed,
                             detail: "cannot create the TLS context: \(TLSFailure.queuedReason(openSSL) ?? "out of memory")")
        }
        pointer = context
        verifiesCertificates = configuration.certificateVerification == .full

        let minimum = configuration.minimumVersion == .v1_3 ? TLS1_3_VERSION : TLS1_2_VERSION
        guard cuvc_ssl_ctx_set_min_proto_version(openSSL.SSL_CTX_ctrl, context, minimum) == 1 else {
            throw Self.setupFailure(openSSL, "cannot set the minimum TLS version")
        }
        _ = openSSL.SSL_CTX_set_options(context, cuvc_ssl_op_no_renegotiation)
        // SSL_CTX_set_alpn_protos returns 0 on success.
        let alpnStatus = Self.alpn.withUnsafeBufferPointer {
            openSSL.SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count))
        }
        guard alpnStatus == 0 else { throw Self.setupFailure(openSSL, "cannot set ALPN") }

        switch configuration.certificateVerification {
        case .full:
            openSSL.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            switch configuration.trustRoots {
            case .system:
                try Self.useSystemTrustRoots(context, openSSL)
            case .pemFile(let path):
                guard openSSL.SSL_CTX_load_verify_file(context, path) == 1 else {
                    throw Self.setupFailure(openSSL, "cannot load the CA bundle \"\(path)\"")
                }
            }
        case .disabledInsecure:
            openSSL.SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
    }

    deinit {
        openSSL.SSL_CTX_free(pointer)
    }

    /// OpenSSL's default places, looked up lazily: the hashed directory
    /// (`/usr/lib/ssl/certs`, which is `/etc/ssl/certs` on Debian, or
    /// `SSL_CERT_DIR`), from which verification reads only the few
    /// certificates a chain needs (and keeps them); plus the bundle in
    /// `SSL_CERT_FILE` when that is set. Only without the directory is the
    /// default bundle (`/usr/lib/ssl/cert.pem`) loaded whole:
    /// `SSL_CTX_set_default_verify_paths` always parses that whole bundle,
    /// 40-60 ms of the loop thread on this machine.
    private static func useSystemTrustRoots(_ context: OpaquePointer, _ openSSL: cuvc_openssl_functions) throws(UVURLError) {
        var usedFile = false
        if let file = getenv(openSSL.X509_get_default_cert_file_env()!) {
            guard openSSL.SSL_CTX_load_verify_file(context, file) == 1 else {
                throw setupFailure(openSSL, "cannot load the CA bundle \"\(String(cString: file))\" (SSL_CERT_FILE)")
            }
            usedFile = true
        }
        if let directories = getenv(openSSL.X509_get_default_cert_dir_env()!) {
            guard openSSL.SSL_CTX_load_verify_dir(context, directories) == 1 else {
                throw setupFailure(openSSL, "cannot use the CA directories \"\(String(cString: directories))\" (SSL_CERT_DIR)")
            }
            return
        }
        let directory = openSSL.X509_get_default_cert_dir()!
        var status = stat()
        if stat(directory, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            guard openSSL.SSL_CTX_load_verify_dir(context, directory) == 1 else {
                throw setupFailure(openSSL, "cannot use the CA directory \"\(String(cString: directory))\"")
            }
        } else if !usedFile {
            let file = openSSL.X509_get_default_cert_file()!
            guard openSSL.SSL_CTX_load_verify_file(context, file) == 1 else {
                throw setupFailure(openSSL, "cannot load the system's trusted certificates \"\(String(cString: file))\"")
            }
        }
    }

    private static func setupFailure(_ openSSL: cuvc_openssl_functions, _ what: String) -> UVURLError {
        let reason = TLSFailure.queuedReason(openSSL) ?? "no reason given"
        return UVURLError(.secureConnectionFailed, detail: "\(what): \(reason)", underlyingErrorName: "SSL_ERROR_SSL")
    }
}
