# python's websockets client (asyncio), driven by WebSocketBenchmarks through
# stdin and stdout, so one process serves a whole run. Commands, one a line;
# each is answered "ok" once done:
#   connect URL                   opens a connection (no compression)
#   echo COUNT WINDOW SIZE        COUNT binary messages, at most WINDOW awaiting their echo
#   push COUNT SIZE               asks /push for COUNT messages of SIZE bytes, reads them
#   close                         the close handshake
import asyncio
import sys

from websockets.asyncio.client import connect


async def main():
    ws = None
    while True:
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return
        words = line.split()
        if words[0] == "connect":
            ws = await connect(words[1], compression=None, max_size=1 << 20, ping_interval=None)
        elif words[0] == "echo":
            count, window, size = map(int, words[1:])
            payload = b"*" * size
            sent = 0
            for _ in range(min(window, count)):
                await ws.send(payload)
                sent += 1
            for _ in range(count):
                await ws.recv()
                if sent < count:
                    await ws.send(payload)
                    sent += 1
        elif words[0] == "push":
            count, size = map(int, words[1:])
            await ws.send(f"{count} {size}")
            for _ in range(count):
                await ws.recv()
        elif words[0] == "close":
            await ws.close()
            ws = None
        print("ok", flush=True)


asyncio.run(main())
