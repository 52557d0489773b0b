"""A gateway that answers every /ipns/ request with the bytes of one file,
whatever name was asked (a lying or stale gateway, for the client's IPNS
specs): argv[1] the record file, argv[2] where to write its URL. Stops after
60 s."""
import http.server
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(sys.argv[1], "rb") as f:
            body = f.read()
        self.send_response(200 if self.path.startswith("/ipns/") else 404)
        self.send_header("Content-Type", "application/vnd.ipfs.ipns-record")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[2], "w") as f:
    f.write("http://127.0.0.1:%d\n" % server.server_address[1])
threading.Timer(60, server.shutdown).start()
server.serve_forever()
