"""A DNS server for the DNSLink spec, run inside a network namespace of the
test's own: answers TXT questions from the records given as NAME=TEXT
arguments (NAME may repeat), anything else with NXDOMAIN. Listens on
127.0.0.1:53 (UDP); stops after 60 s."""
import socket
import struct
import sys
import threading

records = {}
for arg in sys.argv[1:]:
    name, text = arg.split("=", 1)
    records.setdefault(name.lower().rstrip("."), []).append(text.encode())


def question(packet):
    """(name, end of the question) of a query."""
    labels, pos = [], 12
    while packet[pos]:
        n = packet[pos]
        labels.append(packet[pos + 1:pos + 1 + n].decode("ascii", "replace"))
        pos += 1 + n
    return ".".join(labels).lower(), pos + 5


def answer(packet):
    name, end = question(packet)
    qtype = struct.unpack(">H", packet[end - 4:end - 2])[0]
    texts = records.get(name, []) if qtype == 16 else []
    flags = 0x8180 if name in records else 0x8183  # NXDOMAIN when the name is unknown
    out = packet[:2] + struct.pack(">HHHHH", flags, 1, len(texts), 0, 0) + packet[12:end]
    for t in texts:
        rdata = b"".join(bytes([len(t[i:i + 255])]) + t[i:i + 255] for i in range(0, len(t), 255))
        out += b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 60, len(rdata)) + rdata
    return out


sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 53))
threading.Timer(60, lambda: sock.close()).start()
while True:
    try:
        data, peer = sock.recvfrom(512)
    except OSError:
        break
    sock.sendto(answer(data), peer)
