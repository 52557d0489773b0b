"""Clients for scripts/bench/proxy_load.lua: THREADS threads, each reading
random files of the dataset FOLDER through the gateway PROXY (plain HTTP GETs
of /ipfs/ROOT/<relative path>) for SECONDS, every answer compared byte for byte
with the file. Prints {requests, failed, wrong, bytes, p50_ms, p99_ms}.
Usage: /usr/bin/python3 proxy_load.py PROXY ROOT FOLDER THREADS SECONDS"""
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request

proxy, root, folder = sys.argv[1:4]
threads, seconds = int(sys.argv[4]), float(sys.argv[5])
files = []
for dirpath, _, names in os.walk(folder):
    for name in names:
        files.append(os.path.relpath(os.path.join(dirpath, name), folder))
files.sort()
lock = threading.Lock()
stats = {"requests": 0, "failed": 0, "wrong": 0, "bytes": 0}
latencies = []
deadline = time.monotonic() + seconds


def client(seed):
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        rel = rng.choice(files)
        with open(os.path.join(folder, rel), "rb") as f:
            want = f.read()
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(f"{proxy}/ipfs/{root}/{rel}", timeout=60) as r:
                got, ok = r.read(), r.status == 200
        except (urllib.error.URLError, OSError):
            got, ok = b"", False
        dt = time.monotonic() - t0
        with lock:
            stats["requests"] += 1
            stats["failed"] += 0 if ok else 1
            stats["wrong"] += 1 if ok and got != want else 0
            stats["bytes"] += len(got)
            latencies.append(dt)


workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
latencies.sort()
stats["p50_ms"] = latencies[len(latencies) // 2] * 1000 if latencies else 0
stats["p99_ms"] = latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0
print(json.dumps(stats))
