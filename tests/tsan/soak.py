"""Clients for tests/tsan/soak.lua: CONCURRENT requests at once (aiohttp,
no connection limit: as many connections) for files of FOLDER through the
gateway PROXY (/ipfs/ROOT/<relative path>), ROUNDS times over, every answer
compared byte for byte with the file. Prints {requests, failed, wrong, most}.
Usage: /usr/bin/python3 soak.py PROXY ROOT FOLDER CONCURRENT ROUNDS"""
import asyncio
import json
import os
import sys

import aiohttp

proxy, root, folder = sys.argv[1:4]
concurrent, rounds = int(sys.argv[4]), int(sys.argv[5])
assert proxy.startswith("http://127.0.0.1:")
files = sorted(os.path.relpath(os.path.join(d, n), folder) for d, _, names in os.walk(folder) for n in names)
stats = {"requests": 0, "failed": 0, "wrong": 0, "most": 0}
live = 0


async def one(session, rel):
    global live
    live += 1
    stats["most"] = max(stats["most"], live)
    try:
        async with session.get("%s/ipfs/%s/%s" % (proxy, root, rel)) as answer:
            body = await answer.read()
            with open(os.path.join(folder, rel), "rb") as f:
                want = f.read()
            if answer.status != 200:
                stats["failed"] += 1
            elif body != want:
                stats["wrong"] += 1
    except (aiohttp.ClientError, asyncio.TimeoutError):
        stats["failed"] += 1
    finally:
        live -= 1
        stats["requests"] += 1


async def main():
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # a connection a request, all at once
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        for r in range(rounds):
            picks = [files[(i * 7 + r) % len(files)] for i in range(concurrent)]
            await asyncio.gather(*(one(session, rel) for rel in picks))
    print(json.dumps(stats))


asyncio.run(main())
