"""schemathesis against a live mend-server (MendServer, issue 14): every check (`--checks all`), no exclusions.

Starts `mend emulate --port 0` and `mend-server` on 127.0.0.1 (a free port, SQLite in a temporary directory, a fresh
signing key, the server's default rate limits, the emulator's Apple, Google and Limited Login issuers for id_token
sign-in), logs in through the emulator's consent page with PKCE and a DPoP proof (pydpop) to get a DPoP-bound access
token for the authenticated operations (three sessions, each bound to a key of its own, all made before the first
pass), then runs schemathesis on the server's own /openapi.json: every operation but logout, account deletion and the
admin API, then logout, then account deletion, each pass with a session of its own; then the admin API (on:
MEND_ADMIN_TOKENS holds a token made here) with the admin token, every admin operation but the user deletion, then that.

In the session passes, schemathesis_dpop.py (an auth hook) sends the bound token as `Authorization: DPoP` with a new
proof for each call; the answers to those calls are counted, and the bound operations must have answered 2xx to a
proved call at least once (exercised with proofs, not only refused).

    python3 server_schemathesis.py <mend binary> <mend-server binary> <scratch directory> [max examples]
"""
import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import urllib.parse

import pydpop
import requests

from clients import FormReader
from emulator_process import Emulator, start_mend_server, stop_process

APP_ID = "111111111111111"
APP_SECRET = "0123456789abcdef0123456789abcdef"
REDIRECT_URI = "http://127.0.0.1:8765/callback"  # never contacted: the redirect is read from Location
VERSION = "v25.0"


ADMIN_TOKEN = "mend_admin_" + secrets.token_urlsafe(32)


def start_server(binary, emulator, scratch, **settings):
    """mend-server on a free port in front of `emulator`; `settings` are more MEND_… variables."""
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
        MEND_ADMIN_TOKENS="schemathesis:sha256:" + hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest(), **settings)
    return start_mend_server(binary, environment)


def authorization_code(emulator, user=None):
    """The code flow with PKCE through the emulator's consent page: the login request's body for the code. `user`:
    which of the page's users continues (an index; the one it selects when `None`)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "client_id": APP_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "scope": "public_profile,email",
        "state": "schemathesis", "code_challenge": challenge, "code_challenge_method": "S256"})
    page = requests.get(f"{emulator.base_url}/{VERSION}/dialog/oauth?{query}", allow_redirects=False, timeout=10)
    form = FormReader()
    form.feed(page.text)
    fields = form.fields
    if user is not None:
        users = re.findall(r'<option value="([^"]+)"', page.text)
        fields = [field for field in fields if field[0] != "user_id"] + [("user_id", users[user % len(users)])]
    answer = requests.post(urllib.parse.urljoin(emulator.base_url, form.action),
                           data=fields + [("decision", "continue")], allow_redirects=False, timeout=10)
    code = urllib.parse.parse_qs(urllib.parse.urlparse(answer.headers["Location"]).query)["code"][0]
    return {"code": code, "code_verifier": verifier, "redirect_uri": REDIRECT_URI}


def login(emulator, server, key, user):
    """A code login of the page's `user` (authorization_code), proved with `key` (RFC 9449): the session is bound to
    it."""
    proof = pydpop.generate_proof(private_key=key, htm="POST", htu=f"{server}/v1/login/code")
    session = requests.post(
        f"{server}/v1/login/code", json=authorization_code(emulator, user), headers={"DPoP": proof}, timeout=30)
    session.raise_for_status()
    if session.json()["token_type"] != "DPoP":
        raise RuntimeError("the login with a proof did not make a DPoP-bound session")
    return session.json()["access_token"]


# The operations a bound token authenticates that must answer 2xx to a call with the token and a proof at least once
# (DELETE /v1/sessions/{id} is left out: schemathesis's ids name no session of the user, 404).
PROVED_SUCCESSES = {
    "GET /v1/session", "GET /v1/me", "GET /v1/sessions", "GET /v1/me/activity", "POST /v1/session/logout",
    "DELETE /v1/me", "GET /v1/passkeys",
}


def main():
    mend, mend_server, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    examples = sys.argv[4] if len(sys.argv) > 4 else "50"
    os.makedirs(scratch, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch) as directory, Emulator(mend) as emulator:
        # Passkeys on (their routes in the document): the RP ID and an origin no page uses here.
        server, base_url = start_server(
            mend_server, emulator, directory, MEND_PASSKEY_RP_ID="localhost",
            MEND_PASSKEY_ORIGINS="http://localhost:8765")
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
            # Each pass's session is another user's: the first pass's stateful phase follows GET /v1/sessions to
            # DELETE /v1/sessions/{id} and ends every session of its user.
            keys = [pydpop.generate_key("ES256") for _ in selections]
            tokens = [login(emulator, base_url, key, user) for user, key in enumerate(keys)]
            # The admin API with the admin token: everything but the user deletion, then that. Its default rate limit
            # (600 a minute per address, taken before the token is checked) stays on: schemathesis keeps below it,
            # as an operator's tool would.
            selections += (
                ["--include-path-regex", "^/v1/admin/", "--exclude-operation-id", "adminDeleteUser",
                 "--rate-limit", "500/m"],
                ["--include-operation-id", "adminDeleteUser", "--rate-limit", "500/m"],
            )
            tokens += [ADMIN_TOKEN, ADMIN_TOKEN]
            keys += [None, None]
            here = os.path.dirname(os.path.abspath(__file__))
            status = 0
            proved = {}  # (operation, status) -> calls, over the session passes
            for selection, token, key in zip(selections, tokens, keys):
                command = [
                    os.path.join(os.path.dirname(sys.executable), "st"),
                    "--config-file", os.path.join(here, "schemathesis.toml"),
                    "--no-color", "run", f"{base_url}/openapi.json",
                    "--checks", "all", "--max-examples", examples, "--seed", "20261123", *selection,
                ]
                environment = dict(os.environ)
                report = os.path.join(directory, "dpop-report.json")
                if key is None:
                    command[-len(selection):-len(selection)] = ["--header", f"Authorization: Bearer {token}"]
                else:
                    # The session's bound token and a proof per call, from the auth hook (the values stay in the
                    # environment of `st`, never on its command line or in this output).
                    environment.update(
                        SCHEMATHESIS_HOOKS="schemathesis_dpop",
                        PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
                        MEND_SCHEMATHESIS_TOKEN=token, MEND_SCHEMATHESIS_BASE_URL=base_url,
                        MEND_SCHEMATHESIS_DPOP_JWK=json.dumps(pydpop.private_jwk(key)),
                        MEND_SCHEMATHESIS_DPOP_REPORT=report)
                shown = ["Authorization: Bearer …" if c.startswith("Authorization") else c for c in command[1:]]
                print("schemathesis:", " ".join(shown) + ("" if key is None else " (DPoP proofs: schemathesis_dpop)"),
                      flush=True)
                status = max(status, subprocess.run(command, cwd=directory, env=environment).returncode)
                if key is not None:
                    with open(report) as answers:
                        for operation, answered, count in json.load(answers):
                            proved[(operation, answered)] = proved.get((operation, answered), 0) + count
                    os.remove(report)
            print("Calls with the bound token and a proof, by answer:", flush=True)
            for (operation, answered), count in sorted(proved.items()):
                print(f"  {operation:32} {answered}: {count}", flush=True)
            succeeded = {operation for (operation, answered) in proved if 200 <= answered < 300}
            if PROVED_SUCCESSES - succeeded:
                print("FAIL: no 2xx to a proved call of " + ", ".join(sorted(PROVED_SUCCESSES - succeeded)),
                      flush=True)
                status = max(status, 1)
            return status
        finally:
            stop_process(server)


if __name__ == "__main__":
    sys.exit(main())
