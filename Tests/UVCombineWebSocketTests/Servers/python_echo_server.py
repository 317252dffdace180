# An echo server on python's `websockets` (a server nobody here wrote),
# for UVCombineWebSocketTests. Usage: python3 -u python_echo_server.py
# deflate|plain [certfile keyfile]. Prints "listening on port N " once it
# listens on 127.0.0.1 (port chosen by the kernel).
#
# Paths:
#   /echo          echoes every message
#   /fragmented    echoes every message as fragments of 1000 characters/bytes
#   /close/CODE    echoes the first message, then closes with CODE, "server says bye"
#   /drop          echoes the first message, then drops TCP without a close frame
#   /push          for each message "COUNT SIZE", sends COUNT binary messages
#                  of SIZE bytes (ws_receive_mallocs.c's workload)
import asyncio
import logging
import os
import ssl
import sys

from websockets.asyncio.server import serve


async def handler(ws):
    path = ws.request.path
    async for message in ws:
        if path == "/push":
            count, size = map(int, message.split())
            payload = b"*" * size
            for _ in range(count):
                await ws.send(payload)
            continue
        if path == "/fragmented":
            await ws.send([message[i:i + 1000] for i in range(0, len(message), 1000)] or [message])
        else:
            await ws.send(message)
        if path.startswith("/close/"):
            await ws.close(int(path.split("/")[2]), "server says bye")
            return
        if path == "/drop":
            ws.transport.abort()
            return


async def main():
    if os.environ.get("UVCOMBINE_WS_DEBUG"):
        logging.basicConfig(level=logging.DEBUG)
    compression = "deflate" if sys.argv[1] == "deflate" else None
    context = None
    if len(sys.argv) > 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
    async with serve(handler, "127.0.0.1", 0, compression=compression, max_size=None,
                     ping_interval=None, ssl=context) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening on port {port} ", flush=True)
        await asyncio.Future()


asyncio.run(main())
