@_exported import UVCombineCore
