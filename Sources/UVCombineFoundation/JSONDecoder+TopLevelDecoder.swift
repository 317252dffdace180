import Foundation
import UVCombineCore

// Combine declares these conformances beside the protocol; here they live
// in the Foundation side so that UVCombineCore names no Foundation type.

extension JSONDecoder: TopLevelDecoder {
    /// `JSONDecoder` decodes from `Data`.
    public typealias Input = Data
}

extension PropertyListDecoder: TopLevelDecoder {
    /// `PropertyListDecoder` decodes from `Data`.
    public typealias Input = Data
}
