#!/usr/bin/env python3
"""A tiny loopback feed server for the demo: serves one file with the validators and
cache headers a real feed server sends (ETag, Last-Modified, Date, Age, Cache-Control),
and answers conditional requests with 304. Standard library only.

usage: serve_feed.py FILE PORT_FILE
Serves FILE at /feed.xml on 127.0.0.1 (a free port, written to PORT_FILE) until killed.
FILE may be replaced between requests: each request reads it afresh.
"""
import email.utils
import hashlib
import http.server
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the demo prints feeddiff's output only
        pass

    def do_GET(self):
        if self.path != "/feed.xml":
            self.send_error(404)
            return
        with open(self.server.feed_file, "rb") as f:
            body = f.read()
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:32]
        mtime = os.stat(self.server.feed_file).st_mtime
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml; charset=utf-8")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.send_header("Age", "42")
        self.send_header("Cache-Control", "public, max-age=60")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    feed_file, port_file = sys.argv[1], sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.feed_file = feed_file
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
