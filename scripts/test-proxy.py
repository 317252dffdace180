#!/usr/bin/env python3
"""A small HTTP proxy for the test suites (not for production use).

It forwards absolute-form requests (`GET http://host:port/path HTTP/1.1`)
to the origin in origin-form, keeping the client's connection alive as
long as the origin's framing allows, and opens tunnels for `CONNECT
host:port`. It listens on 127.0.0.1 on a random port and prints
"port N" once it does; the tests start it as a process and stop it by
PID.

Options:
  --auth USER:PASS     require `Proxy-Authorization: Basic ...` (407 with
                       `Proxy-Authenticate: Basic realm="test-proxy"` when
                       missing or wrong)
  --digest USER:PASS   require `Proxy-Authorization: Digest ...` (RFC 7616,
                       qop=auth, checked with the same arithmetic as the
                       client; the `uri` is `host:port` for CONNECT and the
                       path for a forwarded request, as curl sends); the
                       407 offers `Basic realm="test-proxy"`
                       and a Digest challenge with a fresh nonce, but only
                       Digest is accepted
  --digest-algorithm A MD5 (default) or SHA-256
  --stale-once         with --digest: the first correct answer gets a 407
                       with `stale=true` and a new nonce
  --refuse-connect     answer every CONNECT with 403 Forbidden
  --log FILE           append one line per request received from a client:
                       `<connection number> <method> <target> auth=<yes|no>`

Hop-by-hop fields meant for the proxy (`Proxy-Authorization`,
`Proxy-Connection`) are not forwarded, as real proxies do.
"""

import base64
import hashlib
import os
import re
import socket
import socketserver
import sys
import threading

AUTH = None
DIGEST = None
DIGEST_ALGORITHM = "MD5"
STALE_ONCE = [False]
NONCES = set()
REFUSE_CONNECT = False
LOG = None
LOG_LOCK = threading.Lock()
COUNTER = [0]


def log(line):
    if LOG is None:
        return
    with LOG_LOCK:
        with open(LOG, "a") as handle:
            handle.write(line + "\n")


class Reader:
    """Buffered reads from a socket."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def fill(self):
        data = self.sock.recv(65536)
        if not data:
            return False
        self.buffer += data
        return True

    def head(self):
        """The bytes up to and including the blank line, or None at EOF."""
        while b"\r\n\r\n" not in self.buffer:
            if not self.fill():
                return None
        end = self.buffer.index(b"\r\n\r\n") + 4
        head, self.buffer = self.buffer[:end], self.buffer[end:]
        return head

    def exactly(self, count):
        while len(self.buffer) < count:
            if not self.fill():
                raise EOFError
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def line(self):
        while b"\r\n" not in self.buffer:
            if not self.fill():
                raise EOFError
        end = self.buffer.index(b"\r\n") + 2
        data, self.buffer = self.buffer[:end], self.buffer[end:]
        return data

    def rest(self):
        """Everything until EOF, yielded as it comes."""
        if self.buffer:
            data, self.buffer = self.buffer, b""
            yield data
        while True:
            data = self.sock.recv(65536)
            if not data:
                return
            yield data


def parse_head(head):
    lines = head[:-4].split(b"\r\n")
    start = lines[0].decode("latin-1")
    fields = []
    for raw in lines[1:]:
        name, _, value = raw.partition(b":")
        fields.append((name.decode("latin-1").strip(), value.decode("latin-1").strip()))
    return start, fields


def field(fields, name):
    for key, value in fields:
        if key.lower() == name.lower():
            return value
    return None


def relay_body(reader, fields, out, close_delimited_ok):
    """Copies one message body from `reader` to `out` as framed by `fields`.
    Returns False when the body ended with the connection."""
    encoding = field(fields, "Transfer-Encoding")
    length = field(fields, "Content-Length")
    if encoding is not None and "chunked" in encoding.lower():
        while True:
            size_line = reader.line()
            out.sendall(size_line)
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                # Trailers, then the blank line.
                while True:
                    trailer = reader.line()
                    out.sendall(trailer)
                    if trailer == b"\r\n":
                        return True
            out.sendall(reader.exactly(size + 2))
    if length is not None:
        remaining = int(length)
        while remaining > 0:
            chunk = reader.exactly(min(remaining, 65536))
            out.sendall(chunk)
            remaining -= len(chunk)
        return True
    if close_delimited_ok:
        for data in reader.rest():
            out.sendall(data)
        return False
    return True


def digest_hash(text):
    name = "sha256" if DIGEST_ALGORITHM == "SHA-256" else "md5"
    return hashlib.new(name, text.encode("utf-8")).hexdigest()


def new_nonce():
    nonce = os.urandom(12).hex()
    with LOG_LOCK:
        NONCES.add(nonce)
    return nonce


def digest_challenges(stale=False):
    """The 407's Proxy-Authenticate lines in --digest mode."""
    challenge = 'Digest realm="test-proxy", nonce="%s", qop="auth", algorithm=%s' % (new_nonce(), DIGEST_ALGORITHM)
    if stale:
        challenge += ", stale=true"
    return (b'Proxy-Authenticate: Basic realm="test-proxy"\r\n'
            b"Proxy-Authenticate: " + challenge.encode() + b"\r\n")


def digest_uri(method, target):
    """The `uri` a Digest answer must carry for a request to `target`:
    `host:port` for CONNECT; for a forwarded absolute-form request its path
    and query, as curl 7.88 sends with --proxy-digest (Squid 5.7 accepts
    that form, and in fact any `uri` the response was computed with:
    docs/url-session.md, "Proxy authentication")."""
    if method == "CONNECT" or "://" not in target:
        return target
    rest = target.split("://", 1)[1]
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else "/"


def digest_verdict(method, target, fields):
    """'ok', 'stale' (right answer, nonce to renew) or 'no'."""
    value = field(fields, "Proxy-Authorization") or ""
    if not value.startswith("Digest "):
        return "no"
    params = {}
    for match in re.finditer(r'([A-Za-z0-9_-]+)=("([^"]*)"|[^,\s]*)', value[7:]):
        params[match.group(1).lower()] = match.group(3) if match.group(3) is not None else match.group(2)
    user, _, password = DIGEST.partition(":")
    uri = digest_uri(method, target)
    if params.get("username") != user or params.get("realm") != "test-proxy" or params.get("uri") != uri:
        return "no"
    ha1 = digest_hash("%s:test-proxy:%s" % (user, password))
    ha2 = digest_hash("%s:%s" % (method, uri))
    nonce = params.get("nonce", "")
    expected = digest_hash("%s:%s:%s:%s:%s:%s" % (ha1, nonce, params.get("nc", ""), params.get("cnonce", ""),
                                                 params.get("qop", ""), ha2))
    if params.get("qop") != "auth" or params.get("response") != expected:
        return "no"
    with LOG_LOCK:
        if nonce not in NONCES:
            return "stale"
        if STALE_ONCE[0]:
            STALE_ONCE[0] = False
            NONCES.discard(nonce)
            return "stale"
    return "ok"


def authorized(fields):
    if AUTH is None:
        return True
    expected = "Basic " + base64.b64encode(AUTH.encode()).decode()
    return field(fields, "Proxy-Authorization") == expected


def pipe(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    try:
        destination.shutdown(socket.SHUT_WR)
    except OSError:
        pass


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        with LOG_LOCK:
            COUNTER[0] += 1
            number = COUNTER[0]
        client = self.request
        reader = Reader(client)
        upstreams = {}
        try:
            while True:
                head = reader.head()
                if head is None:
                    return
                start, fields = parse_head(head)
                method, target, _version = start.split(" ", 2)
                log("%d %s %s auth=%s" % (number, method, target,
                                          "yes" if field(fields, "Proxy-Authorization") else "no"))
                verdict = "ok"
                if DIGEST is not None:
                    verdict = digest_verdict(method, target, fields)
                elif not authorized(fields):
                    verdict = "no"
                if verdict != "ok":
                    body = b"proxy authentication required\n"
                    challenges = (digest_challenges(verdict == "stale") if DIGEST is not None
                                  else b"Proxy-Authenticate: Basic realm=\"test-proxy\"\r\n")
                    client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n" + challenges +
                                   b"Content-Type: text/plain\r\n"
                                   b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
                    # The connection stays open, also after a CONNECT (which
                    # has no body): the client may answer on it.
                    if method != "CONNECT":
                        relay_body(reader, fields, _Discard(), False)
                    continue
                if method == "CONNECT":
                    self.tunnel(client, reader, target)
                    return
                if not self.forward(client, reader, method, target, fields, upstreams):
                    return
        except (EOFError, OSError, ValueError):
            return
        finally:
            for sock, _ in upstreams.values():
                sock.close()

    def tunnel(self, client, reader, target):
        if REFUSE_CONNECT:
            body = b"CONNECT refused by policy\n"
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return
        host, _, port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)))
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if reader.buffer:
            upstream.sendall(reader.buffer)
            reader.buffer = b""
        thread = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
        thread.start()
        pipe(client, upstream)
        thread.join()
        upstream.close()

    def forward(self, client, reader, method, target, fields, upstreams):
        """Forwards one absolute-form request; False when the client
        connection must close."""
        if not target.startswith("http://"):
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return False
        rest = target[len("http://"):]
        authority, slash, path = rest.partition("/")
        path = slash + path if slash else "/"
        if authority.startswith("["):
            host, _, port = authority[1:].partition("]")
            port = port[1:] if port.startswith(":") else "80"
        else:
            host, _, port = authority.partition(":")
            port = port or "80"
        key = (host, int(port))
        if key not in upstreams:
            try:
                sock = socket.create_connection(key)
            except OSError:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                relay_body(reader, fields, _Discard(), False)
                return True
            upstreams[key] = (sock, Reader(sock))
        upstream, upstream_reader = upstreams[key]
        lines = ["%s %s HTTP/1.1" % (method, path)]
        for name, value in fields:
            if name.lower() in ("proxy-authorization", "proxy-connection"):
                continue
            lines.append("%s: %s" % (name, value))
        upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        relay_body(reader, fields, upstream, False)
        # The response (and any 1xx before it).
        while True:
            response_head = upstream_reader.head()
            if response_head is None:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return False
            client.sendall(response_head)
            status_line, response_fields = parse_head(response_head)
            status = int(status_line.split(" ")[1])
            if status >= 200 or status == 101:
                break
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            ended_with_close = False
        else:
            ended_with_close = not relay_body(upstream_reader, response_fields, client, True)
        connection = (field(response_fields, "Connection") or "").lower()
        http10 = status_line.startswith("HTTP/1.0") and "keep-alive" not in connection
        if ended_with_close or "close" in connection or http10:
            upstream.close()
            del upstreams[key]
            return False
        return True


class _Discard:
    def sendall(self, data):
        pass


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global AUTH, DIGEST, DIGEST_ALGORITHM, REFUSE_CONNECT, LOG
    arguments = sys.argv[1:]
    while arguments:
        option = arguments.pop(0)
        if option == "--auth":
            AUTH = arguments.pop(0)
        elif option == "--digest":
            DIGEST = arguments.pop(0)
        elif option == "--digest-algorithm":
            DIGEST_ALGORITHM = arguments.pop(0)
        elif option == "--stale-once":
            STALE_ONCE[0] = True
        elif option == "--refuse-connect":
            REFUSE_CONNECT = True
        elif option == "--log":
            LOG = arguments.pop(0)
        else:
            sys.exit("unknown option " + option)
    server = Server(("127.0.0.1", 0), Handler)
    print("port %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
