"""Slow clients for the serve specs: N connections to HOST:PORT, each sending
a request's head one byte every INTERVAL seconds and never finishing it, for
at most SECONDS. Prints (JSON) how many the server closed within EARLY
seconds of connecting, and in all. Only 127.0.0.1 is a target."""
import json
import select
import socket
import sys
import time

host, port, n, interval, seconds, early = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]),
                                          float(sys.argv[5]), float(sys.argv[6]))
assert host == "127.0.0.1"
HEAD = b"GET /ipfs/bafkqaaa HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096
start = time.monotonic()
conns = []
for _ in range(n):
    s = socket.create_connection((host, port))
    s.setblocking(False)
    conns.append({"sock": s, "sent": 0, "closed_at": None, "opened": time.monotonic()})


def closed(c, now):
    c["closed_at"] = now - c["opened"]
    c["sock"].close()


while time.monotonic() - start < seconds and any(c["closed_at"] is None for c in conns):
    now = time.monotonic()
    live = [c for c in conns if c["closed_at"] is None]
    readable, _, _ = select.select([c["sock"] for c in live], [], [], 0)
    for c in live:
        if c["sock"] in readable:  # an answer or the end: the server is done with it
            try:
                if not c["sock"].recv(65536):
                    closed(c, now)
                    continue
            except OSError:
                closed(c, now)
                continue
        try:
            c["sock"].send(HEAD[c["sent"] % len(HEAD):][:1])
            c["sent"] += 1
        except OSError:
            closed(c, now)
    time.sleep(interval)
gone = [c["closed_at"] for c in conns if c["closed_at"] is not None]
print(json.dumps({"early": sum(1 for t in gone if t <= early), "closed": len(gone), "of": n}))
for c in conns:
    if c["closed_at"] is None:
        c["sock"].close()
