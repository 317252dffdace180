// `UVURLSession`, its configuration and the rest of the session's API
// that needs no Foundation type live in UVCombineHTTPClient (the engine the
// C library links); `import UVCombineHTTP` shows them as before the split.
@_exported import UVCombineHTTPClient
