import CLibUV
import Synchronization

/// The status codes the C API returns: libuv's, with the meaning
/// uvcombine.h gives each.
internal enum Status {
    /// Success.
    internal static var ok: Int32 { 0 }
    /// A NULL pointer or callback, an argument out of range, or a call that
    /// does not apply to this kind of loop.
    internal static var invalid: Int32 { UV_EINVAL.rawValue }
    /// The loop was detached or closed: nothing new starts.
    internal static var cancelled: Int32 { UV_ECANCELED.rawValue }
    /// Done before: a second cancel, detach or close.
    internal static var already: Int32 { UV_EALREADY.rawValue }
    /// Not now: the loop is running, or still has handles.
    internal static var busy: Int32 { UV_EBUSY.rawValue }
    /// Not on this thread.
    internal static var wrongThread: Int32 { UV_EPERM.rawValue }
}

/// The objects behind the C API's opaque pointers. A pointer the C side
/// holds is one retained reference (`passRetained`, released by the
/// matching `uvc_*_free`); pointers passed to callbacks are unretained.
internal protocol OpaqueObject: AnyObject {}

extension OpaqueObject {
    /// A new reference for the C side, to be released by its `uvc_*_free`.
    internal var retainedPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// The object's address, for callbacks: the same pointer the C side got.
    internal var pointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    /// The object behind a pointer made by ``retainedPointer``.
    internal static func from(_ pointer: OpaquePointer) -> Self {
        Unmanaged<Self>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Releases the C side's reference.
    internal static func release(_ pointer: OpaquePointer) {
        Unmanaged<Self>.fromOpaque(UnsafeRawPointer(pointer)).release()
    }
}
