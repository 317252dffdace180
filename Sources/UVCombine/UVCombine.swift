// The umbrella: `import UVCombine` gives every module of the library, by
// weight: the core (standard library and Synchronization only), Combine's
// Dispatch and Foundation sides, the libuv loop, the loop's API in
// FoundationEssentials' types, HTTP and WebSocket. Code that must stay light imports
// the modules it needs instead (the C library links Core, Loop,
// LoopFoundation and HTTP: no Foundation, no Dispatch scheduler).
@_exported import UVCombineCore
@_exported import UVCombineDispatch
@_exported import UVCombineFoundation
@_exported import UVCombineLoop
@_exported import UVCombineLoopFoundation
@_exported import UVCombineHTTP
@_exported import UVCombineWebSocket
