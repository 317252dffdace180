#!/usr/bin/env python3
"""Writes the committed seed corpus, Fuzz/Corpus/<target>/<name>.

Each target reads its input in its own layout (the comment at the top of
Fuzz/Sources/<Target>/<Target>.swift); the helpers below build inputs in
those layouts. Run from anywhere: `python3 Fuzz/Scripts/make_seeds.py`.
"""
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def b(text):
    return text.encode("latin-1")


# ResponseParserFuzzer: flags, 5 limit bytes, 2 seed bytes, then the stream.
def response(flags=0, limits=(0, 0, 0, 0, 0), seed=(7, 1)):
    return bytes([flags, *limits, *seed])


HEAD, CLOSES, TWO, THREE, KEEP_OPEN, TIGHT = 1, 2, 4, 8, 16, 32
responses = {
    "content-length": (0, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"),
    "chunked": (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n"),
    "close-delimited": (0, "HTTP/1.1 200 OK\r\nServer: s\r\n\r\nuntil the end"),
    "http10-keep-alive": (TWO, "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nokHTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
    "head": (HEAD, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
    "no-content": (0, "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n"),
    "not-modified": (0, "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n"),
    "interim": (0, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx"),
    "keep-alive-three": (TWO | THREE, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nc"),
    "connection-close": (CLOSES, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
    "obs-text-and-list": (0, "HTTP/1.1 200 \xe9t\xe9\r\nX-Value: caf\xe9\tx\r\nContent-Length: 3, 3\r\nVary: a,  b ,c\r\n\r\nabc"),
    "no-reason": (0, "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"),
    "keep-open-truncated": (KEEP_OPEN, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
    "many-fields": (0, "HTTP/1.1 200 OK\r\n" + "".join("X-F%d: v%d\r\n" % (i, i) for i in range(20)) + "Content-Length: 0\r\n\r\n"),
    "bad-folding": (0, "HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\n\r\n"),
    "bad-conflict": (0, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
    "bad-te-and-cl": (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"),
    "bad-bare-lf": (0, "HTTP/1.1 200 OK\nContent-Length: 0\n\n"),
    "bad-101": (0, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n"),
    "gzip-chunked": (0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
}
for name, (flags, text) in responses.items():
    write("ResponseParserFuzzer", name, response(flags) + b(text))
write("ResponseParserFuzzer", "tight-limits",
      response(TIGHT, (40, 3, 30, 4, 8)) + b("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n5\r\nefghi\r\n0\r\n\r\n"))
write("ResponseParserFuzzer", "tight-close-delimited",
      response(TIGHT, (200, 8, 60, 8, 5)) + b("HTTP/1.1 200 OK\r\n\r\n0123456789"))

# ChunkedDecoderFuzzer: flags, 4 limit bytes, 2 seed bytes, then the body.
def chunked(flags=0, limits=(0, 0, 0, 0), seed=(3, 9)):
    return bytes([flags, *limits, *seed])


bodies = {
    "simple": "5\r\nhello\r\n0\r\n\r\n",
    "two-chunks-upper": "A\r\n0123456789\r\n1b\r\n" + "x" * 27 + "\r\n0\r\n\r\n",
    "extensions": "3;name=value;flag\r\nabc\r\n3 ;q=\"a b\"\r\ndef\r\n000;last\r\n\r\n",
    "trailers": "1\r\nz\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n",
    "empty": "0\r\n\r\n",
    "leading-zeros": "0005\r\nhello\r\n0\r\n\r\n",
    "truncated-data": "10\r\nshort",
    "bad-no-crlf-after-data": "2\r\nabXY0\r\n\r\n",
    "bad-size": "g\r\nx\r\n0\r\n\r\n",
    "bad-space-before-crlf": "5 \r\nhello\r\n0\r\n\r\n",
    "bad-overflow": "ffffffffffffffffff\r\n",
    "bad-trailer-fold": "0\r\nA: b\r\n c\r\n\r\n",
    "trailing-bytes": "0\r\n\r\nextra",
}
for name, text in bodies.items():
    write("ChunkedDecoderFuzzer", name, chunked() + b(text))
write("ChunkedDecoderFuzzer", "tight-limits", chunked(1, (10, 1, 6, 12)) + b("4;a\r\nabcd\r\n8\r\nefghijkl\r\n0\r\nA: 1\r\nB: 2\r\n\r\n"))

# RequestValidationFuzzer: six length-prefixed strings: URL, field name,
# field value, method, request target, authority.
def validation(url, name, value, method, target, authority):
    out = b""
    for part in (url, name, value, method, target, authority):
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        out += bytes([len(data)]) + data
    return out


validations = {
    "plain": ("http://example.com/a/b?q=1#frag", "X-Trace", "abc", "GET", "/a?b", "example.com"),
    "ipv6-port": ("http://[::1]:8080/search?q=uv", "Accept", "*/*", "OPTIONS", "*", "[::1]:8080"),
    "ipv6-zone": ("http://[fe80::1%25eth0]/", "a", "", "POST", "/", "[fe80::1]"),
    "https-upper": ("HTTPS://Example.COM:443/P%20a", "Content-Length", "0", "CONNECT", "*", "EXAMPLE.com:443"),
    "userinfo": ("http://user:pw@host/", "X", " lead", "GE T", "/a b", "h\r\nX: y"),
    "scheme": ("ftp://host/file", "Bad Name", "trail\t", "", "a", "user@host"),
    "crlf": ("http://host/a\r\nX-Injected: 1", "X-A\n", "a\r\nSet-Cookie: x", "G\x00T", "/#x", ""),
    "port": ("http://host:0/", "X", "\x7f", "DELETE", "/\x80", "h%"),
    "port-big": ("http://host:65536/", "X", "obs \xe9", "PATCH", "/ok", "a-b.c_d~e"),
    "idn": ("http://b\xfccher.example/", "X", "v", "GET", "/", "xn--bcher-kva.example"),
    "no-host": ("http:///path", "X", "v", "GET", "/", "[::1]"),
    "relative": ("/just/a/path", "X", "v", "GET", "/", "h"),
}
for name, parts in validations.items():
    write("RequestValidationFuzzer", name, validation(*parts))

# RequestWriterFuzzer: flags; method, path, authority (length-prefixed); body
# length; field count; per field: kind (0 Host, 1 Content-Length,
# 2 Transfer-Encoding, 3 Connection, else a name follows), value mode
# (odd: lenient), value.
PATH, LENIENT_PATH, AUTHORITY, LENIENT_AUTHORITY, CLOSE = 1, 2, 4, 8, 16


def lp(text):
    data = b(text)
    return bytes([len(data)]) + data


def writer(flags, method, path, authority, body, fields):
    out = bytes([flags]) + lp(method) + lp(path) + lp(authority) + bytes([body, len(fields)])
    for kind, name, lenient, value in fields:
        out += bytes([kind]) + (lp(name) if kind >= 4 else b"") + bytes([1 if lenient else 0]) + lp(value)
    return out


writers = {
    "get": (PATH | AUTHORITY, "GET", "/index.html?q=1", "example.com", 0, [(4, "Accept", 0, "*/*")]),
    "post-body": (PATH | AUTHORITY | CLOSE, "POST", "/submit", "h:8080", 5, [(1, "", 0, "5"), (3, "", 0, "keep-alive")]),
    "host-field": (PATH, "PUT", "/x", "", 0, [(0, "", 0, "example.com")]),
    "options-star": (PATH | AUTHORITY, "OPTIONS", "*", "[::1]:80", 0, []),
    "lenient-controls": (PATH | LENIENT_PATH | AUTHORITY | LENIENT_AUTHORITY, "GET", "/a\x01b", "h\x7f", 0, [(4, "X-A", 1, " v\x01 ")]),
    "connection-close": (PATH | AUTHORITY | CLOSE, "DELETE", "/r", "h", 0, [(3, "", 0, "Upgrade, close")]),
    "transfer-encoding": (PATH | AUTHORITY, "POST", "/", "h", 3, [(2, "", 0, "chunked")]),
    "content-length-mismatch": (PATH | AUTHORITY, "PATCH", "/", "h", 2, [(1, "", 0, "3")]),
    "connect": (PATH | AUTHORITY, "CONNECT", "/", "h:443", 0, []),
    "two-hosts": (PATH, "GET", "/", "", 0, [(0, "", 0, "a"), (0, "", 0, "b")]),
    "obs-text": (PATH | AUTHORITY, "GET", "/", "h", 0, [(4, "X-Name", 1, "caf\xe9"), (4, "x-lower", 0, "")]),
}
for name, parts in writers.items():
    write("RequestWriterFuzzer", name, writer(*parts))

if __name__ == "__main__":
    for target in sorted(os.listdir(ROOT)):
        print(target, len(os.listdir(os.path.join(ROOT, target))), "seeds")
