// The cookie store and the authentication types a session's
// configuration names, re-exported one by one so that `import
// UVCombineHTTPClient` (and `import UVCombine`) can set them
// (docs/cookies.md, docs/authentication.md); the rest of those modules
// stays behind their own imports.
@_exported import class UVCombineHTTPCookies.UVHTTPCookieStorage
@_exported import struct UVCombineHTTPCookies.UVHTTPCookie
@_exported import struct UVCombineHTTPCookies.CookieStore
@_exported import struct UVCombineHTTPCookies.CookieRequestURL
@_exported import enum UVCombineHTTPCookies.NetscapeCookieJar
