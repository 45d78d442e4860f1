"""The HTTP side of the switch simulator: the listener the devices' APIs share.

A platform's API (Arista eAPI on EOS, MLNX-OS's JSON API, NVUE's REST API on Cumulus
Linux 5.x) is a function that takes one request and returns its answer; this module serves
it, over TLS when given a certificate (the lab CA's in the lab, a throwaway one in the unit
tests) or in plain HTTP (MLNX-OS's `web http enable`), in a thread per connection, on the
same switch state as the SSH CLI, so a change made one way is seen the other.

A request body comes with a Content-Length or in chunks (`Transfer-Encoding: chunked`, RFC
9112 section 7.1: what a client that streams its body, or sends an empty one without a
length, uses). HTTP Basic credentials (RFC 7617) are read here for the APIs that take them.
"""

from __future__ import annotations

import base64
import binascii
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import BinaryIO
from urllib.parse import parse_qs, urlsplit

MAX_LINE = 65536  # the longest chunk-size or trailer line read


@dataclass
class Request:
    """One HTTP request as an API handler sees it."""

    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # names in lower case
    body: bytes


@dataclass
class Response:
    """What an API handler answers."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Response]


def credentials(request: Request, users: dict[str, str]) -> tuple[str, str] | None:
    """(user, password) of a valid `Authorization: Basic ...` header, else None."""
    kind, _, encoded = request.headers.get("authorization", "").partition(" ")
    if kind.lower() != "basic":
        return None
    try:
        user, sep, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    if not sep or users.get(user) != password:
        return None
    return user, password


def read_chunked(stream: BinaryIO) -> bytes:
    """A chunked body: hex size lines (extensions after `;` ignored), each chunk and its
    CRLF, a last chunk of size 0, then trailer lines up to an empty one (RFC 9112 7.1).
    ValueError for a size that is not hex."""
    parts = []
    while True:
        size = int(stream.readline(MAX_LINE).split(b";", 1)[0].strip(), 16)
        if size == 0:
            break
        parts.append(stream.read(size))
        stream.readline(MAX_LINE)  # the CRLF after the chunk
    while stream.readline(MAX_LINE) not in (b"\r\n", b"\n", b""):
        pass  # trailer fields: none of the APIs reads them
    return b"".join(parts)


def _request_handler(api: Handler) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as API clients' sessions expect
        server_version = "switch-sim"

        def log_message(self, format: str, *args: object) -> None:
            pass  # the container's log is the simulator's own lines

        def _body(self) -> bytes:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return read_chunked(self.rfile)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _serve(self) -> None:
            try:
                body = self._body()
            except ValueError:  # a length or chunk size that is not a number
                self.close_connection = True
                self._answer(Response(400, b"Bad Request\n"))
                return
            url = urlsplit(self.path)
            request = Request(
                method=self.command,
                path=url.path,
                query=parse_qs(url.query),
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body,
            )
            self._answer(api(request))

        def _answer(self, response: Response) -> None:
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            self.wfile.write(response.body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    return _Handler


class APIServer:
    """An API served on host:port (port 0: an ephemeral one, see `port`), over TLS when
    given a certificate and its key."""

    def __init__(
        self,
        api: Handler,
        host: str,
        port: int,
        certfile: str | None = None,
        keyfile: str | None = None,
    ):
        self.server = ThreadingHTTPServer((host, port), _request_handler(api))
        self.server.daemon_threads = True
        if certfile:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certfile, keyfile)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]

    def start(self) -> threading.Thread:
        """Serve in a background thread."""
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
