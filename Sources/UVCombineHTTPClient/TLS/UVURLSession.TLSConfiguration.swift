import UVCombineHTTPCore

extension UVURLSession {
    /// How a session secures `https` connections: which certificate
    /// authorities it trusts, whether it verifies the server's certificate
    /// at all, and the oldest TLS version it accepts.
    ///
    /// The defaults are what a browser or `curl` does: the server's
    /// certificate chain must lead to a root in the system store
    /// (`/etc/ssl/certs` on Debian; OpenSSL's `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` environment variables override it), must be valid
    /// today, and must name the URL's host (a DNS name, or an IP address
    /// for a URL like `https://127.0.0.1/`). TLS 1.2 or 1.3; ALPN offers
    /// `http/1.1`; the host name is sent as SNI.
    ///
    /// | option | curl | default |
    /// | --- | --- | --- |
    /// | ``trustRoots`` `.pemFile(path)` | `--cacert path` | `.system` |
    /// | ``certificateVerification`` `.disabledInsecure` | `-k`, `--insecure` | `.full` |
    /// | ``minimumVersion`` | `--tlsv1.3` | `.v1_2` |
    ///
    /// ```swift
    /// var configuration = UVURLSession.Configuration()
    /// configuration.tls.trustRoots = .pemFile("/etc/myapp/internal-ca.pem")
    /// let session = UVURLSession(loop: loop, configuration: configuration)
    /// ```
    ///
    /// The session builds its OpenSSL context from these settings at its
    /// first `https` connection (loading the trusted certificates from
    /// disk once) and shares it between its connections. A CA file that
    /// cannot be loaded fails each `https` task with
    /// `.secureConnectionFailed` and OpenSSL's reason.
    ///
    /// Threading: a value type; `Sendable`.
    public struct TLSConfiguration: Sendable, Equatable, CustomStringConvertible {
        /// The certificate authorities a server's chain must lead to.
        ///
        /// ```swift
        /// configuration.tls.trustRoots = .pemFile("ca.pem") // like curl --cacert ca.pem
        /// ```
        public enum TrustRoots: Sendable, Equatable, CustomStringConvertible {
            /// The system's store: OpenSSL's default paths
            /// (`SSL_CTX_set_default_verify_paths`), which on Debian are
            /// `/etc/ssl/certs` and its bundle `ca-certificates.crt`.
            case system
            /// Only the certificates in this PEM file (one or more
            /// concatenated `BEGIN CERTIFICATE` blocks), instead of the
            /// system store, as `curl --cacert` does: for a private CA, or
            /// a test CA made at test time.
            case pemFile(String)

            /// `system`, or `pemFile(<path>)`.
            public var description: String {
                switch self {
                case .system: "system"
                case .pemFile(let path): "pemFile(\(path))"
                }
            }
        }

        /// Whether the server's certificate is checked.
        ///
        /// ```swift
        /// configuration.tls.certificateVerification = .disabledInsecure // tests only
        /// ```
        public enum CertificateVerification: Sendable, Equatable, CustomStringConvertible {
            /// The chain must lead to one of ``TLSConfiguration/trustRoots``,
            /// every certificate must be within its validity dates, and the
            /// leaf must name the URL's host. The default.
            case full
            /// **Insecure: for tests and debugging only.** No check at all:
            /// any certificate is accepted (self-signed, expired, another
            /// host's), so anyone on the path can read and change the
            /// traffic. What `curl -k` does. The connection is still
            /// encrypted, SNI and ALPN are still sent.
            case disabledInsecure

            /// `full` or `disabledInsecure`.
            public var description: String {
                switch self {
                case .full: "full"
                case .disabledInsecure: "disabledInsecure"
                }
            }
        }

        /// A TLS protocol version.
        ///
        /// ```swift
        /// var configuration = UVURLSession.Configuration()
        /// configuration.tls.minimumVersion = .v1_3 // refuse TLS 1.2 servers
        /// ```
        public enum Version: Sendable, Equatable, Comparable, CustomStringConvertible {
            /// TLS 1.2 (RFC 5246).
            case v1_2
            /// TLS 1.3 (RFC 8446).
            case v1_3

            /// `TLS 1.2` or `TLS 1.3`.
            public var description: String {
                switch self {
                case .v1_2: "TLS 1.2"
                case .v1_3: "TLS 1.3"
                }
            }
        }

        /// The certificate authorities trusted. Default: ``TrustRoots/system``.
        public var trustRoots: TrustRoots = .system
        /// Whether server certificates are verified. Default:
        /// ``CertificateVerification/full``. Never ship
        /// ``CertificateVerification/disabledInsecure``.
        public var certificateVerification: CertificateVerification = .full
        /// The oldest protocol version accepted; a server that offers only
        /// older ones fails with `.secureConnectionFailed`. Default
        /// ``Version/v1_2`` (1.0 and 1.1 are never used).
        public var minimumVersion: Version = .v1_2

        /// The defaults: system trust roots, full verification, TLS 1.2 or
        /// later.
        public init() {}

        /// `TLS(trustRoots: system, verification: full, minimum: TLS 1.2)`.
        public var description: String {
            "TLS(trustRoots: \(trustRoots), verification: \(certificateVerification), minimum: \(minimumVersion))"
        }
    }
}
