@_exported import UVCombineCore
@_exported import UVCombineLoop
@_exported import UVCombineHTTP
