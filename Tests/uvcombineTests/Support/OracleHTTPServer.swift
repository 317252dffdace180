import Foundation
import TestServerSupport

/// A Python HTTP/1.1 server with routes for comparing `uvcombine fetch`
/// with curl (FetchCurlOracleTests): it answers the same way every time
/// (fixed `Date` and `Server`), so two runs of the same command line get
/// the same bytes.
///
/// Routes (any method):
/// - `/echo`: the request line, the header fields (sorted, `User-Agent`
///   left out: the two tools name themselves) and the body (a multipart
///   boundary, random, replaced by `BOUNDARY`);
/// - `/status/N`: status N with a short body;
/// - `/redirect/N?to=URL`: status N, `Location: URL`;
/// - `/flaky?key=K&fails=N[&code=C][&after=S]`: status C (503) the first
///   N times per key and User-Agent (so each tool gets its own count),
///   then 200; `Retry-After: S` when asked;
/// - `/auth`: 200 for `user:secret` (basic), else 401;
/// - `/digest[?algorithm=SHA-256]`: 200 for `user:secret` answering its
///   Digest challenge (checked), else 401 with the challenge;
/// - `/cookies/start|set|update|clear|clear2`: a cookie conversation (a redirect
///   that sets one, then sets, updates and deletes), each step echoing the
///   `Cookie` field it received;
/// - `/slow?s=S`: answers after S seconds;
/// - `/empty`: closes the connection without an answer;
/// - `/gzip`, `/gzip-corrupt`: a gzip body (`Content-Encoding: gzip`,
///   whoever asked), and one that does not decode;
/// - `/chunked`: a chunked body;
/// - `/http10/...`: the same routes answered as HTTP/1.0, closing;
/// - `/files/NAME`: the file NAME from the served directory.
///
/// Beside it, ``blackholePort`` never accepts a connection.
final class OracleHTTPServer {
    let directory: TemporaryDirectory
    let port: Int
    /// A port whose connects hang (for `--connect-timeout`).
    let blackholePort: Int
    private let server: ServerProcess

    static let script = #"""
        import http.server, sys, time, base64, threading, os, gzip
        directory = sys.argv[1]
        counts = {}
        lock = threading.Lock()
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "OracleServer/1"
            sys_version = ""
            def log_message(self, *a): pass
            def date_time_string(self, timestamp=None): return "Thu, 01 Jan 2026 00:00:00 GMT"
            def send(self, code, body=b"", headers=()):
                self.send_response(code)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD": self.wfile.write(body)
            def handle_any(self):
                path, _, query = self.path.partition("?")
                if path.startswith("/http10/"):
                    self.protocol_version = "HTTP/1.0"
                    self.close_connection = True
                    path = path[7:]
                q = dict(p.partition("=")[::2] for p in query.split("&") if p)
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n) if n else b""
                if path == "/echo":
                    lines = sorted("%s: %s" % (k, v) for k, v in self.headers.items() if k.lower() != "user-agent")
                    # A multipart boundary is random: shown as BOUNDARY.
                    boundary = self.headers.get("Content-Type", "").partition("boundary=")[2]
                    if boundary:
                        lines = [l.replace(boundary, "BOUNDARY") for l in lines]
                        data = data.replace(boundary.encode(), b"BOUNDARY")
                    out = ("%s %s\n" % (self.command, self.path) + "\n".join(lines) + "\n\n").encode() + data
                    self.send(200, out, [("Content-Type", "text/plain")])
                elif path.startswith("/status/"):
                    code = int(path[8:])
                    self.send(code, ("status %d\n" % code).encode(), [("Content-Type", "text/plain")])
                elif path.startswith("/redirect/"):
                    self.send(int(path[10:]), b"moving\n", [("Location", q.get("to", "/echo"))])
                elif path == "/flaky":
                    key = (q.get("key", ""), self.headers.get("User-Agent", ""))
                    with lock:
                        counts[key] = counts.get(key, 0) + 1
                        n = counts[key]
                    if n <= int(q.get("fails", "1")):
                        h = [("Content-Type", "text/plain")]
                        if "after" in q: h.append(("Retry-After", q["after"]))
                        self.send(int(q.get("code", "503")), ("attempt %d failed\n" % n).encode(), h)
                    else:
                        self.send(200, ("attempt %d ok\n" % n).encode(), [("Content-Type", "text/plain")])
                elif path.startswith("/cookies/"):
                    # A cookie conversation: each step sets, updates or
                    # deletes cookies, and echoes the Cookie field it got.
                    got = ("cookie: %s\n" % self.headers.get("Cookie", "-")).encode()
                    step = path[9:]
                    far = "Expires=Fri, 01 Jan 2100 00:00:00 GMT"
                    sets = {
                        "start": ["hop=1; Path=/"],
                        "set": ["a=1; Path=/", "b=2; Path=/cookies; " + far + "; HttpOnly",
                                "c=3; Path=/; " + far, "s=4; Path=/; Secure; " + far],
                        # One deletion per step, and last: curl 7.88 brings back a
                        # cookie deleted before another Set-Cookie of the same
                        # response when it read a jar (docs/cookies.md).
                        "update": ["a=changed; Path=/", "d=new; Path=/cookies; " + far, "b=; Path=/cookies; Max-Age=0"],
                        "clear": ["hop=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"],
                        "clear2": ["c=; Path=/; Max-Age=-1"],
                    }.get(step, [])
                    headers = [("Set-Cookie", v) for v in sets] + [("Content-Type", "text/plain")]
                    if step == "start":
                        self.send(302, got, headers + [("Location", "/cookies/set")])
                    else:
                        self.send(200, got, headers)
                elif path == "/digest":
                    # RFC 7616 with qop=auth, user:secret, a fixed nonce (so
                    # both tools see the same challenge); ?algorithm=SHA-256.
                    import hashlib, re
                    algorithm = q.get("algorithm", "MD5")
                    h = lambda t: hashlib.new("sha256" if algorithm == "SHA-256" else "md5", t.encode()).hexdigest()
                    got = self.headers.get("Authorization", "")
                    p = dict((k, v1 or v2) for k, v1, v2 in re.findall(r'(\w+)=(?:"([^"]*)"|([^\s,]*))', got))
                    ok = False
                    if got.startswith("Digest ") and p.get("username") == "user" and p.get("nonce") == "fixednonce":
                        ha1 = h("user:test:secret")
                        ha2 = h("%s:%s" % (self.command, p.get("uri", "")))
                        expected = h(":".join([ha1, p["nonce"], p.get("nc", ""), p.get("cnonce", ""), p.get("qop", ""), ha2]))
                        ok = p.get("response") == expected and p.get("uri") == self.path
                    if ok:
                        self.send(200, ("welcome %s\n" % algorithm).encode(), [("Content-Type", "text/plain")])
                    else:
                        challenge = 'Digest realm="test", qop="auth", nonce="fixednonce", opaque="op", algorithm=%s' % algorithm
                        self.send(401, b"digest please\n", [("WWW-Authenticate", challenge), ("Content-Type", "text/plain")])
                elif path == "/auth":
                    if self.headers.get("Authorization") == "Basic " + base64.b64encode(b"user:secret").decode():
                        self.send(200, b"welcome\n")
                    else:
                        self.send(401, b"who are you\n", [("WWW-Authenticate", 'Basic realm="test"')])
                elif path == "/gzip":
                    # mtime 0: the same bytes every time.
                    body = gzip.compress(b"compressed line\n" * 200, mtime=0)
                    self.send(200, body, [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")])
                elif path == "/gzip-corrupt":
                    self.send(200, b"\x1f\x8b\x08\x00this is not deflate data at all", [("Content-Encoding", "gzip")])
                elif path == "/empty":
                    self.close_connection = True
                elif path == "/slow":
                    time.sleep(float(q.get("s", "5")))
                    self.send(200, b"late\n")
                elif path == "/chunked":
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for part in (b"hello ", b"chunked ", b"world\n"):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                elif path.startswith("/files/") and os.path.isfile(os.path.join(directory, path[7:])):
                    with open(os.path.join(directory, path[7:]), "rb") as f:
                        self.send(200, f.read(), [("Content-Type", "application/octet-stream")])
                else:
                    self.send(404, b"no such route\n", [("Content-Type", "text/plain")])
            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        httpd.daemon_threads = True
        # A port that never accepts: backlog 0, the accept queue filled by
        # connects nobody accepts (until one hangs), so new SYNs are dropped.
        import socket, select
        blackhole = socket.socket()
        blackhole.bind(("127.0.0.1", 0))
        blackhole.listen(0)
        fillers = []
        for i in range(16):
            c = socket.socket()
            c.setblocking(False)
            try: c.connect(blackhole.getsockname())
            except (BlockingIOError, InterruptedError): pass
            fillers.append(c)
            if not select.select([], [c], [], 0.2)[1]: break
        print("Serving HTTP on 127.0.0.1 port %d blackhole %d" % (httpd.server_address[1], blackhole.getsockname()[1]), flush=True)
        httpd.serve_forever()
        """#

    /// Writes `files` into the served directory and starts the server.
    init(files: [String: Data] = [:]) throws {
        directory = try TemporaryDirectory()
        for (name, contents) in files {
            try contents.write(to: directory.file(name))
        }
        guard let python = findExecutable("python3") else {
            throw PythonHTTPServer.Failure(description: "python3 not found")
        }
        let server = try ServerProcess(executable: python.path, arguments: ["-u", "-c", Self.script, directory.url.path])
        self.server = server
        let (found, text) = server.readOutput { text -> (Int, Int)? in
            guard let match = text.firstMatch(of: /port (\d+) blackhole (\d+)\s/) else { return nil }
            return (Int(match.1)!, Int(match.2)!)
        }
        guard let found else {
            server.stop()
            throw PythonHTTPServer.Failure(description: "the oracle server did not start: \(text)")
        }
        (port, blackholePort) = found
    }

    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Ends the server by PID.
    func stop() {
        server.stop()
    }

    deinit {
        stop()
    }
}

/// The first `name` on PATH that is executable.
func findExecutable(_ name: String) -> URL? {
    ServerProcess.executable(named: name).map(URL.init(fileURLWithPath:))
}
