import UVCombineHTTPCore

internal import CUVCombineLazyLibraries

/// OpenSSL's failures as ``UVURLError``s, each with OpenSSL's own reason
/// text in `detail`:
///
/// | failure | code | `underlyingErrorName` |
/// | --- | --- | --- |
/// | expired certificate | `.serverCertificateHasBadDate` | `X509_V_ERR_CERT_HAS_EXPIRED` |
/// | certificate not valid yet | `.serverCertificateNotYetValid` | `X509_V_ERR_CERT_NOT_YET_VALID` |
/// | no trusted root (unknown CA, self-signed) | `.serverCertificateHasUnknownRoot` | `X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY`, ... |
/// | certificate for another host | `.serverCertificateHostnameMismatch` | `X509_V_ERR_HOSTNAME_MISMATCH`, `X509_V_ERR_IP_ADDRESS_MISMATCH` |
/// | any other verification failure | `.serverCertificateUntrusted` | `X509_V_ERR_…` |
/// | handshake failure (alert, version, not TLS) | `.secureConnectionFailed` | `SSL_ERROR_SSL` |
/// | failure after the handshake | `.tlsProtocolError` | `SSL_ERROR_SSL` |
///
/// Verification errors carry `X509_verify_cert_error_string`'s text
/// (`"certificate has expired"`); the others the first entry of OpenSSL's
/// error queue as `ERR_error_string_n` writes it
/// (`"error:0A00010B:SSL routines::wrong version number"`).
///
/// Each takes the table of OpenSSL's functions the failed call came from
/// (``OpenSSLLibrary``).
///
/// Threading: OpenSSL's error queue is per thread; call these on the
/// thread whose call failed, right after it (the loop thread).
package enum TLSFailure {
    /// The handshake failed: the certificate's verification result when
    /// verification ran and failed, otherwise OpenSSL's reason as
    /// `.secureConnectionFailed`.
    static func handshake(_ ssl: OpaquePointer, status: Int32, verifiesCertificates: Bool,
                          _ openSSL: cuvc_openssl_functions) -> UVURLError {
        if verifiesCertificates {
            let result = openSSL.SSL_get_verify_result(ssl)
            if result != X509_V_OK {
                openSSL.ERR_clear_error()
                return certificate(Int32(truncatingIfNeeded: result), openSSL)
            }
        }
        return library(.secureConnectionFailed, ssl: ssl, status: status, openSSL)
    }

    /// A failed `SSL_read`/`SSL_write` after the handshake.
    static func records(_ ssl: OpaquePointer, status: Int32, _ openSSL: cuvc_openssl_functions) -> UVURLError {
        library(.tlsProtocolError, ssl: ssl, status: status, openSSL)
    }

    /// A verification result (`X509_V_ERR_…`) as its code.
    static func certificate(_ result: Int32, _ openSSL: cuvc_openssl_functions) -> UVURLError {
        let code: UVURLError.Code
        switch result {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
            code = .serverCertificateHasBadDate
        case X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD:
            code = .serverCertificateNotYetValid
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            code = .serverCertificateHasUnknownRoot
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            code = .serverCertificateHostnameMismatch
        default:
            code = .serverCertificateUntrusted
        }
        let text = openSSL.X509_verify_cert_error_string(Int(result)).map { String(cString: $0) } ?? "verification error \(result)"
        return UVURLError(code, detail: text, underlyingErrorName: verificationName(result))
    }

    /// `code` with the reason `SSL_get_error` and the error queue give.
    private static func library(_ code: UVURLError.Code, ssl: OpaquePointer, status: Int32,
                                _ openSSL: cuvc_openssl_functions) -> UVURLError {
        let kind = openSSL.SSL_get_error(ssl, status)
        let reason = queuedReason(openSSL) ?? fallbackReason(kind)
        return UVURLError(code, detail: reason, underlyingErrorName: errorName(kind))
    }

    /// The oldest entry of the thread's error queue in
    /// `ERR_error_string_n`'s words, or nil when the queue is empty. Clears
    /// the queue.
    static func queuedReason(_ openSSL: cuvc_openssl_functions) -> String? {
        let error = openSSL.ERR_get_error()
        defer { openSSL.ERR_clear_error() }
        guard error != 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            openSSL.ERR_error_string_n(error, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }

    private static func fallbackReason(_ kind: Int32) -> String {
        switch kind {
        case SSL_ERROR_SYSCALL: "unexpected end of the TLS stream"
        case SSL_ERROR_ZERO_RETURN: "the server closed the TLS session"
        default: "SSL_get_error \(kind)"
        }
    }

    /// `SSL_get_error`'s result by its C name.
    private static func errorName(_ kind: Int32) -> String {
        switch kind {
        case SSL_ERROR_SSL: "SSL_ERROR_SSL"
        case SSL_ERROR_SYSCALL: "SSL_ERROR_SYSCALL"
        case SSL_ERROR_ZERO_RETURN: "SSL_ERROR_ZERO_RETURN"
        case SSL_ERROR_WANT_READ: "SSL_ERROR_WANT_READ"
        case SSL_ERROR_WANT_WRITE: "SSL_ERROR_WANT_WRITE"
        default: "SSL_ERROR(\(kind))"
        }
    }

    /// A verification result by its C name (`X509_V_ERR_CERT_HAS_EXPIRED`);
    /// `X509_V_ERR(<n>)` for results without a name here.
    package static func verificationName(_ result: Int32) -> String {
        switch result {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT: "X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT"
        case X509_V_ERR_CERT_SIGNATURE_FAILURE: "X509_V_ERR_CERT_SIGNATURE_FAILURE"
        case X509_V_ERR_CERT_NOT_YET_VALID: "X509_V_ERR_CERT_NOT_YET_VALID"
        case X509_V_ERR_CERT_HAS_EXPIRED: "X509_V_ERR_CERT_HAS_EXPIRED"
        case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD: "X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD"
        case X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD: "X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD"
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT: "X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN: "X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY"
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE: "X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE"
        case X509_V_ERR_CERT_REVOKED: "X509_V_ERR_CERT_REVOKED"
        case X509_V_ERR_INVALID_CA: "X509_V_ERR_INVALID_CA"
        case X509_V_ERR_PATH_LENGTH_EXCEEDED: "X509_V_ERR_PATH_LENGTH_EXCEEDED"
        case X509_V_ERR_INVALID_PURPOSE: "X509_V_ERR_INVALID_PURPOSE"
        case X509_V_ERR_CERT_UNTRUSTED: "X509_V_ERR_CERT_UNTRUSTED"
        case X509_V_ERR_CERT_REJECTED: "X509_V_ERR_CERT_REJECTED"
        case X509_V_ERR_HOSTNAME_MISMATCH: "X509_V_ERR_HOSTNAME_MISMATCH"
        case X509_V_ERR_IP_ADDRESS_MISMATCH: "X509_V_ERR_IP_ADDRESS_MISMATCH"
        case X509_V_ERR_EE_KEY_TOO_SMALL: "X509_V_ERR_EE_KEY_TOO_SMALL"
        case X509_V_ERR_CA_KEY_TOO_SMALL: "X509_V_ERR_CA_KEY_TOO_SMALL"
        case X509_V_ERR_CA_MD_TOO_WEAK: "X509_V_ERR_CA_MD_TOO_WEAK"
        default: "X509_V_ERR(\(result))"
        }
    }
}
