# A deliberately broken WebSocket server of our own, for
# UVCombineWebSocketTests: after a valid handshake it sends one frame that
# breaks RFC 6455 or RFC 7692, chosen by the request path, then reads the
# client's close frame and prints "close CODE" (or "no close" when the
# connection ends without one). Prints "listening on port N " first.
import base64
import hashlib
import select
import socket
import struct
import sys
import zlib

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def deflate_bomb(size):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b"\0" * (1 << 20)
    data = b"".join(compressor.compress(chunk) for _ in range(size >> 20))
    data += compressor.flush(zlib.Z_SYNC_FLUSH)
    return data[:-4]


FRAMES = {
    "/masked": bytes([0x81, 0x82, 1, 2, 3, 4, 0x68 ^ 1, 0x69 ^ 2]),
    "/invalid-utf8": bytes([0x81, 0x02, 0xC0, 0x80]),
    "/invalid-utf8-fragment": bytes([0x01, 0x02, 0x61, 0xE2]) + bytes([0x80, 0x02, 0x28, 0xA1]),
    "/rsv1": bytes([0xC1, 0x00]),
    "/rsv2": bytes([0xA1, 0x00]),
    "/rsv3": bytes([0x91, 0x00]),
    "/opcode": bytes([0x83, 0x00]),
    "/big-ping": bytes([0x89, 0x7E, 0x00, 0x7E]) + b"x" * 126,
    "/fragmented-ping": bytes([0x09, 0x00]),
    "/bad-close-code": bytes([0x88, 0x02, 0x03, 0xED]),
    "/one-byte-close": bytes([0x88, 0x01, 0x03]),
    "/close-reason-not-utf8": bytes([0x88, 0x03, 0x03, 0xE8, 0xFF]),
    "/continuation": bytes([0x80, 0x00]),
    "/oversized": bytes([0x82, 0x7F]) + struct.pack(">Q", 2 << 20),
}


def answer(request, path, extensions):
    key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    if path == "/bad-accept":
        accept = base64.b64encode(hashlib.sha1(b"wrong").digest())
    head = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    head += b"Sec-WebSocket-Accept: " + accept + b"\r\n"
    if extensions:
        head += b"Sec-WebSocket-Extensions: " + extensions + b"\r\n"
    return head + b"\r\n"


def read_close(connection):
    data = b""
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            length = data[1] & 0x7F
            offset = 2
            if length == 126:
                length = struct.unpack(">H", data[2:4])[0]
                offset = 4
            elif length == 127:
                length = struct.unpack(">Q", data[2:10])[0]
                offset = 10
            if len(data) < offset + 4 + length:
                break
            mask = data[offset:offset + 4]
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(data[offset + 4:offset + 4 + length]))
            opcode = data[0] & 0x0F
            data = data[offset + 4 + length:]
            if opcode == 0x8:
                return struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005


def flood(connection, count, size):
    """Sends `count` binary messages of `size` bytes; prints "blocked after N
    bytes" once the client stops reading (no write progress for 0.5 s),
    then finishes sending and closes with 1000."""
    connection.setblocking(False)
    frame = bytes([0x82, 0x7E]) + struct.pack(">H", size) + b"f" * size
    sent = 0
    reported = False
    for _ in range(count):
        offset = 0
        while offset < len(frame):
            try:
                offset += connection.send(frame[offset:])
            except BlockingIOError:
                _, writable, _ = select.select([], [connection], [], 0.5)
                if not writable and not reported:
                    print(f"blocked after {sent + offset} bytes", flush=True)
                    reported = True
        sent += len(frame)
    connection.setblocking(True)
    connection.sendall(bytes([0x88, 0x02, 0x03, 0xE8]))


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(f"listening on port {listener.getsockname()[1]} ", flush=True)
    while True:
        connection, _ = listener.accept()
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                break
            request += chunk
        path = request.split(b" ")[1].decode()
        if path == "/deflate-bomb":
            connection.sendall(answer(request, path, b"permessage-deflate"))
            bomb = deflate_bomb(64 << 20)
            connection.sendall(bytes([0xC2, 0x7E]) + struct.pack(">H", len(bomb)) + bomb
                               if len(bomb) < 65536 else
                               bytes([0xC2, 0x7F]) + struct.pack(">Q", len(bomb)) + bomb)
        elif path == "/flood":
            connection.sendall(answer(request, path, None))
            flood(connection, 1024, 65535)
        else:
            connection.sendall(answer(request, path, None))
            if path in FRAMES:
                connection.sendall(FRAMES[path])
        try:
            code = read_close(connection)
        except OSError:
            code = None
        print("no close" if code is None else f"close {code}", flush=True)
        connection.close()


main()
