#!/usr/bin/env python3
"""Stale answers: one scenario matrix run through requests-cache, hishel and Mend, printed as one table.

Mend's last-known-good store serves, when a request fails transiently (no connection, a timeout, a transient 5xx,
429), the last good answer it stored for the signed-in user, marked stale with its age, and forgets a user's answers
when that user signs out. This script puts two Python HTTP caches through the same scenarios, with their default
settings and with their best settings for the job, and Mend through a runner process, and prints what each did.

Usage:
    stale-peer-matrix.py [--mend-runner PATH] [--mend-label LABEL] [--json PATH] [--paths /graph/me,/rest/me]

    --mend-runner PATH   Mend's runner (scripts/test passes .build/debug/MendStaleMatrixClient). Missing or not
                         given: the Mend column says "not run" and the script says why. The fake runner beside this
                         script (stale-peer-matrix-fake-runner.py) speaks the same protocol: use it with
                         --mend-label fake to test this driver without Swift.
    --json PATH          also write every cell's outcome (and what each client answered) as JSON.

Exit status: 0, unless the Mend column shows a defect (below); 2 for a usage error. The peers' defects are reported,
never fail the run. A peer that cannot be imported (pip failed) gets a "not run" column.

The scenario server
-------------------
A ThreadingHTTPServer on 127.0.0.1, port 0, in a thread; one per client lane, so that the lanes run side by side
without sharing the failure mode (each lane is sequential, and so deterministic). HTTP/1.0: one connection per request.

    GET /graph/me   {"id":"id-<user>","name":"<user>"} for the bearer token's user (tok-<user> is <user>'s token),
                    Cache-Control: private, no-cache, no-store, must-revalidate; Pragma: no-cache;
                    Expires: Sat, 01 Jan 2000 00:00:00 GMT (what a Graph-style API answers).
    GET /rest/me    the same body, Cache-Control: private, max-age=60, stale-if-error=86400; Vary: Authorization.
    POST /_control  {"mode": M, "backdate": S} selects the failure mode for the next requests and, for the "ok"
                    answers, a Date header S seconds in the past. A change of mode releases held connections.

Modes: ok (200 for a known token, 401 for none), connection-drop (the socket is closed without an answer), timeout
(the answer is held until the mode changes, at most 5 s, then the socket is closed without one; clients wait 0.5 s),
503, 429 (Retry-After: 1), 401 (WWW-Authenticate: Bearer error="invalid_token"), 403, 400 (a validation error),
session-ended (401 with {"error":{"code":"session/11","message":"The session was logged out."}}, Mend's error shape;
a peer sees just a 401).

The matrix
----------
Cells: path (/graph/me, /rest/me) x failure kind (the modes above; "ok" is the control row) x entry age x who asks.
Every cell starts from an empty cache (a new session / storage; a new pair of users in Mend's runner, which is one
process per run), stores an answer as alice (mode ok), makes it older, changes who is signed in, selects the failure
mode and asks once more. Each cell has its own users (alice-N, bob-N), so no cell can see another's entries.

Ages: fresh = just stored (0 s); stale = 300 s old: past /rest/me's freshness (60 s; /graph/me has none) and within
the allowed staleness (600 s: Mend's maxStale, the best settings' stale_if_error / ttl); expired = 3600 s old, past
both. No client is made to wait that long; each is made older by its own means:
  - requests-cache: the stored response's expiration moved back by the age with the cache's own public
    reset_expiration() (BaseCache.reset_expiration, "set a new expiration value on existing cache items"); an entry
    with no expiration (the default settings: expire_after=-1, never expires) has nothing that ages, and requests-cache
    looks at nothing else, so its three age classes are the same just-stored entry.
  - hishel, RFC 9111 mode: the stored answer's Date header is back-dated by the age (the server's "backdate"): hishel
    computes an entry's age as now - Date (get_age).
  - hishel, non-RFC mode (its default): it has no freshness, only the storage's TTL; with no TTL (the defaults) nothing
    ages, so the three classes are the same just-stored entry. With a TTL (best settings: 600 s), fresh and stale are
    the same live entry, and expired is an entry stored with a per-request TTL override of 0.01 s (the "caching"
    request extension, documented as overriding the transport's config) and asked for 0.02 s later: a TTL run out.
  - Mend: {"op":"advance","seconds":AGE} after the answer was stored (the runner's clock).

Who asks: same-user (alice again); another-user (the app switches to bob in the same session object, same cache, no
sign-out: peers swap the Authorization header, Mend logs bob in); after-sign-out (alice signs out and the app asks
with no user: peers drop the token, and with their best settings also purge what the library offers a purge for,
requests-cache's cache.clear() and, for hishel, removing the app's keys' entries through the storage's get_entries /
remove_entry; the defaults purge nothing, as an app that only drops the token would); signed-in-again (alice signs
out, as above, and signs in again: shows whether the sign-out forgot her answers).

The clients (columns)
---------------------
  requests-cache default   CachedSession(backend="memory") otherwise as shipped: cache_control=False,
                           expire_after=-1 (never expires), stale_if_error=False, Authorization in the default
                           ignored_parameters (so not in the key).
  requests-cache best      cache_control=False (Graph's no-store would otherwise keep nothing), expire_after=1 ms
                           (stored, then asked of the network every time: 0 would not store an answer without a
                           validator), stale_if_error=600, allowable_codes=(200,), key_fn = the library's key plus
                           the app's signed-in user; sign-out: cache.clear(). Authorization stays redacted (not stored),
                           so a "Vary: Authorization" answer is never reused (requests-cache's documented rule).
  requests-cache RFC       cache_control=True, stale_if_error=600, match_headers=["Authorization"],
                           ignored_parameters=() (without that, match_headers has no effect: the default
                           ignored_parameters strip Authorization before matching; the cost is the bearer token kept
                           in the store); sign-out: cache.clear().
  hishel default           hishel.httpx.CacheClient(storage=SqliteStorage(a temporary file)): rfc=False, key =
                           method and URL, no TTL.
  hishel best              rfc=False (RFC mode keeps nothing for no-store), key = the user and the URL (the "caching"
                           request extension), storage default_ttl=600; sign-out: the app's keys' entries removed.
                           hishel 2 has no stale-if-error: a live entry is served without asking the network.
  hishel RFC               rfc=CacheOptions(shared=False, allow_stale=True), key = the user and the URL; sign-out as
                           hishel best. allow_stale serves a stale entry without revalidation, without a bound.
  Mend                     the runner: /graph/me with cacheMode "snapshot", /rest/me with "http"; maxStale 600,
                           timeout 0.5.

Outcomes
--------
  served-fresh   an answer from the network for the user who asked.
  served-stale   an answer from the client's store (requests-cache from_cache, hishel's caching extension
                 from_cache, the runner's "stale"): during a failure a stored answer stood in for it; in an "ok" row
                 the store answered instead of the network.
  other-user     the body is someone else's than the signed-in user's (after sign-out: anyone's) - the defect.
  error          the failure surfaced (an exception, or a non-200 answer).
  setup-failed   the first, storing request did not get alice's answer from the network.
  not run        the client was not available.

Mend's defects (exit 1): other-user anywhere; any served answer after sign-out; served-stale for a signed-in-again
user (the sign-out did not purge); served-stale for 401, 403, 400 or session-ended; served-stale for an expired entry
(older than maxStale); served-stale in an "ok" row (nothing failed); setup-failed; the runner failing.

Runner protocol (JSON lines on stdin/stdout, one answer line per request line), started as `PATH <baseURL>`:
  {"op":"login","user":"alice","token":"tok-alice"}            -> {"ok":true}
  {"op":"get","path":"/graph/me","maxStale":600,"timeout":0.5,"cacheMode":"snapshot"}
      -> {"status":200,"body":"<text>","stale":false,"ageSeconds":null,"error":null}
         stale: {"status":200,"body":...,"stale":true,"ageSeconds":300,"error":"<code it stands in for>"}
         failure: {"status":null,"body":null,"stale":false,"ageSeconds":null,"error":"<code>"}
  {"op":"advance","seconds":N} -> {"ok":true};  {"op":"signout"} -> {"ok":true};  {"op":"quit"}

Only 127.0.0.1 is contacted; every wait is bounded. The whole run takes about 15-30 s.
"""
from __future__ import annotations

import argparse
import dataclasses
import email.utils
import hashlib
import json
import logging
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FRESHNESS_SECONDS = 60  # /rest/me's max-age
ALLOWED_STALENESS_SECONDS = 600  # Mend's maxStale; the best settings' stale_if_error and TTL
CLIENT_TIMEOUT_SECONDS = 0.5
HOLD_LIMIT_SECONDS = 5.0  # a held ("timeout") answer is released at the latest after this
RUNNER_OP_TIMEOUT_SECONDS = 15.0  # the longest the driver waits for one runner answer
RUNNER_START_TIMEOUT_SECONDS = 60.0  # the first answer (a cold start of a debug build can be slow)
HISHEL_EXPIRED_TTL_SECONDS = 0.01

PATHS = ["/graph/me", "/rest/me"]
KINDS = ["ok", "connection-drop", "timeout", "503", "429", "401", "403", "400", "session-ended"]
TRANSIENT_KINDS = {"connection-drop", "timeout", "503", "429"}
NEVER_STALE_KINDS = {"401", "403", "400", "session-ended"}
AGES = {"fresh": 0, "stale": 300, "expired": 3600}
WHO = ["same-user", "another-user", "after-sign-out", "signed-in-again"]

# Only 127.0.0.1 is contacted: no client here takes a proxy from the environment.
NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

GRAPH_HEADERS = [
    ("Cache-Control", "private, no-cache, no-store, must-revalidate"),
    ("Pragma", "no-cache"),
    ("Expires", "Sat, 01 Jan 2000 00:00:00 GMT"),
]
REST_HEADERS = [
    ("Cache-Control", f"private, max-age={FRESHNESS_SECONDS}, stale-if-error=86400"),
    ("Vary", "Authorization"),
]


# --- The scenario server ---------------------------------------------------------------------------------------------


class ScenarioServer:
    """Graph-like and REST-like /me endpoints whose failure mode is chosen by POST /_control."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mode = "ok"
        self._backdate = 0
        self._release = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def state(self) -> tuple[str, int, threading.Event]:
        with self._lock:
            return self._mode, self._backdate, self._release

    def apply(self, mode: str, backdate: int) -> None:
        with self._lock:
            released = self._release
            self._release = threading.Event()
            self._mode, self._backdate = mode, backdate
        released.set()  # held connections of the previous mode end now

    def control(self, mode: str, backdate: int = 0) -> None:
        """Selects the mode through the control endpoint, as any client of the server would."""
        request = urllib.request.Request(
            self.base_url + "/_control",
            data=json.dumps({"mode": mode, "backdate": backdate}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with NO_PROXY_OPENER.open(request, timeout=5) as answer:
            answer.read()

    def close(self) -> None:
        with self._lock:
            self._release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _make_handler(server: ScenarioServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        server_version = "stale-peer-matrix"

        def setup(self):
            super().setup()
            # Without it, a client's delayed ACK holds each small answer back by about 40 ms (Nagle).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format, *args):  # noqa: A002 (the base class's name)
            pass

        def _answer(self, status: int, body: dict, headers=(), backdate: int = 0) -> None:
            data = json.dumps(body).encode()
            self.send_response_only(status)
            self.send_header("Server", self.server_version)
            self.send_header("Date", email.utils.formatdate(time.time() - backdate, usegmt=True))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _drop(self) -> None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def do_POST(self):
            if self.path != "/_control":
                return self._answer(404, {"error": {"code": "not-found", "message": self.path}})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                wanted = json.loads(self.rfile.read(length) or b"{}")
                mode, backdate = wanted["mode"], int(wanted.get("backdate", 0))
            except (ValueError, KeyError, TypeError) as problem:
                return self._answer(400, {"error": {"code": "control", "message": str(problem)}})
            if mode not in KINDS:
                return self._answer(400, {"error": {"code": "control", "message": f"unknown mode {mode}"}})
            server.apply(mode, backdate)
            self._answer(200, {"mode": mode, "backdate": backdate})

        def do_GET(self):
            if self.path not in ("/graph/me", "/rest/me"):
                return self._answer(404, {"error": {"code": "not-found", "message": self.path}})
            mode, backdate, release = server.state()
            if mode == "connection-drop":
                return self._drop()
            if mode == "timeout":
                release.wait(HOLD_LIMIT_SECONDS)
                return self._drop()
            if mode == "503":
                return self._answer(503, {"error": {"code": "unavailable", "message": "Try again later."}})
            if mode == "429":
                return self._answer(
                    429, {"error": {"code": "rate-limited", "message": "Too many requests."}}, [("Retry-After", "1")]
                )
            if mode == "401":
                return self._answer(
                    401,
                    {"error": {"code": "invalid_token", "message": "The access token is not valid."}},
                    [("WWW-Authenticate", 'Bearer error="invalid_token"')],
                )
            if mode == "403":
                return self._answer(403, {"error": {"code": "forbidden", "message": "Not allowed."}})
            if mode == "400":
                return self._answer(
                    400, {"error": {"code": "validation", "message": "fields: unknown field 'nmae'."}}
                )
            if mode == "session-ended":
                return self._answer(
                    401, {"error": {"code": "session/11", "message": "The session was logged out."}}
                )
            user = _user_for(self.headers.get("Authorization"))
            if user is None:
                return self._answer(
                    401,
                    {"error": {"code": "invalid_token", "message": "No access token."}},
                    [("WWW-Authenticate", 'Bearer error="invalid_token"')],
                )
            headers = GRAPH_HEADERS if self.path == "/graph/me" else REST_HEADERS
            self._answer(200, {"id": f"id-{user}", "name": user}, headers, backdate)

    return Handler


def _user_for(authorization: str | None) -> str | None:
    if not authorization or not authorization.startswith("Bearer tok-"):
        return None
    return authorization[len("Bearer tok-") :] or None


# --- Answers and outcomes --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Answer:
    status: int | None
    body: str | None
    from_store: bool
    error: str | None

    def summary(self) -> dict:
        return dataclasses.asdict(self)


def body_owner(body: str | None) -> str | None:
    try:
        return json.loads(body).get("name")
    except (TypeError, ValueError, AttributeError):
        return None


def classify(answer: Answer, signed_in: str | None) -> str:
    if answer.status == 200 and answer.body is not None:
        if body_owner(answer.body) != signed_in:
            return "other-user"
        return "served-stale" if answer.from_store else "served-fresh"
    return "error"


@dataclasses.dataclass(frozen=True)
class Cell:
    index: int
    path: str
    kind: str
    age: str
    who: str

    @property
    def id(self) -> str:
        return f"{self.path} {self.kind} {self.age} {self.who}"


def matrix(paths: list[str]) -> list[Cell]:
    cells = []
    for path in paths:
        for kind in KINDS:
            for age in AGES:
                for who in WHO:
                    cells.append(Cell(len(cells), path, kind, age, who))
    return cells


# --- The clients -----------------------------------------------------------------------------------------------------


class ClientNotAvailable(Exception):
    pass


class RequestsCacheClient:
    """requests-cache's CachedSession as an app would hold it: one session, the token in its headers."""

    def __init__(self, label: str, variant: str) -> None:
        try:
            import requests  # noqa: F401
            import requests_cache  # noqa: F401
        except ImportError as problem:
            raise ClientNotAvailable(f"requests-cache is not installed ({problem})") from problem
        self.label, self.variant = label, variant
        self.base_url = ""
        self.user: str | None = None
        self.session = None

    def open(self, base_url: str, scratch: Path) -> None:
        self.base_url = base_url

    def start_cell(self, cell: Cell) -> None:
        from requests_cache import CachedSession
        from requests_cache.cache_keys import create_key

        self.user = None

        def key_with_user(request, **kwargs):
            return f"{create_key(request, **kwargs)}:{self.user}"

        if self.variant == "default":
            settings = {}
        elif self.variant == "best":
            settings = dict(
                cache_control=False,
                expire_after=timedelta(milliseconds=1),
                stale_if_error=ALLOWED_STALENESS_SECONDS,
                allowable_codes=(200,),
                key_fn=key_with_user,
            )
        else:  # "rfc"
            settings = dict(
                cache_control=True,
                stale_if_error=ALLOWED_STALENESS_SECONDS,
                match_headers=["Authorization"],
                ignored_parameters=(),
            )
        self.session = CachedSession(backend="memory", **settings)
        self.session.trust_env = False  # no proxy from the environment

    def sign_in(self, user: str) -> None:
        self.user = user
        self.session.headers["Authorization"] = f"Bearer tok-{user}"

    def sign_out(self) -> None:
        self.user = None
        self.session.headers.pop("Authorization", None)
        if self.variant != "default":
            self.session.cache.clear()

    def get(self, path: str) -> Answer:
        import requests

        try:
            answer = self.session.get(self.base_url + path, timeout=CLIENT_TIMEOUT_SECONDS)
        except requests.RequestException as problem:
            return Answer(None, None, False, type(problem).__name__)
        error = None if answer.status_code == 200 else f"HTTP {answer.status_code}"
        return Answer(answer.status_code, answer.text, bool(getattr(answer, "from_cache", False)), error)

    def store_and_age(self, server: ScenarioServer, path: str, age: int) -> Answer:
        stored = self.get(path)
        if age:
            entries = list(self.session.cache.filter())
            if entries and entries[0].expires is not None:
                self.session.cache.reset_expiration(entries[0].expires - timedelta(seconds=age))
        return stored

    def end_cell(self) -> None:
        self.session.close()

    def close(self) -> None:
        pass


class HishelClient:
    """hishel 2's httpx CacheClient as an app would hold it: one client, the token in its headers."""

    def __init__(self, label: str, variant: str) -> None:
        try:
            import hishel  # noqa: F401
            import hishel.httpx  # noqa: F401
            import httpx  # noqa: F401
        except ImportError as problem:
            raise ClientNotAvailable(f"hishel (with httpx) is not installed ({problem})") from problem
        self.label, self.variant = label, variant
        self.base_url = ""
        self.scratch = Path()
        self.user: str | None = None
        self.keys_used: set[str] = set()
        self.client = None
        self.storage = None
        self.tls = None  # one TLS context for every cell's client (unused on http://; loading it takes ~20 ms)

    @property
    def keyed(self) -> bool:
        return self.variant != "default"

    @property
    def ttl(self) -> float | None:
        return ALLOWED_STALENESS_SECONDS if self.variant == "best" else None

    def open(self, base_url: str, scratch: Path) -> None:
        import ssl

        self.base_url, self.scratch = base_url, scratch
        self.tls = ssl.create_default_context()

    def start_cell(self, cell: Cell) -> None:
        import hishel
        import hishel.httpx

        self.user = None
        self.keys_used = set()
        self.storage = hishel.SqliteStorage(
            database_path=self.scratch / f"hishel-{self.variant}-{cell.index}.db", default_ttl=self.ttl
        )
        rfc = hishel.CacheOptions(shared=False, allow_stale=True) if self.variant == "rfc" else False
        self.client = hishel.httpx.CacheClient(
            storage=self.storage, rfc=rfc, timeout=CLIENT_TIMEOUT_SECONDS, verify=self.tls, trust_env=False
        )

    def _key(self, path: str) -> str:
        return hashlib.sha256(f"{self.user}\nGET\n{self.base_url}{path}".encode()).hexdigest()

    def sign_in(self, user: str) -> None:
        self.user = user
        self.client.headers["Authorization"] = f"Bearer tok-{user}"

    def sign_out(self) -> None:
        self.user = None
        self.client.headers.pop("Authorization", None)
        if self.keyed:
            for key in self.keys_used:
                for entry in self.storage.get_entries(key):
                    self.storage.remove_entry(entry.id)
            self.keys_used.clear()

    def get(self, path: str, ttl: float | None = None) -> Answer:
        import httpx

        caching = {}
        if self.keyed:
            caching["key"] = self._key(path)
            self.keys_used.add(caching["key"])
        if ttl is not None:
            caching["ttl"] = ttl
        try:
            answer = self.client.get(self.base_url + path, extensions={"caching": caching} if caching else None)
        except httpx.HTTPError as problem:
            return Answer(None, None, False, type(problem).__name__)
        from_store = bool(answer.extensions.get("caching", {}).get("from_cache", False))
        error = None if answer.status_code == 200 else f"HTTP {answer.status_code}"
        return Answer(answer.status_code, answer.text, from_store, error)

    def store_and_age(self, server: ScenarioServer, path: str, age: int) -> Answer:
        if self.variant == "rfc":
            server.control("ok", backdate=age)  # hishel's age is now - Date
            try:
                return self.get(path)
            finally:
                server.control("ok")
        if self.ttl is not None and age > self.ttl:
            stored = self.get(path, ttl=HISHEL_EXPIRED_TTL_SECONDS)
            time.sleep(2 * HISHEL_EXPIRED_TTL_SECONDS)
            return stored
        return self.get(path)  # non-RFC mode: an entry within its TTL (or with none) does not age

    def end_cell(self) -> None:
        self.client.close()  # closes the storage too

    def close(self) -> None:
        pass


class RunnerFailed(Exception):
    pass


class MendRunnerClient:
    """Mend through the runner process (JSON lines), one process for the whole run."""

    def __init__(self, label: str, runner: str) -> None:
        self.label, self.runner = label, runner
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.user: str | None = None
        self.first_call = True

    def open(self, base_url: str, scratch: Path) -> None:
        self.process = subprocess.Popen(
            [self.runner, base_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        reader = threading.Thread(target=self._read, daemon=True)
        reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def call(self, request: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            raise RunnerFailed(f"the runner is not running (exit {self.process.poll() if self.process else None})")
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except OSError as problem:
            raise RunnerFailed(f"could not write to the runner: {problem}") from problem
        wait = RUNNER_START_TIMEOUT_SECONDS if self.first_call else RUNNER_OP_TIMEOUT_SECONDS
        self.first_call = False
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            raise RunnerFailed(f"no answer within {wait:.0f} s to {json.dumps(request)}") from None
        if line is None:
            raise RunnerFailed(f"the runner closed its output after {json.dumps(request)}")
        try:
            return json.loads(line)
        except ValueError as problem:
            raise RunnerFailed(f"not JSON from the runner: {line.strip()!r}") from problem

    def _expect_ok(self, request: dict) -> None:
        answer = self.call(request)
        if answer.get("ok") is not True:
            raise RunnerFailed(f"{json.dumps(request)} answered {json.dumps(answer)}")

    def start_cell(self, cell: Cell) -> None:
        self.user = None

    def sign_in(self, user: str) -> None:
        self.user = user
        self._expect_ok({"op": "login", "user": user, "token": f"tok-{user}"})

    def sign_out(self) -> None:
        self.user = None
        self._expect_ok({"op": "signout"})

    def get(self, path: str) -> Answer:
        answer = self.call(
            {
                "op": "get",
                "path": path,
                "maxStale": ALLOWED_STALENESS_SECONDS,
                "timeout": CLIENT_TIMEOUT_SECONDS,
                "cacheMode": "snapshot" if path.startswith("/graph/") else "http",
            }
        )
        if not isinstance(answer, dict) or "status" not in answer:
            raise RunnerFailed(f"a get answered {json.dumps(answer)}")
        return Answer(answer.get("status"), answer.get("body"), bool(answer.get("stale")), answer.get("error"))

    def store_and_age(self, server: ScenarioServer, path: str, age: int) -> Answer:
        stored = self.get(path)
        if age:
            self._expect_ok({"op": "advance", "seconds": age})
        return stored

    def end_cell(self) -> None:
        pass

    def close(self) -> None:
        if self.process is None:
            return
        try:
            if self.process.poll() is None:
                self.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.process.stdin.flush()
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


# --- Running a lane --------------------------------------------------------------------------------------------------


def run_cell(client, server: ScenarioServer, cell: Cell) -> dict:
    alice, bob = f"alice-{cell.index}", f"bob-{cell.index}"
    server.control("ok")
    client.start_cell(cell)
    try:
        client.sign_in(alice)
        stored = client.store_and_age(server, cell.path, AGES[cell.age])
        if classify(stored, alice) != "served-fresh":
            return {"outcome": "setup-failed", "stored": stored.summary()}
        signed_in: str | None = alice
        if cell.who == "another-user":
            client.sign_in(bob)
            signed_in = bob
        elif cell.who in ("after-sign-out", "signed-in-again"):
            client.sign_out()
            signed_in = None
            if cell.who == "signed-in-again":
                client.sign_in(alice)
                signed_in = alice
        server.control(cell.kind)
        answer = client.get(cell.path)
        server.control("ok")  # releases a held connection
        return {"outcome": classify(answer, signed_in), "answer": answer.summary()}
    finally:
        client.end_cell()


def run_lane(client, cells: list[Cell], results: dict, notes: dict, durations: dict) -> None:
    started = time.monotonic()
    server = ScenarioServer()
    try:
        with tempfile.TemporaryDirectory(prefix="stale-peer-matrix-") as scratch:
            try:
                client.open(server.base_url, Path(scratch))
                for cell in cells:
                    results[(client.label, cell.id)] = run_cell(client, server, cell)
            except RunnerFailed as problem:
                notes[client.label] = f"the runner failed: {problem}"
                for cell in cells:
                    results.setdefault((client.label, cell.id), {"outcome": "runner-failed"})
            finally:
                client.close()
    except Exception as problem:  # a peer's crash is reported in its column, not fatal
        notes[client.label] = f"stopped: {type(problem).__name__}: {problem}"
        for cell in cells:
            results.setdefault((client.label, cell.id), {"outcome": "crashed"})
    finally:
        server.close()
        durations[client.label] = time.monotonic() - started


def mend_defects(cell: Cell, outcome: str) -> list[str]:
    defects = []
    if outcome in ("setup-failed", "runner-failed", "crashed"):
        defects.append(outcome)
    if outcome == "other-user":
        defects.append("another user's answer")
    if cell.who == "after-sign-out" and outcome in ("served-fresh", "served-stale"):
        defects.append("an answer after sign-out")
    if outcome == "served-stale":
        if cell.who == "signed-in-again":
            defects.append("a stored answer survived sign-out")
        if cell.kind in NEVER_STALE_KINDS:
            defects.append(f"a stale answer for {cell.kind}")
        if cell.age == "expired":
            defects.append("a stale answer older than maxStale")
        if cell.kind == "ok":
            defects.append("a stale answer while the network answered")
    return defects


# --- Main ------------------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mend-runner", help="the Mend runner executable (MendStaleMatrixClient)")
    parser.add_argument("--mend-label", default="Mend", help='the Mend column\'s name (e.g. "fake")')
    parser.add_argument("--json", help="write the results as JSON to this path")
    parser.add_argument("--paths", default=",".join(PATHS), help="comma-separated: /graph/me,/rest/me")
    arguments = parser.parse_args()

    # requests-cache logs each stale_if_error fallback as a warning with the traceback it swallowed.
    logging.getLogger("requests_cache").setLevel(logging.ERROR)
    paths = [path for path in arguments.paths.split(",") if path]
    if not paths or any(path not in PATHS for path in paths):
        parser.error(f"--paths: choose among {', '.join(PATHS)}")
    cells = matrix(paths)

    notes: dict[str, str] = {}
    clients = []
    for factory, label, variant in [
        (RequestsCacheClient, "requests-cache default", "default"),
        (RequestsCacheClient, "requests-cache best", "best"),
        (RequestsCacheClient, "requests-cache RFC", "rfc"),
        (HishelClient, "hishel default", "default"),
        (HishelClient, "hishel best", "best"),
        (HishelClient, "hishel RFC", "rfc"),
    ]:
        try:
            clients.append(factory(label, variant))
        except ClientNotAvailable as problem:
            notes[label] = f"not run: {problem}"
    labels = [
        "requests-cache default",
        "requests-cache best",
        "requests-cache RFC",
        "hishel default",
        "hishel best",
        "hishel RFC",
        arguments.mend_label,
    ]
    if not arguments.mend_runner:
        notes[arguments.mend_label] = "not run: no --mend-runner given"
    elif not (os.path.isfile(arguments.mend_runner) and os.access(arguments.mend_runner, os.X_OK)):
        notes[arguments.mend_label] = f"not run: {arguments.mend_runner} is missing or not executable"
    else:
        clients.append(MendRunnerClient(arguments.mend_label, os.path.abspath(arguments.mend_runner)))

    versions = package_versions()
    print(f"Stale answers: {len(cells)} cells x {len(labels)} clients ({versions})", flush=True)
    started = time.monotonic()
    results: dict = {}
    durations: dict = {}
    lanes = [
        threading.Thread(target=run_lane, args=(client, cells, results, notes, durations)) for client in clients
    ]
    for lane in lanes:
        lane.start()
    for lane in lanes:
        lane.join()
    elapsed = time.monotonic() - started

    for label in labels:
        for cell in cells:
            results.setdefault((label, cell.id), {"outcome": "not run"})

    print()
    print(markdown_table(cells, labels, results))
    print()
    for label in labels:
        if label in notes:
            print(f"{label}: {notes[label]}")

    defects = []
    mend_ran = any(isinstance(client, MendRunnerClient) for client in clients)
    if mend_ran:
        for cell in cells:
            outcome = results[(arguments.mend_label, cell.id)]["outcome"]
            for defect in mend_defects(cell, outcome):
                defects.append(f"{cell.id}: {outcome} ({defect})")

    print_peer_summary(cells, labels[:-1], results)

    if arguments.json:
        document = {
            "versions": versions,
            "settings": {
                "freshnessSeconds": FRESHNESS_SECONDS,
                "allowedStalenessSeconds": ALLOWED_STALENESS_SECONDS,
                "clientTimeoutSeconds": CLIENT_TIMEOUT_SECONDS,
                "ages": AGES,
            },
            "clients": labels,
            "notes": notes,
            "cells": [
                {
                    "id": cell.id,
                    "path": cell.path,
                    "kind": cell.kind,
                    "age": cell.age,
                    "who": cell.who,
                    "results": {label: results[(label, cell.id)] for label in labels},
                }
                for cell in cells
            ],
            "mendDefects": defects,
        }
        Path(arguments.json).write_text(json.dumps(document, indent=2) + "\n")
        print(f"JSON: {arguments.json}")

    lane_times = ", ".join(f"{label} {durations[label]:.1f} s" for label in labels if label in durations)
    print(f"{len(cells) * len(clients)} cell runs in {elapsed:.1f} s (lanes side by side: {lane_times})")
    if defects:
        print(f"\nFAILED: the {arguments.mend_label} column shows {len(defects)} defect(s):", file=sys.stderr)
        for defect in defects:
            print(f"  {defect}", file=sys.stderr)
        return 1
    if mend_ran:
        print(f"The {arguments.mend_label} column shows no defect.")
    return 0


def package_versions() -> str:
    from importlib import metadata

    found = []
    for name in ("requests-cache", "requests", "hishel", "httpx"):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


SHORT = {"other-user": "**other-user**"}


def markdown_table(cells: list[Cell], labels: list[str], results: dict) -> str:
    header = ["path", "failure", "age", "who"] + labels
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for cell in cells:
        row = [cell.path, cell.kind, cell.age, cell.who]
        outcomes = [results[(label, cell.id)]["outcome"] for label in labels]
        row += [SHORT.get(outcome, outcome) for outcome in outcomes]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(
        "served-fresh: from the network; served-stale: from the client's store (in an ok row: the store answered "
        "instead of the network); **other-user**: someone else's body than the signed-in user's (after sign-out: "
        "anyone's); error: the failure surfaced."
    )
    return "\n".join(lines)


def print_peer_summary(cells: list[Cell], labels: list[str], results: dict) -> None:
    print("\nPeers' findings (reported, never failing the run):")
    for label in labels:
        outcomes = [results[(label, cell.id)]["outcome"] for cell in cells]
        if all(outcome == "not run" for outcome in outcomes):
            continue
        other = sum(outcome == "other-user" for outcome in outcomes)
        after_sign_out = sum(
            results[(label, cell.id)]["outcome"] in ("served-fresh", "served-stale", "other-user")
            for cell in cells
            if cell.who == "after-sign-out"
        )
        survived = sum(
            results[(label, cell.id)]["outcome"] == "served-stale" for cell in cells if cell.who == "signed-in-again"
        )
        auth_stale = sum(
            results[(label, cell.id)]["outcome"] in ("served-stale", "other-user")
            for cell in cells
            if cell.kind in NEVER_STALE_KINDS
        )
        transient_same = [
            cell for cell in cells if cell.kind in TRANSIENT_KINDS and cell.who == "same-user" and cell.age != "expired"
        ]
        fallback = sum(results[(label, cell.id)]["outcome"] == "served-stale" for cell in transient_same)
        print(
            f"  {label}: other-user {other}; served after sign-out {after_sign_out}; survived sign-out {survived}; "
            f"stored answer for 401/403/400/session-ended {auth_stale}; "
            f"last-known-good for a transient failure (same user, fresh/stale) {fallback}/{len(transient_same)}"
        )


if __name__ == "__main__":
    sys.exit(main())
