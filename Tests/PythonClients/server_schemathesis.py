"""schemathesis against a live mend-server (MendServer, issue 14): every check (`--checks all`), no exclusions.

Starts `mend emulate --port 0` and `mend-server` on 127.0.0.1 (a free port, SQLite in a temporary directory, a fresh
signing key, the server's default rate limits, the emulator's Apple, Google and Limited Login issuers for id_token
sign-in), logs in through the emulator's consent page with PKCE to get an access token for the authenticated
operations (three sessions, all made before the first pass), then runs schemathesis on the server's own
/openapi.json: every operation but logout, account deletion and the admin API, then logout, then account deletion,
each pass with a session of its own; then the admin API (on: MEND_ADMIN_TOKENS holds a token made here) with the
admin token, every admin operation but the user deletion, then that.

    python3 server_schemathesis.py <mend binary> <mend-server binary> <scratch directory> [max examples]
"""
import base64
import hashlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import urllib.parse

import requests

from clients import FormReader
from emulator_process import Emulator, start_mend_server

APP_ID = "111111111111111"
APP_SECRET = "0123456789abcdef0123456789abcdef"
REDIRECT_URI = "http://127.0.0.1:8765/callback"  # never contacted: the redirect is read from Location
VERSION = "v25.0"


ADMIN_TOKEN = "mend_admin_" + secrets.token_urlsafe(32)


def start_server(binary, emulator, scratch):
    key = subprocess.run([binary, "generate-key"], capture_output=True, text=True, check=True).stdout.split()[-1]
    environment = dict(
        os.environ, MEND_HOST="127.0.0.1", MEND_PORT="0", MEND_APP_ID=APP_ID, MEND_APP_SECRET=APP_SECRET,
        MEND_GRAPH_URL=emulator.base_url, MEND_REDIRECT_URIS=REDIRECT_URI, MEND_SIGNING_KEYS=key,
        DATABASE_URL="sqlite://" + os.path.join(scratch, "mend.sqlite"),
        # The emulator's issuers for POST /v1/login/id_token (its provider field then lists them).
        MEND_APPLE_CLIENT_IDS="com.example.mend", MEND_APPLE_ISSUER=f"{emulator.base_url}/apple",
        MEND_APPLE_JWKS_URL=f"{emulator.base_url}/apple/auth/keys",
        MEND_GOOGLE_CLIENT_IDS="mend-ios.apps.googleusercontent.com", MEND_GOOGLE_ISSUER=f"{emulator.base_url}/google",
        MEND_GOOGLE_JWKS_URL=f"{emulator.base_url}/google/oauth2/v3/certs", MEND_LIMITED_LOGIN="true",
        MEND_LIMITED_LOGIN_JWKS_URL=f"{emulator.base_url}/.well-known/oauth/openid/jwks/",
        # The admin API, on: the server holds the token's SHA-256 only.
        MEND_ADMIN_TOKENS="schemathesis:sha256:" + hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest())
    return start_mend_server(binary, environment)


def login(emulator, server):
    """The code flow with PKCE through the emulator's consent page, then the server's code exchange."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "client_id": APP_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "scope": "public_profile,email",
        "state": "schemathesis", "code_challenge": challenge, "code_challenge_method": "S256"})
    page = requests.get(f"{emulator.base_url}/{VERSION}/dialog/oauth?{query}", allow_redirects=False, timeout=10)
    form = FormReader()
    form.feed(page.text)
    answer = requests.post(urllib.parse.urljoin(emulator.base_url, form.action),
                           data=form.fields + [("decision", "continue")], allow_redirects=False, timeout=10)
    code = urllib.parse.parse_qs(urllib.parse.urlparse(answer.headers["Location"]).query)["code"][0]
    session = requests.post(f"{server}/v1/login/code", json={
        "code": code, "code_verifier": verifier, "redirect_uri": REDIRECT_URI}, timeout=30)
    session.raise_for_status()
    return session.json()["access_token"]


def main():
    mend, mend_server, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    examples = sys.argv[4] if len(sys.argv) > 4 else "50"
    os.makedirs(scratch, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch) as directory, Emulator(mend) as emulator:
        server, base_url = start_server(mend_server, emulator, directory)
        try:
            # Three passes, every check in each, each with its own session's bearer: every operation but logout and
            # account deletion, then logout, then account deletion (each ends the session the others need).
            # The three sessions are made before any pass: the first pass's fuzzing of the login operations spends
            # the default per-address login budget (30 a minute), so a login after it is refused with 429, as it
            # should be.
            selections = (
                ["--exclude-path", "/v1/session/logout", "--exclude-operation-id", "deleteAccount",
                 "--exclude-path-regex", "^/v1/admin/"],
                ["--include-path", "/v1/session/logout"],
                ["--include-operation-id", "deleteAccount"],
            )
            tokens = [login(emulator, base_url) for _ in selections]
            # The admin API with the admin token: everything but the user deletion, then that. Its default rate limit
            # (600 a minute per address, taken before the token is checked) stays on: schemathesis keeps below it,
            # as an operator's tool would.
            selections += (
                ["--include-path-regex", "^/v1/admin/", "--exclude-operation-id", "adminDeleteUser",
                 "--rate-limit", "500/m"],
                ["--include-operation-id", "adminDeleteUser", "--rate-limit", "500/m"],
            )
            tokens += [ADMIN_TOKEN, ADMIN_TOKEN]
            status = 0
            for selection, token in zip(selections, tokens):
                command = [
                    os.path.join(os.path.dirname(sys.executable), "st"),
                    "--config-file", os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemathesis.toml"),
                    "--no-color", "run", f"{base_url}/openapi.json",
                    "--checks", "all", "--max-examples", examples, "--seed", "20261123",
                    "--header", f"Authorization: Bearer {token}", *selection,
                ]
                shown = ["Authorization: Bearer …" if c.startswith("Authorization") else c for c in command[1:]]
                print("schemathesis:", " ".join(shown), flush=True)
                status = max(status, subprocess.run(command, cwd=directory).returncode)
            return status
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    sys.exit(main())
