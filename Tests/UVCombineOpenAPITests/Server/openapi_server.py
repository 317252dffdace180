"""The pet store of Tests/Interop/OpenAPIClient/Sources/PetStoreClient/openapi.yaml,
for the OpenAPI transport's tests (UVCombineOpenAPITests and the generated
client's interop tests). Python's http.server, HTTP/1.1 with keep-alive,
on 127.0.0.1 and a port the kernel picks; prints "port N" once listening.

Routes (all under the server URL's path prefix /api):
  GET  /api/pets/{id}?verbose=B    200 JSON {"id", "name", "verbose"}; id 404 -> 404 JSON Error
  POST /api/pets                   201 JSON {"id": 7, "name": <the posted name>, "verbose": false}
  GET  /api/blobs/{size}           200 application/octet-stream, byte i = i % 256, sent in
                                   16 KiB sendall calls from a 32 KiB send buffer; prints
                                   "sent N" after each (backpressure: the client stops
                                   reading, the prints stop)
  PUT  /api/blobs                  reads the body (Content-Length or chunked) and answers
                                   200 JSON {"received", "sum", "chunked"} (sum: bytes
                                   added, mod 2**32). With ?hold=1 it waits before
                                   reading until POST /api/release arrives (on another
                                   connection): the client's upload must then stall
  POST /api/release                lets every held upload go on; 204
  GET  /api/echo/...               200 JSON {"target": <the request target as received>,
                                   "headers": {name: value}}
  GET  /api/gzip                   200 gzip-encoded text with Content-Length (encoded)
  GET  /api/empty                  204
  HEAD /api/pets/{id}              200 with Content-Length and no body
  GET  /api/stall                  the head, then 1 byte, then nothing (until closed)
"""

import gzip
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

release = threading.Event()
print_lock = threading.Lock()


def say(line):
    with print_lock:
        print(line, flush=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, value, extra=()):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, field in extra:
            self.send_header(name, field)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data), True
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length), False

    def pet(self, path, query):
        pet_id = int(path.rsplit("/", 1)[1])
        if pet_id == 404:
            self.send_json(404, {"code": 404, "message": "no pet 404"})
            return
        verbose = "verbose=true" in query
        self.send_json(200, {"id": pet_id, "name": "pet-%d" % pet_id, "verbose": verbose})

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path.startswith("/api/pets/"):
            self.pet(path, query)
        elif path.startswith("/api/blobs/"):
            self.blob(int(path.rsplit("/", 1)[1]))
        elif path.startswith("/api/echo/"):
            self.send_json(200, {"target": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
        elif path == "/api/gzip":
            body = gzip.compress(b"compressed " * 1000)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/api/empty":
            self.send_response(204)
            self.end_headers()
        elif path == "/api/stall":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"x")
            self.wfile.flush()
            self.rfile.read(1)  # until the client closes
        else:
            self.send_json(404, {"code": 404, "message": "no route " + path})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "42")
        self.end_headers()

    def blob(self, size):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32768)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self.wfile.flush()
        block = bytes(range(256)) * 64
        sent = 0
        while sent < size:
            piece = block[: min(len(block), size - sent)]
            self.connection.sendall(piece)
            sent += len(piece)
            say("sent %d" % sent)

    def do_POST(self):
        path = self.path.partition("?")[0]
        if path == "/api/pets":
            body, _ = self.read_body()
            name = json.loads(body)["name"]
            self.send_json(201, {"id": 7, "name": name, "verbose": False})
        elif path == "/api/release":
            self.read_body()
            release.set()
            self.send_response(204)
            self.end_headers()
        else:
            self.send_json(404, {"code": 404, "message": "no route " + path})

    def do_PUT(self):
        path, _, query = self.path.partition("?")
        if path != "/api/blobs":
            self.send_json(404, {"code": 404, "message": "no route " + path})
            return
        if "hold=1" in query:
            say("holding")
            release.wait()
        body, chunked = self.read_body()
        self.send_json(200, {"received": len(body), "sum": sum(body) % (1 << 32), "chunked": chunked})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        # A small receive buffer on the listener (inherited by accepted
        # sockets): a held upload stalls after little data.
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
        super().server_bind()


server = Server(("127.0.0.1", 0), Handler)
say("port %d" % server.server_address[1])
server.serve_forever()
