#!/usr/bin/env python3
"""The sink oracle (issue 38): a scripted day through the built binaries, then every place a secret could land
searched for every secret the day used or minted.

The day, all on 127.0.0.1 (free ports; readiness from the ready lines): `mend emulate`, `mend-server` (SQLite in the
scratch folder, the app secret, a signing key, a token encryption key, an admin token's digest, Sign in with Apple
with the emulator's team key, its provider calls recorded into a HAR) and an OTLP/HTTP receiver
(otlp_receiver.Receiver) that both export to, with a credential in OTEL_EXPORTER_OTLP_HEADERS. Every client of the
emulator — `mend`, `mend-server`, `mend proxy`, this script — reaches it through a wiretap (below). Then:
- `mend login --headless` with PKCE through mend-server, `mend token status` (also `--json`), `mend whoami`, two
  `mend token refresh` (one `--json`), `mend sessions`; a device login (`mend login --device --backend`), then
  `mend logout`;
- `mend graph --max-stale` after a direct login: the response store's files (raw) are sinks; a stale answer through
  a 503; `mend logout` leaves no answer behind;
- a PKCE login by this script, its code replayed (refused: graph/100/36009) and an unknown code (refused);
- an id_token sign-in with the Apple-like issuer, with its authorization code (the server signs a client secret);
- `mend-server admin`: `end-session` with a reason quoting the user's refresh token and the admin token, seen by the
  user as session/17 (`mend token refresh --json`, `mend whoami`); `logout-user` with a reason quoting a token after
  `Bearer` and a refresh token (a reason is at most 200 bytes: mend-server's access tokens, about 400, cannot be
  quoted); `audit` (also `--json`);
- `mend proxy --record` in front of the emulator: `mend graph` answered 190 (`--json`, text) and 503 (`--trace`,
  `--verbose`; once retried, once for good), the REST API with its `Appacitive-Apikey` (shaped like the emulator's
  default key, so that only the header's name says it is a secret), then with a user token too;
- `mend explain`: an error body quoting a token (text, `--json`), `--status 503`, `--har` on the proxy's recording,
  on mend-server's and on a browser-style HAR written here, which `mend redact` redacts (`-o`, and to standard
  output): secrets in a page title (the URL with `#access_token=…`), a WebSocket message, a base64 body ending in `=`,
  a comment, a `redirectURL`, `postData.params`.
Every step must succeed: exit 0 with output, or, where a step is meant to fail (a Graph 190, an ended session), fail
the documented way with a message. A refusal or an empty sink fails the oracle.

The sinks (WORKDIR/day/sinks): every command's standard output and error (`mend emulate`'s and `mend proxy`'s too),
mend-server's output (its log), mend-server's and `mend proxy`'s error answers to this script, the files `mend`
writes beside its session (profile.json), the database (its raw bytes, WAL included; a text dump, sqlite3's
`iterdump`; the audit table), every HAR written (the proxy's, mend-server's provider recording, `mend redact`'s) and
every OTLP request body the receiver got, raw.

The secrets, and where each comes from (never from a sink):
- configured here: the app secret and the app token (`app id|app secret`), the signing key (`mend-server
  generate-key`, in MEND_SIGNING_KEYS), the token encryption key, the admin token (`mend-server admin new-token`: the
  one command whose job is to print one), the OTLP header credential, the REST API key; the Apple team key (the
  emulator's control API, `GET /_emulator/issuers`: the server's `.p8`);
- the software authenticator's passkeys.json (`mend passkeys add`): its private keys, read after every command;
- the client's token store (each state folder's session.json, read after every command: it may hold tokens, and is
  no sink): mend-server's access tokens and `mrt_` refresh tokens, as they rotate;
- this script's own logins: their PKCE verifiers, state, nonce and codes, and the sessions mend-server answered;
- the emulator's control API: provider tokens (`POST /_emulator/tokens`), the Apple id_token and authorization code
  (`POST /_emulator/issuers/apple/native`), the device login's user code (`GET /_emulator/device`);
- the wiretap: a loopback reverse proxy of this script's in front of the emulator, which keeps every exchange in
  memory (never on disk: no sink) and learns each credential on the wire — what only `mend` or `mend-server` ever
  held: the state, nonce, PKCE verifier and code of `mend login`, the device code, the provider tokens mend-server
  got, its `appsecret_proof`s, the ES256 client secret it signed for Apple, the Apple issuer's tokens. The device
  login's client token (`app id|client token`) is left out: it is not a secret (`mend login --help`).
Secrets shorter than 8 characters are not searched (the report counts them by kind).

The search: every sink, as bytes, for every secret raw, URL-encoded (also a mix of percent-encoding, through a
percent-decoded view), JSON-escaped, base64 and base64url (with and without padding, and at every alignment inside a
longer base64 text: a Basic header's `x:secret` or `secret:x`, a base64 body), hex (lower and upper case). A finding
is "<secret kind> (<encoding>) in <sink>" (with the JSON path or line), never the secret. Three sinks hold a secret
by design (BY_DESIGN): `mend login --device`'s output, the user code; `mend emulate`'s banner, its app's secret;
`mend token print`'s standard output, the access token (and nothing on its standard error). The console exporters'
spans and metric points (`OTEL_*_EXPORTER=console`, on standard error) are a sink like the others. Zero findings is
the pass.

The positive control, every run: a copy of each sink with every secret written into it in every encoding (and
inside Basic headers); the search must find each of them, in the encoding it was written in, in every copy.

The second scanner: PyPI's detect-secrets (`detect-secrets scan --all-files`) over a text view of each sink, one value
per line under the field it sits in: `table.column` for the database, a JSON path for HARs (base64 bodies decoded),
JSON output, answers and decoded OTLP, and for text each line as it is, then each of its words under its `key=`,
`key:` or the words before it. Its entropy detectors read quoted strings only, so each value is quoted.
detect-secrets' own baseline (`scan --baseline`, then `audit`) keys each finding by file name and the secret's hash,
and every secret and most file names here are new each run; so its findings are matched against
sink_oracle_baseline.json instead: allowances by sink, detector and field (globs), each with its reason (a hash, a
public key, a request or trace id, prose). A finding nothing allows fails, and so does one whose hash is a day's
secret's.

Usage: sink_oracle.py <path to the mend binary> <path to the mend-server binary> <scratch folder>
"""
import base64
import fnmatch
import functools
import hashlib
import http.client
import http.server
import json
import os
import re
import secrets
import shutil
import sqlite3
import string
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse

import requests
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from emulator_process import Emulator, Results, expect, start_mend_server, stop_process
from otlp_receiver import Receiver, environment as otlp_environment

APP_ID = "111111111111111"
VERSION = "v25.0"
ALICE, BOB, CAROL = "100000000000001", "100000000000002", "100000000000003"
APPLE_NATIVE_CLIENT = "com.example.mend"
MINIMUM_LENGTH = 8
BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sink_oracle_baseline.json")

# Secrets a sink holds by design: (secret kind, sink glob, why).
BY_DESIGN = [
    ("user code", "sinks/commands/*-login-device.*",
     "mend login --device shows the code to the person, who enters it on another device"),
    ("app secret", "sinks/emulator.stdout",
     "mend emulate's banner names its emulated app's secret (docs/emulator.md): a test tool's own fake app"),
    ("JWT access token", "sinks/commands/*-token-print.stdout",
     "mend token print writes the session's access token alone to standard output, for scripts (as gh auth token "
     "does; its help says it is a secret)"),
]


# --- The secrets ------------------------------------------------------------------------------------------------------

class Secrets:
    """Every secret of the day: its kind, which the report names, and where it came from."""

    def __init__(self):
        self.kinds = {}
        self.sources = {}
        self.short = {}

    def add(self, kind, value, source):
        if not isinstance(value, str) or not value or value in self.kinds:
            return
        if len(value) < MINIMUM_LENGTH:
            self.short.setdefault(kind, set()).add(value)
            return
        self.kinds[value] = kind
        self.sources[value] = source

    def scrub(self, text):
        """`text` with every known secret replaced by its kind: what this script prints."""
        for value in sorted(self.kinds, key=len, reverse=True):
            text = text.replace(value, f"<{self.kinds[value]}>")
        return text


SECRETS = Secrets()


class ScrubbedResults(Results):
    """Results whose failure messages never show a secret (an exception may quote a URL with a code in it), with
    each check's time."""

    def run(self, name, function, *args):
        started = time.monotonic()
        try:
            function(*args)
        except Exception as error:  # noqa: BLE001 - report every failure and go on
            self.failed += 1
            print(SECRETS.scrub(f"FAIL {name}: {type(error).__name__}: {error} ({time.monotonic() - started:.1f} s)"),
                  flush=True)
        else:
            self.passed += 1
            print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)


def token_kind(value, name):
    """The kind of a bearer-like credential found under `name`."""
    if value.startswith("mrt_"):
        return "mend-server refresh token (mrt_)"
    if value.startswith("mend_admin_"):
        return "admin token (mend_admin_)"
    if value.startswith("EAA"):
        return "provider token (EAA…)"
    if "|" in value:
        return "app token (id|secret)"
    if value.count(".") == 2 and value.startswith("eyJ"):
        return "id_token" if name in ("id_token", "authentication_token") else "JWT access token"
    return f"issuer {name.replace('_', ' ')}"


# The credential parameters the wiretap learns (query, form, JSON at any depth, a redirect's query and fragment).
WIRE_NAMES = {
    "code_verifier": "PKCE verifier", "state": "state", "nonce": "nonce", "client_secret": "client secret",
    "appsecret_proof": "appsecret_proof", "device_code": "device code", "user_code": "user code",
    "authorization_code": "authorization code", "signed_request": "signed_request", "password": "password",
    "client_assertion": "client assertion",
}
WIRE_TOKENS = {"access_token", "input_token", "fb_exchange_token", "provider_token", "token", "refresh_token",
               "id_token", "subject_token", "authentication_token"}


def learn(name, value, source, path="", client_token=None, in_json=False):
    """Adds `value` when `name` is a credential parameter. A JSON member `code` is a device code in a device login's
    answer, and an error code (a number, or a short name) anywhere else."""
    if not isinstance(value, str):
        return
    if name in WIRE_TOKENS:
        if client_token and value.endswith("|" + client_token):
            return  # the device login's client token: not a secret (mend login --help)
        SECRETS.add(token_kind(value, name), value, source)
    elif name == "code":
        if "device" in path:
            SECRETS.add("device code", value, source)
        elif not in_json:
            SECRETS.add("authorization code", value, source)
    elif name == "client_secret" and value.startswith("eyJ"):
        SECRETS.add("Apple client secret (ES256 JWT)", value, source)
    elif name in WIRE_NAMES:
        SECRETS.add(WIRE_NAMES[name], value, source)


def walk_json(value, visit, key=""):
    if isinstance(value, dict):
        for name, item in value.items():
            walk_json(item, visit, name)
    elif isinstance(value, list):
        for item in value:
            walk_json(item, visit, key)
    else:
        visit(key, value)


def store_tokens(directory):
    """{kind: token} of a state folder's session.json: the client's token store, which may hold them (no sink)."""
    path = os.path.join(directory, "session.json")
    if not os.path.exists(path):
        return {}
    with open(path) as file:
        stored = json.load(file)
    tokens = {}

    def visit(name, value):
        if isinstance(value, str) and "token" in name.lower() and len(value) >= 20:
            tokens[token_kind(value, name)] = value

    walk_json(stored, visit)
    return tokens


def passkey_keys(directory):
    """The private keys of a state folder's passkeys.json (the software authenticator's; read, never a sink)."""
    try:
        with open(os.path.join(directory, "passkeys.json")) as file:
            entries = json.load(file).get("credentials", [])
    except (OSError, ValueError):
        return []
    return [entry["private_key"] for entry in entries if isinstance(entry.get("private_key"), str)]


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


# --- The wiretap ------------------------------------------------------------------------------------------------------

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
              "content-length"}


class Wiretap:
    """A loopback reverse proxy in front of the emulator. It forwards every exchange unchanged (the Host header too,
    so that the addresses the emulator writes — issuers, verification URIs, paging links — name the wiretap) and keeps
    it in memory, where `learn_all` reads the secrets that only ever travelled on the wire."""

    def __init__(self, upstream):
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream = (parsed.hostname, parsed.port)
        self.exchanges = []
        self.lock = threading.Lock()
        tap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                tap.forward(self)

            do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def read_body(handler):
        if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += handler.rfile.read(size)
                handler.rfile.readline()
        return handler.rfile.read(int(handler.headers.get("Content-Length", "0")))

    def forward(self, handler):
        body = self.read_body(handler)
        headers = [(name, value) for name, value in handler.headers.items() if name.lower() not in HOP_BY_HOP]
        connection = http.client.HTTPConnection(*self.upstream, timeout=60)
        connection.putrequest(handler.command, handler.path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers:
            connection.putheader(name, value)
        if body or handler.command in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        response = connection.getresponse()
        answer = response.read()
        response_headers = [(n, v) for n, v in response.getheaders() if n.lower() not in HOP_BY_HOP]
        connection.close()
        handler.send_response_only(response.status, response.reason)
        for name, value in response_headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(answer)
        with self.lock:
            self.exchanges.append((handler.command, handler.path, headers, body, response.status, response_headers,
                                   answer))

    def learn_all(self, client_token):
        """Every credential on the wire: parameters of URLs, forms and JSON bodies both ways, a redirect's query and
        fragment, Authorization headers."""
        with self.lock:
            exchanges = list(self.exchanges)
        for method, path, headers, body, _, response_headers, answer in exchanges:
            route = urllib.parse.urlsplit(path).path
            if route.startswith("/_emulator/"):
                continue  # this script's own control calls (a nonce's SHA-256 there is public: the id_token holds it)
            source = f"the wiretap ({method} {route})"
            pairs = urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query)
            content_type = dict((n.lower(), v) for n, v in headers).get("content-type", "")
            if "x-www-form-urlencoded" in content_type:
                pairs += urllib.parse.parse_qsl(body.decode("utf-8", "replace"))
            for name, value in headers:
                if name.lower() == "authorization" and " " in value:
                    scheme, credential = value.split(" ", 1)
                    if scheme.lower() == "basic":
                        password = base64.b64decode(credential).decode().partition(":")[2]
                        pairs.append(("client_secret", urllib.parse.unquote(password)))
                    else:
                        pairs.append(("access_token", credential))
            for name, value in response_headers:
                if name.lower() == "location":
                    location = urllib.parse.urlsplit(value)
                    pairs += urllib.parse.parse_qsl(location.query) + urllib.parse.parse_qsl(location.fragment)
            for name, value in pairs:
                learn(name, value, source, route, client_token)
            for text in (body, answer):
                try:
                    document = json.loads(text)
                except ValueError:
                    continue
                walk_json(document, lambda name, value: learn(name, value, source, route, client_token, True))


# --- Running the day --------------------------------------------------------------------------------------------------

class Day:
    """Runs the day's commands and keeps every sink. Each command's standard output and error become
    sinks/commands/NN-label.stdout and .stderr."""

    def __init__(self, root, mend, mend_server, environment):
        self.root = root
        self.sinks = os.path.join(root, "sinks")
        self.mend = mend
        self.mend_server = mend_server
        self.environment = environment
        self.count = 0
        self.state_directories = []
        for folder in ("commands", "har", "database", "otlp", "answers", "files"):
            os.makedirs(os.path.join(self.sinks, folder), exist_ok=True)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def sink(self, relative, data):
        """Writes a sink (bytes or text) under sinks/."""
        path = os.path.join(self.sinks, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(data if isinstance(data, bytes) else data.encode())
        return path

    def run(self, label, arguments, binary=None, expected=0, environment=None, timeout=120):
        """Runs one command; checks its exit status and that it printed something; keeps both streams as sinks and
        reads the token stores again (a refresh rotates the refresh token)."""
        self.count += 1
        name = f"{self.count:02d}-{label}"
        run = subprocess.run([binary or self.mend, *arguments], env=environment or self.environment,
                             capture_output=True, timeout=timeout)
        self.sink(f"commands/{name}.stdout", run.stdout)
        self.sink(f"commands/{name}.stderr", run.stderr)
        for directory in self.state_directories:
            for kind, token in store_tokens(directory).items():
                SECRETS.add(kind, token, f"the token store ({os.path.basename(directory)}/session.json)")
            for key in passkey_keys(directory):
                SECRETS.add("passkey private key", key, f"the software authenticator ({os.path.basename(directory)}"
                            "/passkeys.json)")
        expect(run.returncode == expected,
               f"{label} exited {run.returncode}, not {expected} (see sinks/commands/{name}.stderr)")
        expect(run.stdout.strip() or run.stderr.strip(), f"{label} printed nothing")
        return run.stdout.decode("utf-8", "replace"), run.stderr.decode("utf-8", "replace")


def drain(stream, path):
    """Appends what a process still writes on `stream` (bytes or text) to `path`, in a thread that ends with the
    process."""
    def copy():
        read = stream.read1 if hasattr(stream, "read1") else stream.read
        with open(path, "ab") as file:
            while chunk := read(65536):
                file.write(chunk if isinstance(chunk, bytes) else chunk.encode())
                file.flush()
    thread = threading.Thread(target=copy, daemon=True)
    thread.start()
    return thread


def stop(process, *threads):
    stop_process(process, timeout=30)
    for thread in threads:
        thread.join(timeout=10)


def random_text(length, alphabet=string.ascii_letters + string.digits):
    return "".join(secrets.choice(alphabet) for _ in range(length))


def otlp_credential():
    """A random user:password whose base64 has no '=', '+' or '/' (OTEL_EXPORTER_OTLP_HEADERS values are plain), long
    enough for detect-secrets' entropy threshold too."""
    while True:
        pair = f"{random_text(12)}:{random_text(50)}"
        encoded = base64.b64encode(pair.encode()).decode()
        if encoded.isalnum():
            return pair, encoded


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class Context:
    """What the steps share: the processes' addresses, the day's values."""


def python_login(context, label):
    """The code flow with PKCE, the way an app's own code would do it: the dialog (auto-consent answers at once), then
    mend-server's code exchange. Returns the exchange (code, verifier, redirect URI), the session and the state."""
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(24)
    redirect = "http://127.0.0.1:8765/callback"  # never contacted: the redirect is read from Location
    SECRETS.add("PKCE verifier", verifier, f"this script's login ({label})")
    SECRETS.add("state", state, f"this script's login ({label})")
    query = urllib.parse.urlencode({
        "client_id": APP_ID, "redirect_uri": redirect, "response_type": "code", "scope": "public_profile,email",
        "state": state, "code_challenge": challenge, "code_challenge_method": "S256"})
    dialog = requests.get(f"{context.wiretap.url}/{VERSION}/dialog/oauth?{query}", allow_redirects=False, timeout=10)
    expect(dialog.status_code == 302, f"the dialog answered {dialog.status_code}")
    answer = urllib.parse.parse_qs(urllib.parse.urlsplit(dialog.headers["Location"]).query)
    expect(answer.get("state") == [state], "the redirect's state differs")
    code = answer["code"][0]
    SECRETS.add("authorization code", code, f"this script's login ({label})")
    exchange = {"code": code, "code_verifier": verifier, "redirect_uri": redirect}
    session = requests.post(f"{context.server}/v1/login/code", json=exchange, timeout=30)
    expect(session.status_code == 200, f"POST /v1/login/code answered {session.status_code}")
    body = session.json()
    SECRETS.add("JWT access token", body["access_token"], f"mend-server's answer to this script ({label})")
    SECRETS.add("mend-server refresh token (mrt_)", body["refresh_token"], f"mend-server's answer ({label})")
    return exchange, body, state


def keep_answer(context, label, response):
    """An error answer of mend-server (or `mend proxy`) to this script, as JSON: a sink (an error never carries a
    secret)."""
    context.day.sink(f"answers/{label}.json", json.dumps({
        "status": response.status_code, "headers": dict(response.headers),
        "body": parse_json(response.content) if parse_json(response.content) is not None else response.text},
        indent=2))


# --- The steps --------------------------------------------------------------------------------------------------------

def step_cli_login(context):
    day = context.day
    stdout, _ = day.run("login-pkce", [
        "login", "--base-url", context.wiretap.url, "--app-id", APP_ID, "--backend", context.server, "--headless",
        "--state-directory", context.state, "--json"])
    result = json.loads(stdout)
    expect(result.get("loggedIn") is True and result.get("refreshable") is True, f"login: {result}")
    stdout, _ = day.run("token-status", ["token", "status", "--state-directory", context.state])
    expect("issuer" in stdout, "token status printed no issuer")
    stdout, _ = day.run("token-status-json", ["token", "status", "--state-directory", context.state, "--json"])
    expect(json.loads(stdout).get("loggedIn") is True, "token status --json: not logged in")
    stdout, _ = day.run("whoami", ["whoami", "--state-directory", context.state])
    expect("Alice" in stdout, "whoami does not name Alice")


def step_refresh(context):
    day = context.day
    stdout, _ = day.run("token-refresh", ["token", "refresh", "--state-directory", context.state])
    expect("Refreshed" in stdout, "token refresh did not say Refreshed")
    stdout, _ = day.run("token-refresh-json", ["token", "refresh", "--state-directory", context.state, "--json"])
    expect(json.loads(stdout).get("refreshed") is True, "token refresh --json: not refreshed")
    stdout, _ = day.run("sessions", ["sessions", "--state-directory", context.state])
    expect("* ses_" in stdout, "mend sessions does not mark this session")
    # The one sink that holds a token by design (BY_DESIGN): its standard output, and nothing else of it.
    stdout, stderr = day.run("token-print", ["token", "print", "--state-directory", context.state])
    expect(stdout.strip() == store_tokens(context.state).get("JWT access token"),
           "mend token print did not print the stored access token alone")
    expect(not stderr.strip(), "mend token print wrote to standard error")


def step_device_login(context):
    day = context.day
    stdout, stderr = day.run("login-device", [
        "login", "--device", "--base-url", context.wiretap.url, "--app-id", APP_ID, "--client-token",
        context.client_token, "--backend", context.server, "--state-directory", context.device_state, "--json"])
    result = json.loads(stdout)
    expect(result.get("loggedIn") is True, f"device login: {result}")
    expect("enter the code" in stderr, "device login showed no code")
    for login in context.emulator.control("GET", "device"):
        SECRETS.add("user code", login.get("userCode"), "the emulator's control API (GET /_emulator/device)")
    stdout, _ = day.run("logout", ["logout", "--state-directory", context.device_state])
    expect("Logged out" in stdout, "mend logout did not log out")


def step_passkeys(context):
    """A provider login, `mend passkeys add` (the software authenticator's private key lands in the state folder's
    passkeys.json, which this script reads as a secret), logout, `mend login --passkey`, `mend passkeys list`."""
    day, state = context.day, context.passkey_state
    day.run("login-for-passkey", [
        "login", "--base-url", context.wiretap.url, "--app-id", APP_ID, "--backend", context.server, "--headless",
        "--state-directory", state, "--json"])
    day.run("passkeys-add", ["passkeys", "add", "--name", "Oracle key", "--state-directory", state])
    expect(passkey_keys(state), "mend passkeys add kept no key in passkeys.json")
    expect(os.stat(os.path.join(state, "passkeys.json")).st_mode & 0o077 == 0, "passkeys.json is readable by others")
    day.run("logout-before-passkey", ["logout", "--state-directory", state])
    stdout, _ = day.run("login-passkey", [
        "login", "--passkey", "--backend", context.server, "--state-directory", state, "--json"])
    expect(json.loads(stdout).get("loggedIn") is True, f"passkey login: {stdout}")
    stdout, _ = day.run("passkeys-list", ["passkeys", "list", "--state-directory", state])
    expect("Oracle key" in stdout, "mend passkeys list does not name the passkey")


def step_last_known_good(context):
    """`mend graph --max-stale` keeps the user's last good answer in the state folder's response store (a sink, read
    file by file, raw), serves it stale through a 503, and `mend logout` deletes it."""
    day = context.day
    state = context.answers_state
    day.run("login-direct", [
        "login", "--base-url", context.wiretap.url, "--app-id", APP_ID, "--headless", "--state-directory", state,
        "--json"])
    graph = ["graph", "GET", "me", "--fields", "id,name,email", "--max-stale", "1h", "--state-directory", state]
    stdout, _ = day.run("graph-max-stale", graph)
    expect("Alice" in stdout, "mend graph --max-stale does not show Alice")
    context.emulator.control("POST", "faults", {"error": "graph/2", "path": "/me"})
    stdout, stderr = day.run("graph-stale", graph)
    context.emulator.control("DELETE", "faults")
    expect("Alice" in stdout and "stale, " in stderr, "mend graph --max-stale did not answer stale through a 503")
    answers = os.path.join(state, "answers")
    files = [os.path.join(folder, name) for folder, _, names in os.walk(answers) for name in names]
    expect(files, "the response store holds no answer")
    for path in files:
        with open(path, "rb") as file:
            day.sink(os.path.join("response-store", os.path.relpath(path, answers)), file.read())
    stdout, _ = day.run("logout-direct", ["logout", "--state-directory", state])
    left = [name for _, _, names in os.walk(answers) for name in names]
    expect(not left, f"mend logout left {len(left)} answer(s) in the response store")


def step_script_login_and_refusal(context):
    exchange, session, state = python_login(context, "code login")
    context.script_exchange, context.script_session, context.script_state = exchange, session, state
    replay = requests.post(f"{context.server}/v1/login/code", json=exchange, timeout=30)
    keep_answer(context, "replayed-code", replay)
    expect(replay.status_code == 400, f"a replayed code answered {replay.status_code}")
    error = replay.json()["error"]
    expect((error["domain"], error["code"], error.get("subcode")) == ("graph", 100, 36009),
           f"a replayed code is {error['domain']}/{error['code']}/{error.get('subcode')}")
    wrong = dict(exchange, code=secrets.token_urlsafe(32), code_verifier=secrets.token_urlsafe(48))
    SECRETS.add("authorization code", wrong["code"], "this script (an unknown code)")
    SECRETS.add("PKCE verifier", wrong["code_verifier"], "this script (an unknown code)")
    refused = requests.post(f"{context.server}/v1/login/code", json=wrong, timeout=30)
    keep_answer(context, "unknown-code", refused)
    expect(refused.status_code == 400 and refused.json()["error"]["domain"] == "graph",
           f"an unknown code answered {refused.status_code}")


def step_id_token(context):
    nonce = secrets.token_urlsafe(24)
    SECRETS.add("nonce", nonce, "this script (the Apple sign-in's raw nonce)")
    # Through the wiretap: the id_token's issuer is the emulator's address as its client reaches it.
    native = requests.post(f"{context.wiretap.url}/_emulator/issuers/apple/native", timeout=10, json={
        "nonce": hashlib.sha256(nonce.encode()).hexdigest(), "userID": BOB}).json()
    SECRETS.add("id_token", native["id_token"], "the emulator's control API (issuers/apple/native)")
    SECRETS.add("authorization code", native["authorization_code"], "the emulator's control API (apple/native)")
    answer = requests.post(f"{context.server}/v1/login/id_token", json={
        "provider": "apple", "id_token": native["id_token"], "nonce": nonce,
        "authorization_code": native["authorization_code"]}, timeout=30)
    if answer.status_code != 200:
        keep_answer(context, "id-token", answer)
    expect(answer.status_code == 200, f"POST /v1/login/id_token answered {answer.status_code}")
    body = answer.json()
    SECRETS.add("JWT access token", body["access_token"], "mend-server's answer (id_token sign-in)")
    SECRETS.add("mend-server refresh token (mrt_)", body["refresh_token"], "mend-server's answer (id_token sign-in)")
    context.apple_session = body


def step_admin(context):
    day = context.day
    admin = dict(day.environment, MEND_ADMIN_TOKEN=context.admin_token)
    connection = ["--url", context.server]
    stdout, _ = day.run("admin-users", ["admin", "users", *connection], binary=day.mend_server, environment=admin)
    expect("Alice" in stdout, "admin users does not list Alice")
    tokens = store_tokens(context.state)
    refresh, access = tokens["mend-server refresh token (mrt_)"], tokens["JWT access token"]
    # The reason quotes the user's refresh token and the admin token (a reason is at most 200 bytes).
    reason = f"ticket 4711: the user pasted {refresh} into chat; ended with {context.admin_token}"
    stdout, _ = day.run("admin-end-session", [
        "admin", "end-session", jwt_claims(access)["sid"], "--reason", reason, *connection], binary=day.mend_server,
        environment=admin)
    expect("ended" in stdout, "admin end-session did not say ended")
    # The ended session, as the user's client sees it: session/17 (sign in again, never a retry).
    stdout, _ = day.run("token-refresh-ended", ["token", "refresh", "--state-directory", context.state, "--json"],
                        expected=1)
    report = json.loads(stdout)
    expect((report.get("domain"), report.get("code")) == ("session", 17), "the ended session's refresh is "
           f"{report.get('domain')}/{report.get('code')}, not session/17")
    stdout, _ = day.run("whoami-ended", ["whoami", "--state-directory", context.state], expected=4)  # not logged in (ExitCodes.notLoggedIn)
    expect("Not logged in" in stdout, "whoami of the ended session")
    # A second admin action, whose reason quotes a token after Bearer and the session's refresh token (mend-server's
    # access tokens, about 400 bytes, do not fit in a reason); the session's own refresh then answers session/17
    # with the reason (kept as mend-server's answer).
    apple = context.apple_session
    provider_token = context.emulator.control("POST", "tokens", {"userID": BOB})["access_token"]
    SECRETS.add("provider token (EAA…)", provider_token, "the emulator's control API (POST /_emulator/tokens)")
    reason = f"shared Bearer {provider_token}"
    if len(f"{reason} and {apple['refresh_token']}") <= 200:
        reason += f" and {apple['refresh_token']}"
    day.run("admin-logout-user", ["admin", "logout-user", apple["user"]["id"], "--reason", reason, *connection],
            binary=day.mend_server, environment=admin)
    ended = requests.post(f"{context.server}/v1/session/refresh", json={"refresh_token": apple["refresh_token"]},
                          timeout=30)
    keep_answer(context, "refresh-ended-by-admin", ended)
    expect(ended.status_code == 401 and ended.json()["error"]["code"] == 17,
           f"the refresh of a session an admin ended answered {ended.status_code}")
    stdout, _ = day.run("admin-audit-json", ["admin", "audit", "--json", *connection], binary=day.mend_server,
                        environment=admin)
    expect("admin_action" in stdout, "the audit log has no admin_action")
    day.run("admin-audit", ["admin", "audit", *connection], binary=day.mend_server, environment=admin)


def step_graph_through_proxy(context):
    day = context.day
    har = os.path.join(day.sinks, "har", "proxy.har")
    proxy = subprocess.Popen([day.mend, "proxy", "--record", har, "--upstream", context.wiretap.url],
                             env=day.environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    day.count += 1
    name = f"{day.count:02d}-proxy"
    lines = []
    while True:
        line = proxy.stdout.readline()
        if not line:
            raise RuntimeError("mend proxy exited before it was ready")
        lines.append(line)
        if line.strip() == b"ready":
            break
    day.sink(f"commands/{name}.stdout", b"".join(lines))
    copiers = [drain(proxy.stdout, os.path.join(day.sinks, f"commands/{name}.stdout")),
               drain(proxy.stderr, os.path.join(day.sinks, f"commands/{name}.stderr"))]
    url = re.search(rb"(http://127\.0\.0\.1:\d+)", b"".join(lines)).group(1).decode()
    try:
        token = context.emulator.control("POST", "tokens", {"userID": ALICE, "scopes": ["email"]})["access_token"]
        SECRETS.add("provider token (EAA…)", token, "the emulator's control API (POST /_emulator/tokens)")
        graph = ["graph", "GET", "me", "--fields", "id,name", "--base-url", url, "--token", token]
        stdout, _ = day.run("graph-verbose", [*graph, "--verbose"])
        expect("Alice" in stdout, "mend graph GET me does not show Alice")
        # The console exporters write spans and metric points to standard error: a sink like any other.
        console = dict(day.environment, OTEL_TRACES_EXPORTER="console", OTEL_METRICS_EXPORTER="console")
        _, stderr = day.run("graph-console-telemetry", graph, environment=console)
        expect("span GET" in stderr, "the console exporter printed no span")
        context.emulator.control("POST", "faults", {"error": "graph/190/460", "path": "/me", "times": 1})
        stdout, _ = day.run("graph-190-json", [*graph, "--json"], expected=1)
        report = json.loads(stdout)
        expect((report.get("domain"), report.get("code")) == ("graph", 190), f"the 190 was reported as {report}")
        context.emulator.control("POST", "faults", {"error": "graph/190/463", "path": "/me", "times": 1})
        _, stderr = day.run("graph-190-text", graph, expected=1)
        expect("reference" in stderr, "the 190's text names no reference")
        context.emulator.control("POST", "faults", {"error": "http/503", "path": "/me", "times": 1})
        stdout, stderr = day.run("graph-503-trace", [*graph, "--trace"])
        expect("http/503" in stderr and "Alice" in stdout, "the trace shows no retried http/503")
        context.emulator.control("POST", "faults", {"error": "http/503", "path": "/me"})
        _, stderr = day.run("graph-503-verbose", [*graph, "--verbose"], expected=1)
        expect("503" in stderr, "a lasting 503 is not reported")
        context.emulator.control("DELETE", "faults")
        # The REST object API through the proxy: its API key alone, then with a user token (Appacitive's headers).
        headers = {"Appacitive-Apikey": context.rest_api_key, "Content-Type": "application/json"}
        created = requests.post(f"{url}/v1/objects/note", headers=headers, json={"title": "sink oracle"}, timeout=30)
        if created.status_code != 201:
            keep_answer(context, "proxy-rest-create", created)
        expect(created.status_code == 201, f"the REST create through the proxy answered {created.status_code}")
        read = requests.get(f"{url}/v1/objects/note/{created.json()['object']['__id']}", timeout=30,
                            headers=dict(headers, **{"Appacitive-Session": token}))
        if read.status_code != 200:
            keep_answer(context, "proxy-rest-read", read)
        expect(read.status_code == 200, f"the REST read through the proxy answered {read.status_code}")
    finally:
        stop(proxy, *copiers)
    expect(os.path.getsize(har) > 0, "mend proxy recorded nothing")


def browser_har(context):
    """A HAR as a browser writes it (Chromium's fields), holding the day's secrets outside the request and response
    too: a page title (the page URL with its fragment), a WebSocket message, a base64 body ending in '=', a comment, a
    redirectURL, postData.params."""
    title_token = context.emulator.control("POST", "tokens", {"userID": ALICE})["access_token"]
    socket_token = context.emulator.control("POST", "tokens", {"userID": ALICE})["access_token"]
    body_token = context.emulator.control("POST", "tokens", {"userID": ALICE})["access_token"]
    for token in (title_token, socket_token, body_token):
        SECRETS.add("provider token (EAA…)", token, "the emulator's control API (POST /_emulator/tokens)")
    session = context.script_session
    exchange = context.script_exchange
    body = json.dumps({"access_token": body_token, "token_type": "bearer", "expires_in": 5183944})
    while len(body.encode()) % 3 == 0:  # base64 of a length not divisible by 3 ends in '='
        body += " "
    encoded = base64.b64encode(body.encode()).decode()
    expect(encoded.endswith("="), "the base64 body does not end in '='")
    started = "2026-01-01T00:00:00.000Z"
    timings = {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1, "wait": 10.2, "receive": 0.3}
    callback = f"http://127.0.0.1:8765/callback?code={exchange['code']}&state={context.script_state}"
    params = [{"name": name, "value": value} for name, value in [
        ("client_id", APP_ID), ("client_secret", context.app_secret), ("code", exchange["code"]),
        ("code_verifier", exchange["code_verifier"]), ("redirect_uri", exchange["redirect_uri"])]]

    def entry(method, url, status, response_text="", request_extra=None, response_extra=None, **extra):
        query = urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)
        request = {"method": method, "url": url, "httpVersion": "http/1.1", "headers": [
            {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0"}],
            "queryString": [{"name": n, "value": v} for n, v in query], "cookies": [], "headersSize": -1,
            "bodySize": 0}
        request.update(request_extra or {})
        response = {"status": status, "statusText": "", "httpVersion": "http/1.1",
                    "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                    "content": {"size": len(response_text), "mimeType": "application/json", "text": response_text},
                    "redirectURL": "", "headersSize": -1, "bodySize": len(response_text), "_transferSize": 300}
        response.update(response_extra or {})
        return {"_initiator": {"type": "other"}, "_priority": "VeryHigh", "_resourceType": "fetch",
                "cache": {}, "connection": "443", "pageref": "page_1", "request": request, "response": response,
                "serverIPAddress": "127.0.0.1", "startedDateTime": started, "time": 10.6, "timings": timings, **extra}

    base = "https://www.facebook.com/" + VERSION
    graph_error = json.dumps({"error": {"message": "Error validating access token: The session has been invalidated "
                                        "because the user changed their password.", "type": "OAuthException",
                                        "code": 190, "error_subcode": 460, "fbtrace_id": "AbCdEfGhIjK"}})
    entries = [
        entry("GET", f"{base}/dialog/oauth?client_id={APP_ID}&response_type=code", 302, response_extra={
            "redirectURL": callback, "content": {"size": 0, "mimeType": "text/html", "text": ""}},
            comment="the login redirect"),
        entry("POST", f"{base}/oauth/access_token", 200, response_extra={
            "content": {"size": len(body), "mimeType": "application/json", "encoding": "base64", "text": encoded}},
            request_extra={"postData": {"mimeType": "application/x-www-form-urlencoded",
                                        "text": urllib.parse.urlencode([(p["name"], p["value"]) for p in params]),
                                        "params": params}}),
        entry("GET", "wss://app.example/live", 101, _resourceType="websocket", _webSocketMessages=[
            {"type": "send", "time": 1767225600.1, "opcode": 1,
             "data": json.dumps({"type": "auth", "access_token": socket_token})},
            {"type": "receive", "time": 1767225600.2, "opcode": 1, "data": "{\"type\":\"ok\"}"}]),
        entry("GET", f"{base}/me?fields=id,name", 400, graph_error,
              comment=f"support: the user's refresh token was {session['refresh_token']}"),
    ]
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                    "pages": [{"startedDateTime": started, "id": "page_1",
                               "title": f"https://app.example/callback#access_token={title_token}&expires_in=5183944",
                               "pageTimings": {"onContentLoad": 120.5, "onLoad": 180.2}}],
                    "entries": entries}}


def step_explain_and_redact(context):
    day = context.day
    proxy_har = os.path.join(day.sinks, "har", "proxy.har")
    stdout, _ = day.run("explain-har-proxy", ["explain", "--har", proxy_har])
    expect("503" in stdout and "failed of" in stdout, "explain --har names no 503 in the proxy's recording")
    stdout, _ = day.run("explain-har-proxy-json", ["explain", "--har", proxy_har, "--json"])
    expect(len(json.loads(stdout)) >= 3, "explain --har --json explained fewer than the 190s and the 503")
    provider = os.path.join(day.sinks, "har", "provider.har")
    if os.path.exists(provider):
        day.run("explain-har-provider", ["explain", "--har", provider])
    # An error body quoting a token, as some APIs echo what they were sent.
    token = context.emulator.control("POST", "tokens", {"userID": CAROL})["access_token"]
    SECRETS.add("provider token (EAA…)", token, "the emulator's control API (POST /_emulator/tokens)")
    body = json.dumps({"error": {"message": f"Error validating access token {token}: Session has expired.",
                                 "type": "OAuthException", "code": 190, "error_subcode": 463,
                                 "fbtrace_id": "EJplcsCHuLu"}})
    stdout, _ = day.run("explain", ["explain", body])
    expect("190" in stdout or "expired" in stdout.lower(), "explain says nothing of the 190")
    stdout, _ = day.run("explain-json", ["explain", body, "--json"])
    expect(json.loads(stdout).get("code") == 190, "explain --json: not code 190")
    day.run("explain-status", ["explain", "--status", "503", "<html><body>Service Unavailable</body></html>"])
    # The browser-style HAR: input, not a sink (it holds the secrets on purpose).
    written = day.path("browser.har")
    with open(written, "w") as file:
        json.dump(browser_har(context), file, indent=2)
    stdout, _ = day.run("explain-har-browser", ["explain", "--har", written, "--json"])
    expect(json.loads(stdout), "explain --har explained nothing of the browser's HAR")
    redacted = os.path.join(day.sinks, "har", "redacted.har")
    day.run("redact", ["redact", written, "-o", redacted])
    expect(os.path.exists(redacted) and os.path.getsize(redacted) > 0, "mend redact wrote nothing")
    stdout, _ = day.run("redact-stdout", ["redact", written])
    expect(json.loads(stdout)["log"]["entries"], "mend redact printed no entries")


# --- The sinks and their search ---------------------------------------------------------------------------------------

def collect_database(day, database):
    """The database as a sink: its raw bytes (the WAL too), a text dump (sqlite3's iterdump), the audit table."""
    for suffix in ("", "-wal"):
        if os.path.exists(database + suffix):
            shutil.copyfile(database + suffix, os.path.join(day.sinks, "database", "mend.sqlite" + suffix))
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        day.sink("database/dump.sql", "\n".join(connection.iterdump()))
        cursor = connection.execute("SELECT * FROM mend_audit ORDER BY id")
        names = [column[0] for column in cursor.description]
        rows = cursor.fetchall()
        day.sink("database/audit.txt", "\n".join(
            " ".join(f"{n}={v}" for n, v in zip(names, row)) for row in rows))
        expect(rows, "the audit table is empty")
        # The database's view for detect-secrets: one value per line under table.column (the search itself reads
        # the bytes and the dump).
        lines = []
        for (table,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            cursor = connection.execute(f'SELECT * FROM "{table}"')
            names = [column[0] for column in cursor.description]
            for row in cursor:
                for name, value in zip(names, row):
                    if value is not None:
                        text = value.hex() if isinstance(value, bytes) else str(value)
                        lines.append(f"{table}.{name} = {json.dumps(text)}")
        return "\n".join(lines) + "\n"
    finally:
        connection.close()


OTLP_KINDS = {"traces": ExportTraceServiceRequest, "metrics": ExportMetricsServiceRequest,
              "logs": ExportLogsServiceRequest}


def otlp_decoded(body, name):
    """An OTLP/HTTP request body as JSON, its kind read from `name` (its path, or its sink's file name)."""
    kind = next(message for signal_name, message in OTLP_KINDS.items() if signal_name in name)
    return MessageToDict(kind.FromString(body))


def collect_otlp(day, receiver):
    """Every OTLP request body as it arrived, one sink each; returns the services that exported."""
    expect(receiver.posts, "the OTLP receiver got nothing")
    services = set()
    for number, (path, _, body) in enumerate(receiver.posts):
        day.sink(f"otlp/{number:03d}{path.replace('/', '-')}.pb", body)
        decoded = otlp_decoded(body, path)
        for resource in (decoded.get("resourceSpans", []) + decoded.get("resourceMetrics", [])
                         + decoded.get("resourceLogs", [])):
            for attribute in resource.get("resource", {}).get("attributes", []):
                if attribute["key"] == "service.name":
                    services.add(attribute["value"].get("stringValue"))
    return services


SINK_KINDS = [("commands/*", "command output"), ("emulator.*", "emulator output"), ("mend-server.log", "server log"),
              ("answers/*", "server answer"), ("files/*", "client file"), ("database/*", "database"),
              ("har/*", "har"), ("otlp/*", "otlp"), ("response-store/*", "response store")]


def sink_kind(relative):
    relative = relative.removeprefix("sinks/")
    return next(kind for pattern, kind in SINK_KINDS if fnmatch.fnmatch(relative, pattern))


def b64(data, urlsafe=False):
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()


def inside_base64(data, urlsafe):
    """The base64 characters that depend on `data` alone, at each of the three alignments it can have inside a longer
    base64 text (a Basic header's `id:secret`, a body)."""
    cores = []
    for offset in range(3):
        text = b64(b"\0" * offset + data, urlsafe)
        cores.append(text[-(-offset * 8 // 6):(offset + len(data)) * 8 // 6])
    return cores


@functools.lru_cache(maxsize=None)
def encodings(secret):
    """(name, needles) for every encoding searched, in report order; a needle already listed is not listed again."""
    raw = secret.encode()
    escaped = json.dumps(secret)[1:-1]
    table = [
        ("raw", [secret]),
        ("JSON-escaped", [escaped, escaped.replace("/", "\\/")]),
        ("URL-encoded", [urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret, safe=""),
                         re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), urllib.parse.quote(secret, safe=""))]),
        ("base64", [b64(raw)]),
        ("base64 without padding", [b64(raw).rstrip("=")]),
        ("base64url", [b64(raw, True)]),
        ("base64url without padding", [b64(raw, True).rstrip("=")]),
        ("base64 inside a longer base64 text", inside_base64(raw, False)),
        ("base64url inside a longer base64url text", inside_base64(raw, True)),
        ("hex", [raw.hex()]),
        ("hex (upper case)", [raw.hex().upper()]),
    ]
    seen = set()
    result = []
    for name, needles in table:
        fresh = [needle.encode() for needle in dict.fromkeys(needles) if needle and needle not in seen]
        seen.update(needles)
        if fresh:
            result.append((name, tuple(fresh)))
    return tuple(result)


def percent_decoded(data):
    return urllib.parse.unquote_to_bytes(data) if b"%" in data else data


def search(data, secret, decoded=None, fold=True):
    """{encoding: (occurrences, first offset)} of `secret` in `data`. A percent-decoded view (`decoded`, made once per
    sink) also finds a secret partly percent-encoded (one encoder leaves '/' as it is, another does not). With `fold`,
    an encoding that only repeats an earlier one (the unpadded base64 inside the padded one) is left out."""
    found = {}
    for name, needles in encodings(secret):
        count = sum(data.count(needle) for needle in needles)
        if count:
            found[name] = (count, min(data.find(n) for n in needles if n in data), needles)
    raw = secret.encode()
    decoded = percent_decoded(data) if decoded is None else decoded
    extra = decoded.count(raw) - data.count(raw)
    if extra > found.get("URL-encoded", (0,))[0]:
        found["URL-encoded"] = (extra, data.find(b"%"), [raw])
    # An encoding whose needles all sit inside an earlier one's, found no more often, adds nothing to the report.
    names = list(found) if fold else []
    for index, name in enumerate(names):
        for earlier in names[:index]:
            if earlier in found and name in found and found[name][0] <= found[earlier][0] and all(
                    any(n in e for e in found[earlier][2]) for n in found[name][2]):
                del found[name]
                break
    return {name: (count, offset) for name, (count, offset, _) in found.items()}


def flatten(value, path="", indexed=False):
    """(path, scalar) for every scalar of a JSON document, and of a JSON document inside a string (a HAR's body:
    `…content.text>keys[].n`). A list's items are `[name=…]` for the name/value pairs of a HAR (headers, query,
    params, cookies), `[key=…]` for OTLP attributes, and otherwise `[]` — or their index, with `indexed` — so that a
    path is stable from run to run."""
    if isinstance(value, str) and value[:1] in ("{", "[") and isinstance(inner := parse_json(value), (dict, list)):
        yield from flatten(inner, path + ">", indexed)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from flatten(item, f"{path}.{key}" if path and not path.endswith(">") else path + key, indexed)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            label = f"[{index}]" if indexed else "[]"
            if isinstance(item, dict):
                for key in ("name", "key"):
                    if isinstance(item.get(key), str):
                        label = f"[{key}={item[key].lower()}]"
                        break
            yield from flatten(item, path + label, indexed)
    else:
        yield path, value


def parse_json(data):
    try:
        return json.loads(data)
    except ValueError:
        return None


NEWLINE = b"\n"


def where(data, offset, document, needles):
    """Where in a sink a finding sits: the JSON path for a JSON sink, else the line (or the byte offset)."""
    if document is not None:
        for path, value in flatten(document, indexed=True):
            text = str(value).encode()
            if any(needle in text or needle in percent_decoded(text) for needle in needles):
                return f" at {path or '$'}"
    if b"\0" in data[:4096]:
        return f" at byte {offset}"
    return f" line {data.count(NEWLINE, 0, max(offset, 0)) + 1}"


def scan(root, relative_paths, secrets_by_value):
    """Searches every sink for every secret; returns the findings as (kind, encoding, sink, where, count). A finding
    that only repeats another secret found raw there (a signing key's material inside its MEND_SIGNING_KEYS entry,
    the OTLP header's base64 user:password, which is the credential) is left out."""
    findings = []
    for relative in relative_paths:
        with open(os.path.join(root, relative), "rb") as file:
            data = file.read()
        document = parse_json(data) if relative.endswith((".har", ".stdout", ".json")) else None
        decoded = percent_decoded(data)
        found = {}
        for secret, kind in secrets_by_value.items():
            if not any(kind == k and fnmatch.fnmatch(relative, glob) for k, glob, _ in BY_DESIGN):
                found[secret] = search(data, secret, decoded)
        raw = {secret: hits["raw"][0] for secret, hits in found.items() if "raw" in hits}
        for secret, hits in found.items():
            for encoding, (count, offset) in hits.items():
                needles = dict(encodings(secret)).get(encoding, (secret.encode(),))
                if any(other != secret and count <= times and any(needle in other.encode() for needle in needles)
                       for other, times in raw.items()):
                    continue
                place = where(data, offset, document, needles)
                findings.append((secrets_by_value[secret], encoding, relative, place, count))
    return findings


def control_forms(secret):
    """What the positive control writes into each copy: (name, form, the encoding that must find it) — the
    encoding whose text the form is (the first such: a form that is also the raw secret is found as raw), or, for the
    Basic headers, the base64 inside a longer one."""
    raw = secret.encode()
    forms = [
        ("raw", secret), ("JSON-escaped", json.dumps(secret)[1:-1].replace("/", "\\/")),
        ("URL-encoded", urllib.parse.quote(secret, safe="")), ("base64", b64(raw)),
        ("base64 without padding", b64(raw).rstrip("=")), ("base64url", b64(raw, True)),
        ("base64url without padding", b64(raw, True).rstrip("=")), ("hex", raw.hex()),
        ("hex (upper case)", raw.hex().upper()), ("Basic x:secret", "Basic " + b64(b"x:" + raw)),
        ("Basic secret:x", "Basic " + b64(raw + b":x")),
    ]
    inside = {"base64 inside a longer base64 text", "base64url inside a longer base64url text"}
    return [(name, form, next(({encoding} for encoding, needles in encodings(secret) if form.encode() in needles),
                              inside)) for name, form in forms]


def positive_control(root, relative_paths, secrets_by_value):
    """Copies every sink into control/, writes every secret into each copy in every form, and checks that the search
    finds each form in each copy. Returns what it missed."""
    missed = []
    control = os.path.join(root, "control")
    for relative in relative_paths:
        target = os.path.join(control, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(root, relative), target)
        with open(target, "ab") as file:
            for secret in secrets_by_value:
                for _, form, _ in control_forms(secret):
                    file.write(b"\n" + form.encode() + b"\n")
        with open(target, "rb") as file:
            data = file.read()
        decoded = percent_decoded(data)
        for secret, kind in secrets_by_value.items():
            found = set(search(data, secret, decoded, fold=False))
            for form_name, _, accepted in control_forms(secret):
                if not found & accepted:
                    missed.append(f"{kind} ({form_name}) in control/{relative}")
    return missed


# --- detect-secrets ---------------------------------------------------------------------------------------------------

WORD = re.compile(r"[^\s\"'`,;()\[\]{}<>]+")


def keyed_words(line):
    """The words of a text line, each under its key — `key=word`, `key: word`, else the words before it on the line
    (`reference id  …`): [(key, word)]."""
    words = []
    key = None
    for match in WORD.finditer(line):
        word = match.group(0)
        if word.endswith((":", "=")):
            key = word[:-1]
            continue
        name, separator, value = word.partition("=")
        if separator and value:
            key, word = name, value
        elif key is None:
            key = " ".join(re.findall(r"[A-Za-z][A-Za-z._-]*", line[:match.start()])[-3:]) or "text"
        words.append((key, word))
        key = None
    return words


def text_view(data):
    """A text sink for detect-secrets: each line as it is, then each word of it, quoted, under its key
    (keyed_words), as its entropy detectors read quoted strings only."""
    lines = []
    for line in data.decode("utf-8", "replace").splitlines():
        lines.append(line)
        lines.extend(f"{key} = {json.dumps(word)}" for key, word in keyed_words(line))
    return "\n".join(lines) + "\n"


def raw_line_field(line, hashed):
    """The field and value of the word of a line as it was that detect-secrets flagged (it reports a value once per
    file, at its first line: often the raw line, before the quoted word's): ("line", None) when no word hashes so."""
    for key, word in keyed_words(line):
        # A vendor pattern's match may hold the character on either side (Artifactory's `(?:\s|=|:|"|^)AP…(?:\s|"|$)`).
        at = line.find(word)
        before = line[at - 1:at] if at > 0 else ""
        after = line[at + len(word):at + len(word) + 1]
        for candidate in (word, word.strip(".")):
            for matched in (candidate, before + candidate, candidate + after, before + candidate + after):
                if hashlib.sha1(matched.encode()).hexdigest() == hashed:
                    return key, candidate
    return "line", None


def decode_bodies(value):
    """`value` with every base64 HAR body (`"encoding": "base64"`) decoded, so that the scanner reads what it holds."""
    if isinstance(value, list):
        return [decode_bodies(item) for item in value]
    if not isinstance(value, dict):
        return value
    value = {key: decode_bodies(item) for key, item in value.items()}
    if value.get("encoding") == "base64" and isinstance(value.get("text"), str):
        try:
            value["text"] = base64.b64decode(value["text"], validate=True).decode()
            del value["encoding"]
        except ValueError:
            pass
    return value


def json_view(document):
    """One string of a JSON document per line, under its path, each line once (numbers hold no secret, and metrics
    repeat their attributes at every point)."""
    lines = dict.fromkeys(f"{path} = {json.dumps(value)}\n" for path, value in flatten(decode_bodies(document))
                          if isinstance(value, str))
    return "".join(lines)


def make_views(root, relative_paths, database_view):
    """A text view of every sink under detect-secrets/ (same relative paths, `.txt` added)."""
    views = os.path.join(root, "detect-secrets")
    for relative in relative_paths:
        with open(os.path.join(root, relative), "rb") as file:
            data = file.read()
        if relative.startswith("sinks/database/"):
            continue  # the database's view is its table.column dump, written once below
        if relative.endswith(".pb"):
            view = json_view(otlp_decoded(data, relative))
        else:
            document = parse_json(data) if data.strip()[:1] in (b"{", b"[") else None
            view = json_view(document) if document is not None else text_view(data)
        target = os.path.join(views, relative + ".txt")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as file:
            file.write(view)
    os.makedirs(os.path.join(views, "sinks", "database"), exist_ok=True)
    with open(os.path.join(views, "sinks", "database", "columns.txt"), "w") as file:
        file.write(database_view)
    return views


def detect_secrets(views):
    """detect-secrets over the views: [(view path, detector, hashed secret, field, value)]; the value is the quoted
    value of a `field = "value"` line (None for a line as it was)."""
    run = subprocess.run([sys.executable, "-m", "detect_secrets", "scan", "--all-files", "."], cwd=views,
                         capture_output=True, text=True, timeout=300)
    expect(run.returncode == 0, f"detect-secrets scan exited {run.returncode}: {run.stderr[-500:]}")
    by_value = {}
    for path, items in json.loads(run.stdout)["results"].items():
        with open(os.path.join(views, path)) as file:
            lines = file.read().splitlines()
        for item in items:
            field, separator, quoted = lines[item["line_number"] - 1].partition(" = ")
            value = parse_json(quoted) if separator else None
            key = (path, item["type"], item["hashed_secret"])
            # A value flagged both on its line and as a quoted word counts once, under its field.
            if key not in by_value or by_value[key][1] is None:
                by_value[key] = (
                    (field, value) if isinstance(value, str)
                    else raw_line_field(lines[item["line_number"] - 1], item["hashed_secret"]))
    return [(*key, field, value) for key, (field, value) in by_value.items()]


def glob_matches(text, pattern):
    """A baseline pattern: as it is, where `*` stands for any run of characters (brackets are literal)."""
    expression = ".*".join(re.escape(part) for part in pattern.split("*"))
    return text is not None and re.fullmatch(expression, text) is not None


def judge_detect_secrets(findings, secrets_by_value):
    """Each finding against the baseline: allowed by an entry whose sink, detector, field (and value, when it names
    one) match, or not. A finding whose hash is a day's secret's is never allowed (but where BY_DESIGN)."""
    with open(BASELINE) as file:
        allowances = json.load(file)["allow"]
    by_hash = {hashlib.sha1(secret.encode()).hexdigest(): kind for secret, kind in secrets_by_value.items()}
    failures, used = [], set()
    for path, detector, hashed, field, value in findings:
        relative = path.removesuffix(".txt")
        if hashed in by_hash:
            if not any(by_hash[hashed] == kind and fnmatch.fnmatch(relative, glob) for kind, glob, _ in BY_DESIGN):
                failures.append(f"{by_hash[hashed]} ({detector}) in {relative} at {field}")
            continue
        kind = sink_kind(relative)
        match = next((index for index, allowance in enumerate(allowances)
                      if glob_matches(kind, allowance["sink"]) and glob_matches(detector, allowance["detector"])
                      and ("path" not in allowance or fnmatch.fnmatch(relative, allowance["path"]))
                      and glob_matches(field, allowance["field"])
                      and ("value" not in allowance or glob_matches(value, allowance["value"]))), None)
        if match is None:
            failures.append(f"{detector} in {relative} at {field} (no allowance for sink {kind!r})")
        else:
            used.add(match)
    return failures, [allowances[index] for index in sorted(used)], len(findings)


# --- The oracle -------------------------------------------------------------------------------------------------------

STEPS = [
    ("mend login --headless (PKCE through mend-server), token status, whoami", step_cli_login),
    ("mend token refresh, twice (--json once), mend sessions", step_refresh),
    ("mend login --device --backend (auto-consent at the first poll), mend logout", step_device_login),
    ("mend passkeys add (the software authenticator's key in passkeys.json), logout, mend login --passkey, "
     "mend passkeys list", step_passkeys),
    ("mend graph --max-stale: the response store read as a sink, a stale answer through a 503, purged by logout",
     step_last_known_good),
    ("a PKCE login by this script; its code replayed (graph/100/36009) and an unknown code refused",
     step_script_login_and_refusal),
    ("id_token sign-in with the Apple-like issuer (and its authorization code)", step_id_token),
    ("mend-server admin: end-session quoting mrt_ and mend_admin_ (then session/17 in mend token refresh, whoami), "
     "logout-user quoting Bearer and mrt_, audit", step_admin),
    ("mend proxy --record: mend graph answered 190 (--json, text) and 503 (--trace, --verbose), REST with "
     "Appacitive-Apikey", step_graph_through_proxy),
    ("mend explain (a body, --json, --status, --har) and mend redact of a browser-style HAR", step_explain_and_redact),
]


def configure(context, mend_server):
    """The secrets configured here, and the emulator's configuration file."""
    context.app_secret = secrets.token_hex(16)
    context.client_token = secrets.token_hex(16)
    # Shaped like the emulator's default key (no long random run): only its header's name says it is a secret.
    context.rest_api_key = "rest-" + "-".join(secrets.token_hex(4) for _ in range(3))
    context.credential_pair, context.credential = otlp_credential()
    context.encryption_key = base64.b64encode(secrets.token_bytes(32)).decode()
    context.signing_key = subprocess.run([mend_server, "generate-key"], capture_output=True, text=True,
                                         check=True).stdout.split()[-1]
    made = subprocess.run([mend_server, "admin", "new-token", "oracle"], capture_output=True, text=True, check=True)
    context.admin_token = re.search(r"token: (\S+)", made.stdout).group(1)
    context.admin_entry = re.search(r"entry: (\S+)", made.stdout).group(1)
    for kind, value, source in [
            ("app secret", context.app_secret, "configured (the emulator's app, MEND_APP_SECRET)"),
            ("app token (id|secret)", f"{APP_ID}|{context.app_secret}", "configured (app id|app secret)"),
            ("REST API key", context.rest_api_key, "configured (the emulator's restAPIKey)"),
            ("OTLP header credential", context.credential, "configured (OTEL_EXPORTER_OTLP_HEADERS)"),
            ("OTLP header credential", context.credential_pair, "configured (the header's user:password)"),
            ("token encryption key", context.encryption_key, "configured (MEND_TOKEN_ENCRYPTION_KEY)"),
            ("signing key", context.signing_key, "configured (MEND_SIGNING_KEYS)"),
            ("signing key", context.signing_key.rsplit(":", 1)[-1], "configured (MEND_SIGNING_KEYS, its key)"),
            ("admin token (mend_admin_)", context.admin_token, "configured (mend-server admin new-token)")]:
        SECRETS.add(kind, value, source)
    configuration = context.day.path("emulator.json")
    with open(configuration, "w") as file:
        json.dump({"seed": secrets.randbelow(1 << 31), "autoConsent": "grantAll", "deviceLoginInterval": 1,
                   "restAPIKey": context.rest_api_key,
                   "apps": [{"id": APP_ID, "secret": context.app_secret, "name": "Sink Oracle App",
                             "clientToken": context.client_token,
                             "redirectURIs": ["http://127.0.0.1/callback", "https://app.example/callback"]}]}, file)
    return configuration


def server_environment(context, database):
    """mend-server's configuration: the emulator (through the wiretap) as Facebook and as Apple, with the team key
    the emulator hands out; the admin API on; its provider calls recorded; its log at debug."""
    issuers = context.emulator.control("GET", "issuers")
    team_key = issuers["appleTeamKey"]
    SECRETS.add("Apple team key (.p8)", team_key, "the emulator's control API (GET /_emulator/issuers)")
    SECRETS.add("Apple team key (.p8)", "".join(team_key.strip().splitlines()[1:-1]),
                "the emulator's control API (GET /_emulator/issuers), the PEM's base64")
    key_file = context.day.path("apple.p8")
    with open(key_file, "w") as file:
        file.write(team_key)
    apple = next(item for item in issuers["issuers"] if item["kind"] == "apple")
    native = next(client for client in apple["clients"] if client["id"] == APPLE_NATIVE_CLIENT)
    tap = context.wiretap.url
    return dict(
        context.day.environment, MEND_HOST="127.0.0.1", MEND_PORT="0", MEND_APP_ID=APP_ID,
        MEND_APP_SECRET=context.app_secret, MEND_GRAPH_URL=tap, MEND_REDIRECT_URIS="http://127.0.0.1/callback",
        MEND_SIGNING_KEYS=context.signing_key, DATABASE_URL="sqlite://" + database,
        MEND_TOKEN_ENCRYPTION_KEY=context.encryption_key, MEND_ADMIN_TOKENS=context.admin_entry,
        MEND_PROVIDER_RECORDING=os.path.join(context.day.sinks, "har", "provider.har"), MEND_LOG_LEVEL="debug",
        MEND_APPLE_CLIENT_IDS=APPLE_NATIVE_CLIENT, MEND_APPLE_ISSUER=f"{tap}/apple",
        MEND_APPLE_JWKS_URL=f"{tap}/apple/auth/keys", MEND_APPLE_TEAM_ID=native.get("appleTeamID", "MENDTEAM01"),
        MEND_APPLE_KEY_ID=native.get("appleKeyID", "MENDKEY001"), MEND_APPLE_PRIVATE_KEY_FILE=key_file,
        # Passkeys, for `mend passkeys` and `mend login --passkey` (the software authenticator's default origin).
        MEND_PASSKEY_RP_ID="localhost", MEND_PASSKEY_ORIGINS="https://localhost")


def live_the_day(context, results, mend, mend_server, configuration):
    """Starts the emulator, the wiretap and mend-server, runs the steps, and collects the database (while the server
    runs: its WAL too) and the processes' output. Returns the database's view for detect-secrets."""
    day = context.day
    database = day.path("mend.sqlite")
    database_view = ""
    with Emulator(mend, "--config", configuration, environment=day.environment) as emulator:
        context.emulator = emulator
        with open(os.path.join(day.sinks, "emulator.stdout"), "w") as file:
            file.write("".join(emulator.banner))
        copiers = [drain(emulator.process.stdout, os.path.join(day.sinks, "emulator.stdout")),
                   drain(emulator.process.stderr, os.path.join(day.sinks, "emulator.stderr"))]
        context.wiretap = Wiretap(emulator.base_url)
        with open(os.path.join(day.sinks, "mend-server.log"), "wb") as log:
            server, context.server = start_mend_server(mend_server, server_environment(context, database), log=log)
            try:
                for name, step in STEPS:
                    results.run(name, step, context)
            finally:
                try:
                    database_view = collect_database(day, database)
                except Exception as error:  # noqa: BLE001 - counted as a failed check
                    print(SECRETS.scrub(f"FAIL the database: {type(error).__name__}: {error}"), flush=True)
                    results.failed += 1
                stop(server, server.log_copier)  # which flushes its telemetry
        context.wiretap.learn_all(context.client_token)
        context.wiretap.server.shutdown()
    for thread in copiers:
        thread.join(timeout=10)
    for directory in (context.state, context.device_state):
        profile = os.path.join(directory, "profile.json")
        if os.path.exists(profile):
            shutil.copyfile(profile, os.path.join(day.sinks, "files", os.path.basename(directory) + "-profile.json"))
    return database_view


def print_secrets(secrets_by_value, sink_count):
    kinds = {}
    for value, kind in secrets_by_value.items():
        kinds.setdefault(kind, set()).add(SECRETS.sources[value])
    print(f"\n{len(secrets_by_value)} secrets of {len(kinds)} kinds searched in {sink_count} sinks:")
    for kind, sources in sorted(kinds.items()):
        count = sum(1 for known in secrets_by_value.values() if known == kind)
        print(f"  {count:3d} × {kind}: {'; '.join(sorted(sources))}")
    short = ", ".join(f"{len(values)} × {kind}" for kind, values in sorted(SECRETS.short.items()))
    print(f"  not searched, shorter than {MINIMUM_LENGTH} characters: {short or 'none'}")


def main():
    mend, mend_server, scratch = (os.path.abspath(argument) for argument in sys.argv[1:4])
    started = time.monotonic()
    root = os.path.join(scratch, "day")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    results = ScrubbedResults()
    receiver = Receiver()
    context = Context()
    context.day = day = Day(root, mend, mend_server, {})
    context.state, context.device_state = day.path("state"), day.path("device-state")
    context.answers_state, context.passkey_state = day.path("answers-state"), day.path("passkey-state")
    day.state_directories = [context.state, context.device_state, context.answers_state, context.passkey_state]
    configuration = configure(context, mend_server)
    # Both binaries export to the receiver under their own names, with the credential in a header.
    day.environment = otlp_environment(receiver, "")
    del day.environment["OTEL_SERVICE_NAME"]  # each binary exports under its own name: mend, mend-server
    day.environment["OTEL_EXPORTER_OTLP_HEADERS"] = f"authorization=Basic {context.credential}"
    database_view = live_the_day(context, results, mend, mend_server, configuration)

    def telemetry_arrived():
        # The credential reaches the collector in a header, as configured: the request bodies are the sink.
        services = collect_otlp(day, receiver)
        expect({"mend", "mend-server"} <= services, f"OTLP from {sorted(services)}, not mend and mend-server")
        sent = {headers.get("authorization") or headers.get("Authorization") for _, headers, _ in receiver.posts}
        expect(sent == {f"Basic {context.credential}"}, "not every OTLP request carried the configured credential")
    results.run("OTLP: mend and mend-server exported to the receiver, with the header credential", telemetry_arrived)

    relative_paths = sorted(os.path.relpath(os.path.join(folder, name), root)
                            for folder, _, names in os.walk(day.sinks) for name in names)

    def sinks_hold_something():
        empty = [path for path in relative_paths if os.path.getsize(os.path.join(root, path)) == 0
                 and not path.endswith((".stdout", ".stderr"))]  # one of a command's two streams may be empty
        expect(not empty, f"empty sinks: {empty}")
        for needed in ("sinks/mend-server.log", "sinks/har/proxy.har", "sinks/har/provider.har",
                       "sinks/har/redacted.har", "sinks/database/dump.sql", "sinks/database/audit.txt"):
            expect(needed in relative_paths, f"no {needed}")
    results.run("every sink holds something", sinks_hold_something)

    secrets_by_value = dict(SECRETS.kinds)
    print_secrets(secrets_by_value, len(relative_paths))

    def no_secret_in_any_sink():
        findings = scan(root, relative_paths, secrets_by_value)
        for kind, encoding, relative, place, count in findings:
            print(f"  FINDING {kind} ({encoding}) in {relative}{place}{f' ×{count}' if count > 1 else ''}")
        expect(not findings, f"{len(findings)} findings")
    results.run("the search: no secret in any sink, in any encoding", no_secret_in_any_sink)

    def control_finds_everything():
        missed = positive_control(root, relative_paths, secrets_by_value)
        for line in missed[:20]:
            print("  MISSED " + line)
        expect(not missed, f"the search missed {len(missed)} written forms")
    results.run("positive control: every secret in every encoding found in a copy of every sink",
                control_finds_everything)

    def attribution_control():
        # Each detector's match, as detect-secrets hashes it, is traced to its word and field: a vendor pattern's
        # match carries the space or quote before it (Artifactory's `AP…` in a random reference id did, on CI).
        control = os.path.join(root, "attribution-control")
        os.makedirs(control, exist_ok=True)
        with open(os.path.join(control, "explain.stdout.txt"), "w") as file:
            file.write(text_view(b"  reference id       APA739F1E8WXA8Rj4AyJT1tC\n"
                                 b"reference: AKCp8739F1E8WXA8Rj4AyJT1tC\n"))
        fields = sorted({(detector, field, value) for _, detector, _, field, value in detect_secrets(control)})
        expect(fields == [("Artifactory Credentials", "reference", "AKCp8739F1E8WXA8Rj4AyJT1tC"),
                          ("Artifactory Credentials", "reference id", "APA739F1E8WXA8Rj4AyJT1tC")],
               f"detect-secrets' findings traced to {fields}")
    results.run("detect-secrets: a finding is traced to its field (control)", attribution_control)

    def second_scanner():
        views = make_views(root, relative_paths, database_view)
        failures, used, total = judge_detect_secrets(detect_secrets(views), secrets_by_value)
        for line in failures:
            print("  DETECT-SECRETS " + line)
        print(f"  detect-secrets: {total} findings, {total - len(failures)} allowed by {len(used)} baseline entries")
        expect(not failures, f"{len(failures)} detect-secrets findings outside the baseline")
    results.run("detect-secrets: nothing beyond sink_oracle_baseline.json", second_scanner)

    print(f"sink oracle: {time.monotonic() - started:.0f} s")
    return results.finish("Sink oracle")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001 - a traceback may quote a secret (a process's output, a URL): scrubbed
        print(SECRETS.scrub(traceback.format_exc()), flush=True)
        sys.exit(1)
