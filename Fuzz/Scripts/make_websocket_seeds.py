#!/usr/bin/env python3
"""Writes the committed seed corpus of the WebSocket targets,
Fuzz/Corpus/WebSocketFrameFuzzer/ and Fuzz/Corpus/WebSocketInflateFuzzer/.

The layouts are described at the top of
Fuzz/Sources/<Target>/<Target>.swift. Run from anywhere:
`python3 Fuzz/Scripts/make_websocket_seeds.py`.
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def frame(opcode, payload, fin=True, rsv1=False, mask=None, length_form=None):
    """One frame; `mask` is a 4-byte key (client frames); `length_form`
    forces 126 or 127 (a non-minimal length, which must be refused)."""
    first = opcode | (0x80 if fin else 0) | (0x40 if rsv1 else 0)
    mask_bit = 0x80 if mask else 0
    n = len(payload)
    form = length_form or (0 if n <= 125 else 126 if n <= 0xFFFF else 127)
    if form == 0:
        head = bytes([first, mask_bit | n])
    elif form == 126:
        head = bytes([first, mask_bit | 126]) + struct.pack(">H", n)
    else:
        head = bytes([first, mask_bit | 127]) + struct.pack(">Q", n)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return head + mask + payload
    return head + payload


def deflate(data, wbits=15):
    """permessage-deflate's form: raw DEFLATE, sync-flushed, tail removed."""
    c = zlib.compressobj(6, zlib.DEFLATED, -wbits)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


# WebSocketFrameFuzzer: flags, limit (2 bytes LE), seed (2 bytes), stream.
DEFLATE, NO_TAKEOVER, MASKED, BIG = 1, 2, 4, 8


def reader(flags=0, limit=4096, seed=(5, 3)):
    return bytes([flags]) + struct.pack("<H", limit) + bytes(seed)


KEY = b"\x37\xfa\x21\x3d"
close_1000 = frame(0x8, struct.pack(">H", 1000) + b"bye")
frames = {
    "text": (0, frame(0x1, b"hello")),
    "binary-126": (0, frame(0x2, bytes(range(200)))),
    # Cut at 1,000 payload bytes: inputs are at most 2,048 bytes (run.sh).
    "binary-127-partial": (BIG, frame(0x2, bytes(70000))[:1010]),
    "fragmented-with-ping": (0, frame(0x1, b"hel", fin=False) + frame(0x9, b"p") + frame(0x0, b"lo")),
    "utf8-split": (0, frame(0x1, "é€".encode()[:3], fin=False) + frame(0x0, "é€".encode()[3:])),
    "close": (0, frame(0x1, b"x") + close_1000),
    "close-empty": (0, frame(0x8, b"")),
    "pong": (0, frame(0xA, b"pong")),
    "masked-client": (MASKED, frame(0x1, b"masked", mask=KEY) + frame(0x8, struct.pack(">H", 1001), mask=KEY)),
    "deflate": (DEFLATE, frame(0x1, deflate(b"a" * 300), rsv1=True) + frame(0x2, deflate(bytes(range(256)) * 4), rsv1=True)),
    "deflate-fragmented": (DEFLATE, (lambda d: frame(0x1, d[:5], fin=False, rsv1=True) + frame(0x0, d[5:]))(deflate(b"hello hello hello"))),
    "deflate-no-takeover": (DEFLATE | NO_TAKEOVER, frame(0x1, deflate(b"abcabc"), rsv1=True) + frame(0x1, deflate(b"abcabc"), rsv1=True)),
    "deflate-empty": (DEFLATE, frame(0x1, b"\x00", rsv1=True)),
    "bomb": (DEFLATE, frame(0x2, deflate(bytes(1 << 20)), rsv1=True)),
    "bad-masked-server": (0, frame(0x1, b"x", mask=KEY)),
    "bad-unmasked-client": (MASKED, frame(0x1, b"x")),
    "bad-rsv": (0, bytes([0x81 | 0x20, 1]) + b"x"),
    "bad-rsv1-no-deflate": (0, frame(0x1, b"x", rsv1=True)),
    "bad-opcode": (0, frame(0x3, b"x")),
    "bad-long-control": (0, frame(0x9, bytes(126))),
    "bad-fragmented-control": (0, frame(0x9, b"x", fin=False)),
    "bad-close-code": (0, frame(0x8, struct.pack(">H", 1005))),
    "bad-close-one-byte": (0, frame(0x8, b"\x03")),
    "bad-utf8": (0, frame(0x1, b"\xc3\x28")),
    "bad-continuation": (0, frame(0x0, b"x")),
    "bad-nonminimal-length": (0, frame(0x1, b"short", length_form=126)),
    "bad-huge-length": (0, bytes([0x82, 127]) + struct.pack(">Q", 1 << 62)),
    "bad-top-bit-length": (0, bytes([0x82, 127, 0x80]) + bytes(7)),
    "too-big": (0, frame(0x2, bytes(100))),
}
for name, (flags, stream) in frames.items():
    limit = 64 if name == "too-big" else 4096
    write("WebSocketFrameFuzzer", name, reader(flags, limit) + stream)

# WebSocketInflateFuzzer: flags, limit (2 bytes LE), seed (2 bytes), up to
# four length-prefixed messages, then the rest.
NO_TAKEOVER_I, LIMIT_KIB = 1, 2


def inflate_input(flags, limit, messages, rest=b"", window=6):
    out = bytes([flags | (window << 4)]) + struct.pack("<H", limit) + bytes([9, 4])
    for m in messages:
        assert len(m) < 256
        out += bytes([len(m)]) + m
    return out + rest


inflates = {
    "text": inflate_input(0, 4096, [deflate(b"hello hello hello"), deflate(b"hello again")]),
    "no-takeover": inflate_input(NO_TAKEOVER_I, 4096, [deflate(b"abc" * 20), deflate(b"abc" * 20)]),
    "empty": inflate_input(0, 16, [b"\x00", b""]),
    "small-window": inflate_input(0, 4096, [deflate(b"xyz" * 50, wbits=9)], window=0),
    "bomb": inflate_input(LIMIT_KIB, 64, [], rest=deflate(bytes(1 << 20))),
    "bad-block-type": inflate_input(0, 4096, [b"\x07\x00"]),
    "bad-distance": inflate_input(0, 4096, [b"\x02\x00\xff"]),
    "stored-block": inflate_input(0, 4096, [b"\x01\x03\x00\xfc\xffabc"]),
    "final-block-then-more": inflate_input(0, 4096, [zlib.compress(b"done")[2:-4] + deflate(b"more")]),
}
for name, data in inflates.items():
    write("WebSocketInflateFuzzer", name, data)

if __name__ == "__main__":
    for target in ("WebSocketFrameFuzzer", "WebSocketInflateFuzzer"):
        print(target, len(os.listdir(os.path.join(ROOT, target))), "seeds")
