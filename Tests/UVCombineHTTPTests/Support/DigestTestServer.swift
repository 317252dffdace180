import Foundation
import TestServerSupport

/// A small Python server that checks RFC 7616 Digest answers (user
/// `user`, password `secret`, realm `test`, `qop=auth`, MD5 or
/// `?algorithm=SHA-256`): as an origin (`401` / `WWW-Authenticate`,
/// `Authorization`) and, for a request in absolute form, as a forwarding
/// proxy (`407` / `Proxy-Authenticate`, `Proxy-Authorization`; it answers
/// itself instead of forwarding). Every answer's body names what it was:
/// `ok origin`, `ok proxy`, `challenge` (a 401 or 407). With `stale=N` in
/// the query the first N right answers get another challenge with
/// `stale=true` and a new nonce (the next answer must use it), and the
/// `ok` body ends with ` seen=<requests for that target>`. Stopped by PID.
final class DigestTestServer {
    let port: Int
    private let server: ServerProcess

    static let script = #"""
        import http.server, hashlib, re, sys
        stale = {}
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *a): pass
            def check(self, field, uri, algorithm):
                h = lambda t: hashlib.new("sha256" if algorithm == "SHA-256" else "md5", t.encode()).hexdigest()
                got = self.headers.get(field, "")
                p = dict((k, a or b) for k, a, b in re.findall(r'(\w+)=(?:"([^"]*)"|([^\s,]*))', got))
                if not got.startswith("Digest ") or p.get("username") != "user" or p.get("uri") != uri:
                    return None
                ha1, ha2 = h("user:test:secret"), h("%s:%s" % (self.command, uri))
                ok = p.get("response") == h(":".join([ha1, p.get("nonce", ""), p.get("nc", ""), p.get("cnonce", ""), p.get("qop", ""), ha2]))
                return p if ok else None
            def handle_any(self):
                n = int(self.headers.get("Content-Length") or 0)
                if n: self.rfile.read(n)
                proxied = self.path.startswith("http://")
                path = re.sub(r"^http://[^/]*", "", self.path)
                algorithm = "SHA-256" if "algorithm=SHA-256" in path else "MD5"
                field = "Proxy-Authorization" if proxied else "Authorization"
                answer = self.check(field, path, algorithm)
                limit = re.search(r"stale=(\d+)", path)
                state = stale.setdefault(self.path, {"seen": 0, "stales": 0, "nonce": None})
                state["seen"] += 1
                suffix, extra = b"", ""
                if limit and answer is not None:
                    if state["nonce"] is not None and answer.get("nonce") != state["nonce"]:
                        answer = None
                    elif state["stales"] < int(limit.group(1)):
                        state["stales"] += 1
                        state["nonce"] = "stale%d" % state["stales"]
                        answer, extra = None, ", stale=true"
                    else:
                        suffix = b" seen=%d" % state["seen"]
                if answer is not None:
                    code, body, headers = 200, (b"ok proxy" if proxied else b"ok origin") + suffix, []
                else:
                    nonce = state["nonce"] if extra else "n%d" % (id(self) % 1000)
                    challenge = 'Digest realm="test", qop="auth", nonce="%s", algorithm=%s%s' % (nonce, algorithm, extra)
                    code = 407 if proxied else 401
                    headers = [("Proxy-Authenticate" if proxied else "WWW-Authenticate", challenge)]
                    body = b"challenge"
                self.send_response(code)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            do_GET = do_POST = do_PUT = handle_any
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        print("Serving HTTP on 127.0.0.1 port %d" % httpd.server_address[1], flush=True)
        httpd.serve_forever()
        """#

    init() throws {
        guard let python = ServerProcess.executable(named: "python3") else { throw PythonHTTPServer.Failure.noPython }
        let server = try ServerProcess(executable: python, arguments: ["-u", "-c", Self.script])
        self.server = server
        let (found, text) = server.readPort()
        guard let found else {
            server.stop()
            throw PythonHTTPServer.Failure.noPort(text)
        }
        port = found
        guard Loopback.waitUntilAccepting(port: found) else {
            server.stop()
            throw PythonHTTPServer.Failure.notReady
        }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() { server.stop() }
}
