import HTTPTypes
import UVCombineHTTPCore

// What an HTTP/1.1 exchange and an HTTP/2 stream do alike when a response
// is delivered: the decoder for its Content-Encoding, and the offer of a
// part held while the subscriber had no demand. One place, so the two
// protocols cannot drift (duplicates, 2026-11-29).
extension SessionEngine {
    /// Gives `task` a decoder for `coding`: the engine's spare one when it
    /// has it (a decoder's zlib state is reused from task to task), else
    /// a new one. Loop thread.
    package func installDecoder(_ coding: ContentDecoder.Coding, on task: SessionTask) {
        if let decoder = spareDecoder {
            spareDecoder = nil
            decoder.reset(coding: coding)
            task.decoder = decoder
        } else {
            task.decoder = ContentDecoder(coding: coding)
        }
    }

    /// Offers `part`, held while the subscriber had no demand, to it
    /// again (on `resume`). Loop thread.
    package func offerHeldPart(_ part: HTTPResponsePart, to task: SessionTask) -> PartOffer {
        switch part {
        case .head(let response): task.offerPart(task, .head(response))
        case .body(let bytes): bytes.withUnsafeBytes { task.offerPart(task, .body($0)) }
        }
    }
}
