import HTTPTypes
import UVCombineHTTPCore

/// A streamed part as the engine offers it to a streaming task's
/// subscription: the head, or a run of body bytes *borrowed* for the
/// duration of the offer (the read or decode buffer). The subscription
/// copies what it keeps (the public API's `Data`, the C API's pointer and
/// length), so a part costs one copy, made only when there is demand.
///
/// Threading: the loop thread, during one offer.
@usableFromInline
package enum StreamedPart {
    /// The final response head.
    case head(HTTPResponse)
    /// Body bytes, valid until the offer returns; never empty.
    case body(UnsafeRawBufferPointer)

    /// The part as the exchange state machine holds it while the
    /// subscriber has no demand (the body's bytes copied).
    package var held: HTTPResponsePart {
        switch self {
        case .head(let response): .head(response)
        case .body(let bytes): .body(Array(bytes))
        }
    }
}
