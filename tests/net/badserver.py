#!/usr/bin/env python3
"""A tiny misbehaving completion server for tests/cli/net.sh: every failure mode that
`roofline profile` must report clearly. Usage: badserver.py MODE PORTFILE
MODE: slow (answers after 30 s), http500, truncated (stops before 'data: [DONE]'), badjson
(an event that is not JSON), cut (closes the connection inside a chunked stream), notsse
(plain JSON instead of events), flaky (every second request gets HTTP 500), ok (a
well-formed 3-token stream). Binds an ephemeral loopback
port and writes it to PORTFILE. Stops on SIGTERM."""
import http.server
import json
import signal
import sys
import time

MODE = sys.argv[1]
COUNT = 0


def event(obj):
    return ("data: " + json.dumps(obj) + "\n\n").encode()


def token(text):
    return event({"id": "x", "object": "text_completion",
                  "choices": [{"text": text, "index": 0, "finish_reason": None}]})


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first, as it should

    def answer(self):
        global COUNT
        n = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(n)
        if self.path == "/tokenize":
            self.send_error(404)
            return
        COUNT += 1
        if MODE == "slow":
            time.sleep(30)
        if MODE == "http500" or (MODE == "flaky" and COUNT % 2 == 0):
            body = json.dumps({"error": {"message": "model crashed", "code": 500}}).encode()
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if MODE == "notsse":
            body = json.dumps({"choices": [{"text": "hello"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if MODE == "cut":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = token(" a") + token(" b")
            self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            self.wfile.flush()
            self.close_connection = True
            return  # no terminating zero chunk
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(token(" a"))
        self.wfile.write(token(" b"))
        if MODE == "badjson":
            self.wfile.write(b'data: {"choices": [{"text": " c",}]}\n\n')
        if MODE == "truncated":
            return
        self.wfile.write(token(" c"))
        self.wfile.write(event({"id": "x", "choices": [{"text": "", "index": 0,
                                                        "finish_reason": "length"}],
                                "usage": {"prompt_tokens": 65, "completion_tokens": 3}}))
        self.wfile.write(b"data: [DONE]\n\n")


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
with open(sys.argv[2], "w") as f:
    f.write(str(srv.server_address[1]) + "\n")
srv.serve_forever()
