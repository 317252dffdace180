#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

/// A data task's collected body as the engine hands it over: `malloc`ed
/// bytes owned by exactly one receiver, which either keeps them (the
/// public API's `Data(bytesNoCopy:count:deallocator: .free)`, the C API's
/// ``HTTPBody``) or frees them. A plain pointer rather than a class: the
/// body then costs no allocation beyond its bytes and what the receiver
/// wraps them in (issue 32's malloc budget).
///
/// Threading: a value handed from the loop thread to one receiver.
@usableFromInline
package struct ResponseBody {
    /// The bytes (nil when empty).
    @usableFromInline package let pointer: UnsafeMutableRawPointer?
    /// How many.
    @usableFromInline package let count: Int

    @usableFromInline
    package init(pointer: UnsafeMutableRawPointer?, count: Int) {
        self.pointer = pointer
        self.count = count
    }

    /// Frees the bytes: for a receiver that does not keep them.
    @inlinable
    package func free() {
        #if canImport(Glibc)
        Glibc.free(pointer)
        #elseif canImport(Musl)
        Musl.free(pointer)
        #elseif canImport(Darwin)
        Darwin.free(pointer)
        #endif
    }
}

/// A body type a data task can deliver: made from the engine's owned
/// bytes, taking them over (`Data` at the Foundation edge, ``HTTPBody``
/// for the C API).
@usableFromInline
package protocol HTTPResponseBodyConvertible {
    /// Takes ownership of `body`'s bytes (freeing them if not kept).
    static func taking(_ body: ResponseBody) -> Self
}

/// A streamed part type a streaming task can deliver, copied out of the
/// engine's borrowed bytes (`UVURLSession.ResponsePart` at the edge).
@usableFromInline
package protocol HTTPStreamedPartConvertible {
    /// Copies `part` (whose bytes are valid only during the call).
    static func copying(_ part: StreamedPart) -> Self
}

/// A collected body as a reference: the bytes the engine collected,
/// freed when the last reference goes. What the C API's fetches deliver
/// (a shared fetch hands one body to every subscriber).
///
/// Threading: immutable; any thread.
package final class HTTPBody: HTTPResponseBodyConvertible, @unchecked Sendable {
    // @unchecked Sendable: the bytes are never written after init.
    /// The bytes (nil when empty); valid while the body lives.
    package let pointer: UnsafeMutableRawPointer?
    /// How many.
    package let count: Int

    private init(_ body: ResponseBody) {
        pointer = body.pointer
        count = body.count
    }

    /// Takes ownership of `body`.
    package static func taking(_ body: ResponseBody) -> HTTPBody {
        HTTPBody(body)
    }

    deinit {
        ResponseBody(pointer: pointer, count: count).free()
    }
}
