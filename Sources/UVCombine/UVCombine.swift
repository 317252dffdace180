@_exported import UVCombineCore
@_exported import UVCombineLoop
