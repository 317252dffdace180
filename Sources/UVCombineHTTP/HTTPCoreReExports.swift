// The protocol core's public-API types, re-exported one by one, so that
// `import UVCombineHTTP` (and `import UVCombine`) shows them as before the
// core became its own target, and nothing else of the core: the parser,
// the writer and the state machines stay behind `import UVCombineHTTPCore`
// (docs/http-protocol-core.md, "Who can see it").
@_exported import struct UVCombineHTTPCore.UVURLError
@_exported import struct UVCombineHTTPCore.RedirectPolicy
@_exported import struct UVCombineHTTPCore.RequestTimeouts
@_exported import struct UVCombineHTTPCore.HTTPProxy
@_exported import enum UVCombineHTTPCore.HTTPVersionPreference
