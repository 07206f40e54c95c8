"""A loopback web server for the URLStream tests: plain files (with ranges), an ICY radio stream with title changes,
a live stream that drops, redirects, errors, an HTML page and radio playlists. Usage: radio_server.py DIR; prints
its port on the first line. With CERT and KEY after DIR it speaks HTTPS (a TLS failure test). Files in DIR: file.mp3, file.ogg, file.opus, file.flac, file.wav (made by the tests)."""
import http.server
import json
import os
import sys
import threading

ROOT = sys.argv[1]
TITLES = ["First Song", "Second Song"]
stats = {"live": 0, "radio": 0}
lock = threading.Lock()


def data(name):
    with open(os.path.join(ROOT, name), "rb") as f:
        return f.read()


def icy_block(title):
    text = f"StreamTitle='{title}';".encode()
    size = (len(text) + 15) // 16
    return bytes([size]) + text.ljust(size * 16, b"\0")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        types = {".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".opus": "audio/ogg", ".flac": "audio/flac", ".wav": "audio/wav", ".aac": "audio/aac"}
        base = f"http://127.0.0.1:{self.server.server_port}"
        if path.startswith("/file."):
            body = data(path[1:])
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes="):
                start = int(rng[6:].split("-")[0])
                self.send(206, body[start:], types[os.path.splitext(path)[1]],
                          {"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{len(body) - 1}/{len(body)}"})
            else:
                self.send(200, body, types[os.path.splitext(path)[1]], {"Accept-Ranges": "bytes"})
        elif path == "/radio.mp3":
            with lock:
                stats["radio"] += 1
            body = data("file.mp3")
            self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("icy-name", "Loopback Radio")
            icy = self.headers.get("Icy-MetaData") == "1"
            if icy:
                self.send_header("icy-metaint", "8192")
            self.send_header("Connection", "close")
            self.end_headers()
            if not icy:
                self.wfile.write(body)
                return
            out, blocks = bytearray(), 0
            for at in range(0, len(body), 8192):
                piece = body[at:at + 8192]
                out += piece
                if len(piece) == 8192:
                    out += icy_block(TITLES[0] if blocks < 3 else TITLES[1])
                    blocks += 1
            self.wfile.write(bytes(out))
        elif path == "/live.mp3":
            with lock:
                stats["live"] += 1
                first = stats["live"] == 1
            body = data("file.mp3")
            self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("Connection", "close")
            self.end_headers()
            # The first connection drops after 20,000 bytes; later ones send the whole file, then end.
            self.wfile.write(body[:20000] if first else body)
            self.wfile.flush()
            self.close_connection = True
        elif path == "/redirect":
            self.send(302, b"", "text/plain", {"Location": f"{base}/file.flac"})
        elif path == "/page.html":
            self.send(200, b"<html><body>not radio</body></html>", "text/html; charset=utf-8")
        elif path == "/list.pls":
            self.send(200, f"[playlist]\nNumberOfEntries=1\nFile1={base}/radio.mp3\nTitle1=Loopback\n".encode(), "audio/x-scpls")
        elif path == "/list.m3u":
            self.send(200, b"#EXTM3U\n#EXTINF:-1,Loopback\nradio.mp3\n", "audio/x-mpegurl")
        elif path == "/list.xspf":
            xml = f'<?xml version="1.0"?><playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList><track><location>{base}/radio.mp3</location></track></trackList></playlist>'
            self.send(200, xml.encode(), "application/xspf+xml")
        elif path == "/hls.m3u8":
            self.send(200, b"#EXTM3U\n#EXT-X-TARGETDURATION:10\nseg1.ts\n", "application/vnd.apple.mpegurl")
        elif path == "/stats":
            self.send(200, json.dumps(stats).encode(), "application/json")
        else:
            self.send(404, b"no such thing", "text/plain")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if len(sys.argv) > 3:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_port, flush=True)
server.serve_forever()
