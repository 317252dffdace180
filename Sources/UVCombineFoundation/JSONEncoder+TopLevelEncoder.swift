import Foundation
import UVCombineCore

// Combine declares these conformances beside the protocol; here they live
// in the Foundation side so that UVCombineCore names no Foundation type.

extension JSONEncoder: TopLevelEncoder {
    /// `JSONEncoder` encodes to `Data`.
    public typealias Output = Data
}

extension PropertyListEncoder: TopLevelEncoder {
    /// `PropertyListEncoder` encodes to `Data`.
    public typealias Output = Data
}
