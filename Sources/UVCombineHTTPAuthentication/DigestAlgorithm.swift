internal import CUVCombineLazyLibraries

/// The hash of a Digest challenge (RFC 7616 section 3.3): MD5, SHA-256
/// or SHA-512/256, each plain or `-sess`. Hashes come from OpenSSL's
/// libcrypto (`EVP_Digest`), in lowercase hexadecimal as Digest uses them.
/// libcrypto is loaded at the first hash, not when the process starts
/// (issue 30: the C library NEEDs no OpenSSL); ``isAvailable`` says whether
/// it could be.
///
/// Threading: a value type; `Sendable`; hashing is reentrant.
///
/// ```swift
/// print(DigestAlgorithm(name: "sha-256-SESS")!.name) // Prints: "SHA-256-sess"
/// print(DigestAlgorithm.md5.hash("abc"))            // Prints: "900150983cd24fb0d6963f7d28e17f72"
/// ```
public enum DigestAlgorithm: Sendable, Hashable, CaseIterable {
    /// `MD5`, the default when a challenge names none (RFC 2617's only one).
    case md5
    /// `MD5-sess`.
    case md5Session
    /// `SHA-256`.
    case sha256
    /// `SHA-256-sess`.
    case sha256Session
    /// `SHA-512-256`.
    case sha512_256
    /// `SHA-512-256-sess`.
    case sha512_256Session

    /// The algorithm a challenge's `algorithm` value names, ignoring ASCII
    /// case; `nil` for any other.
    public init?(name: some StringProtocol) {
        guard let found = Self.allCases.first(where: { AuthenticationASCII.lowercased($0.name) == AuthenticationASCII.lowercased(name) }) else {
            return nil
        }
        self = found
    }

    /// The name as RFC 7616 spells it, sent in the `algorithm` parameter.
    public var name: String {
        switch self {
        case .md5: "MD5"
        case .md5Session: "MD5-sess"
        case .sha256: "SHA-256"
        case .sha256Session: "SHA-256-sess"
        case .sha512_256: "SHA-512-256"
        case .sha512_256Session: "SHA-512-256-sess"
        }
    }

    /// Whether A1 is the `-sess` form (hashed with nonce and cnonce).
    public var isSession: Bool {
        self == .md5Session || self == .sha256Session || self == .sha512_256Session
    }

    /// Whether the digests can be computed: OpenSSL's libcrypto.so.3 (with
    /// libssl.so.3, loaded together with it, as TLS uses them) could be
    /// loaded. Loads them at the first call. When false the session does
    /// not answer a Digest challenge (Basic, when allowed, or the 401
    /// reaches the caller).
    ///
    /// ```swift
    /// if DigestAlgorithm.isAvailable { print(DigestAlgorithm.sha256.hash("abc")) }
    /// ```
    ///
    /// Threading: any thread.
    public static var isAvailable: Bool {
        var reason: UnsafePointer<CChar>?
        return cuvc_openssl_load(&reason) != nil
    }

    /// The hash of `text`'s UTF-8 bytes in lowercase hexadecimal.
    public func hash(_ text: String) -> String {
        hash(bytes: Array(text.utf8))
    }

    /// The hash of `bytes` in lowercase hexadecimal.
    ///
    /// - Precondition: ``isAvailable`` (the session answers Digest only
    ///   then).
    public func hash(bytes: [UInt8]) -> String {
        var reason: UnsafePointer<CChar>?
        guard let openSSL = cuvc_openssl_load(&reason)?.pointee else {
            preconditionFailure("Digest needs OpenSSL's libcrypto: \(reason.map { String(cString: $0) } ?? "not loaded")")
        }
        let type: OpaquePointer?
        switch self {
        case .md5, .md5Session: type = openSSL.EVP_md5()
        case .sha256, .sha256Session: type = openSSL.EVP_sha256()
        case .sha512_256, .sha512_256Session: type = openSSL.EVP_sha512_256()
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var size: UInt32 = 0
        let status = bytes.withUnsafeBytes { raw in
            openSSL.EVP_Digest(raw.baseAddress, raw.count, &digest, &size, type, nil)
        }
        // Why a trap: these three digests are in every OpenSSL 3 default
        // provider; failing means a broken libcrypto, not bad input.
        precondition(status == 1, "EVP_Digest failed for \(name): OpenSSL's default provider lacks it")
        return AuthenticationASCII.hex(digest.prefix(Int(size)))
    }
}
