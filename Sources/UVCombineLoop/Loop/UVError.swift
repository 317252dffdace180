import CLibUV

/// An error reported by libuv, carrying its code, its name and its message.
///
/// The description reads like libuv's own: `UV_EBUSY: resource busy or
/// locked`. Compare with the named constants or with ``code``.
///
/// Threading: a value type; use it anywhere.
///
/// ```swift
/// do {
///     let loop = try UVLoop()
///     try loop.close()
/// } catch {
///     print(error) // e.g. "UV_EBUSY: resource busy or locked"
/// }
/// ```
public struct UVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The negative libuv error code (`UV_EBUSY` is `-16` on Linux).
    public let code: Int32

    /// Wraps a libuv error code.
    ///
    /// ```swift
    /// let error = UVError(code: UV_EINVAL.rawValue)
    /// print(error.name) // Prints: "EINVAL"
    /// ```
    public init(code: Int32) {
        self.code = code
    }

    /// The error's name as `uv_err_name` gives it, e.g. `EBUSY`.
    public var name: String { String(cString: uv_err_name(code)) }

    /// The error's message as `uv_strerror` gives it, e.g. `resource busy or locked`.
    public var message: String { String(cString: uv_strerror(code)) }

    /// `UV_<name>: <message>`, e.g. `UV_EBUSY: resource busy or locked`.
    public var description: String { "UV_\(name): \(message)" }

    /// The corresponding libuv error is `UV_EBUSY`: a loop still has open
    /// handles or requests.
    public static let busy = UVError(code: UV_EBUSY.rawValue)

    /// The corresponding libuv error is `UV_EINVAL`.
    public static let invalidArgument = UVError(code: UV_EINVAL.rawValue)

    /// The corresponding libuv error is `UV_ENOMEM`.
    public static let outOfMemory = UVError(code: UV_ENOMEM.rawValue)

    /// Returns normally for a status `>= 0`, throws the error otherwise: the
    /// one choke point every libuv status goes through.
    @inlinable
    internal static func check(_ status: Int32) throws(UVError) {
        if status < 0 { throw UVError(code: status) }
    }
}
