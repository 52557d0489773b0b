"""A lying web server for the bounded-body specs: a Zarr v2 array "a" (one
int32 chunk of 4 elements) whose chunk "a/0" is answered 200 with an endless
chunked body (Range ignored), and "b" whose chunk answers a 206 longer than
the range asked. Writes its URL to the file named by argv[1]; stops after
60 s, or once it has sent 1 GiB, whichever comes first."""
import http.server
import json
import sys
import threading
import time

ZARRAY = json.dumps({"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "compressor": None,
                     "fill_value": 0, "order": "C", "filters": None}).encode()
LIMIT = 1 << 30
sent = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def small(self, status, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def endless(self):
        global sent
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = b"\0" * 65536
        try:
            while sent < LIMIT:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
        except OSError:  # the reader gave up: what the spec wants
            pass
        self.close_connection = True

    def do_GET(self):
        path = self.path.split("?")[0]
        if path in ("/a/.zarray", "/b/.zarray"):
            return self.small(200, ZARRAY)
        if path == "/a/0":
            return self.endless()
        if path == "/b/0":  # a part of 1 MiB, more than a reader of a 16-byte chunk asks for
            body = b"\0" * (1 << 20)
            return self.small(206, body, [("Content-Range", "bytes 0-%d/%d" % (len(body) - 1, len(body)))])
        return self.small(404, b"not here")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write("http://127.0.0.1:%d\n" % server.server_address[1])
threading.Thread(target=lambda: (time.sleep(60), server.shutdown()), daemon=True).start()
server.serve_forever()
