"""mend-server's contract, from outside: its OpenAPI document validated, and a client generated from it that logs in
with DPoP (RFC 9449).

Starts `mend emulate --port 0` and `mend-server` on 127.0.0.1 (a free port, SQLite in a temporary directory, nonces
required: MEND_DPOP_NONCE=true, the admin API on so that the document has every route), then:

1. validates the server's /openapi.json with PyPI's openapi-spec-validator, and checks that it describes DPoP: the
   `DPoP` security scheme, the `DPoP` header parameter on every operation that takes a proof, `WWW-Authenticate` and
   `DPoP-Nonce` on their 401 answers, `token_type` an enum of Bearer and DPoP;
2. generates a Python client from it with PyPI's openapi-python-client (into the scratch directory; nothing here is
   committed) and, with that client and proofs made by PyPI's pydpop, does what a client written from RFC 9449 and
   the document alone does: logs in by code with a proof, meets the nonce challenge (401,
   `WWW-Authenticate: DPoP error="use_dpop_nonce"`, `DPoP-Nonce`, the Mend error shape) and sends the login again
   with the nonce, gets a DPoP-bound session and checks it (`GET /v1/session` with `Authorization: DPoP` and a
   proof), refreshes — meeting the challenge again when it forgets the nonce — and checks the new token; then revokes
   the refresh token without a proof (ends nothing: the session answers), and with one (the session has ended).

    python3 server_openapi_client.py <mend binary> <mend-server binary> <scratch directory>
"""
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pydpop
import requests
from openapi_spec_validator import validate

from emulator_process import Emulator, Results, expect, stop_process
from server_schemathesis import authorization_code, start_server

# The operations that take a DPoP proof: the logins, refresh, logout and revocation, and every operation a session's
# access token authenticates.
PROVED = {
    ("post", "/v1/login/code"), ("post", "/v1/login/id_token"), ("post", "/v1/login/provider-token"),
    ("post", "/v1/session/refresh"), ("post", "/v1/session/logout"), ("post", "/v1/session/revoke"),
    ("get", "/v1/session"), ("get", "/v1/sessions"), ("delete", "/v1/sessions/{id}"), ("get", "/v1/me"),
    ("get", "/v1/me/activity"), ("delete", "/v1/me"),
}
# Of those, the ones a session's access token authenticates (bearer or DPoP).
SESSION_TOKEN = {
    ("post", "/v1/login/id_token"), ("post", "/v1/session/logout"), ("get", "/v1/session"), ("get", "/v1/sessions"),
    ("delete", "/v1/sessions/{id}"), ("get", "/v1/me"), ("get", "/v1/me/activity"), ("delete", "/v1/me"),
}


def check_document(document):
    """openapi-spec-validator's verdict, then what the document must say about DPoP."""
    validate(document)
    schemes = document["components"]["securitySchemes"]
    expect(schemes.get("DPoP") == {**schemes.get("DPoP", {}), "type": "http", "scheme": "DPoP"},
           f"no http security scheme DPoP: {sorted(schemes)}")
    token_type = document["components"]["schemas"]["Session"]["properties"]["token_type"]
    expect(sorted(token_type.get("enum", [])) == ["Bearer", "DPoP"], f"token_type: {token_type}")
    expect("use_dpop_nonce" in document["info"]["description"], "the description says nothing of nonce challenges")
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
            takes = (method, path) in PROVED
            expect(("DPoP" in headers) == takes, f"{method.upper()} {path}: DPoP header parameter {'DPoP' in headers}")
            security = [name for requirement in operation.get("security", []) for name in requirement]
            expect(("DPoP" in security) == ((method, path) in SESSION_TOKEN),
                   f"{method.upper()} {path}: security {security}")
            if takes and "401" in operation["responses"]:
                answer = operation["responses"]["401"]
                if "$ref" in answer:
                    answer = document["components"]["responses"][answer["$ref"].rsplit("/", 1)[-1]]
                expect({"WWW-Authenticate", "DPoP-Nonce"} <= set(answer.get("headers", {})),
                       f"{method.upper()} {path}: 401 without WWW-Authenticate and DPoP-Nonce")
            if takes:
                success = next(v for k, v in operation["responses"].items() if k.startswith("2"))
                expect("DPoP-Nonce" in success.get("headers", {}),
                       f"{method.upper()} {path}: no DPoP-Nonce on its success (nonces are required)")


def generate(document_path, directory):
    """openapi-python-client's package for the document, imported."""
    output = os.path.join(directory, "generated")
    shutil.rmtree(output, ignore_errors=True)
    tool = os.path.join(os.path.dirname(sys.executable), "openapi-python-client")
    run = subprocess.run([tool, "generate", "--path", document_path, "--output-path", output, "--meta", "none"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("openapi-python-client failed:\n" + run.stdout + run.stderr)
    sys.path.insert(0, directory)
    return "generated"


class RFC9449Client:
    """What RFC 9449 tells a client to do, on top of the generated client: a new proof per request (htm, htu, and
    ath with an access token), the latest DPoP-Nonce the server gave in the next proof, and a nonce challenge — 401
    with WWW-Authenticate: DPoP error="use_dpop_nonce" (§9) — answered once by sending again with the nonce."""

    def __init__(self, base_url):
        self.base_url = base_url
        self.key = pydpop.generate_key("ES256")
        self.nonce = None
        self.challenges = []  # (operation, the challenge's status, its WWW-Authenticate, its error body's code)

    def send(self, operation, method, path, call, access_token=None):
        for _ in range(2):
            proof = pydpop.generate_proof(private_key=self.key, htm=method, htu=self.base_url + path,
                                          access_token=access_token, nonce=self.nonce)
            response = call(proof)
            self.nonce = response.headers.get("DPoP-Nonce", self.nonce)
            challenge = response.headers.get("WWW-Authenticate", "")
            if response.status_code != 401 or 'error="use_dpop_nonce"' not in challenge:
                return response
            body = json.loads(response.content)
            self.challenges.append((operation, response.status_code, challenge, body["error"]["code"],
                                    body["error"]["domain"], "DPoP-Nonce" in response.headers))
        return response


def run_client(package, base_url, emulator, results):
    api = importlib.import_module(f"{package}.api.default")
    models = importlib.import_module(f"{package}.models")
    client_module = importlib.import_module(f"{package}.client")
    login_with_code = importlib.import_module(f"{api.__name__}.login_with_code")
    refresh_session = importlib.import_module(f"{api.__name__}.refresh_session")
    introspect_session = importlib.import_module(f"{api.__name__}.introspect_session")

    # openapi-python-client names the `DPoP` header parameter `d_po_p` (its snake case of "DPoP").
    rfc = RFC9449Client(base_url)
    anonymous = client_module.Client(base_url=base_url)
    state = {}

    def bound(token):
        return client_module.AuthenticatedClient(base_url=base_url, token=token, prefix="DPoP")

    def check(token):
        return rfc.send("check", "GET", "/v1/session",
                        lambda proof: introspect_session.sync_detailed(client=bound(token), d_po_p=proof),
                        access_token=token)

    def login():
        body = models.LoginRequest.from_dict(authorization_code(emulator))
        response = rfc.send("login", "POST", "/v1/login/code",
                            lambda proof: login_with_code.sync_detailed(client=anonymous, body=body, d_po_p=proof))
        expect(response.status_code == 200, f"login: {response.status_code} {response.content[:300]!r}")
        session = response.parsed
        expect(session.token_type == models.SessionTokenType.DPOP, f"token_type {session.token_type}")
        expect(rfc.challenges[:1] and rfc.challenges[0][:2] == ("login", 401), f"challenges: {rfc.challenges}")
        expect(rfc.challenges[0][2].startswith('DPoP error="use_dpop_nonce"'), rfc.challenges[0][2])
        expect(rfc.challenges[0][3:] == (21, "session", True), f"the challenge's error and nonce: {rfc.challenges[0]}")
        state["session"] = session

    def checked():
        response = check(state["session"].access_token)
        expect(response.status_code == 200 and response.parsed.valid, f"check: {response.status_code}")
        expect(response.parsed.session_id == state["session"].session_id, "the session checked is the login's")

    def refresh():
        rfc.nonce = None  # a client that lost the nonce: the refresh is challenged as the login was
        before = len(rfc.challenges)
        body = models.RefreshRequest(refresh_token=state["session"].refresh_token)
        response = rfc.send("refresh", "POST", "/v1/session/refresh",
                            lambda proof: refresh_session.sync_detailed(client=anonymous, body=body, d_po_p=proof))
        expect(response.status_code == 200, f"refresh: {response.status_code} {response.content[:300]!r}")
        expect(response.parsed.token_type == models.SessionTokenType.DPOP, f"token_type {response.parsed.token_type}")
        challenge = rfc.challenges[before:]
        expect(len(challenge) == 1 and challenge[0][1] == 401 and challenge[0][3:] == (21, "session", True),
               f"the refresh's challenge: {challenge}")
        state["session"] = response.parsed
        checked()

    def revoke():
        # openapi-python-client 0.29 makes unusable code for a body with two encodings of one schema (the generated
        # revoke_token module uses `Unset` without importing it, and sends the form over the JSON: upstream issues
        # 1451 and 1276), so the revocation is posted as RFC 7009 says, a form, through the generated client's httpx
        # client.
        http = anonymous.get_httpx_client()
        token = {"token": state["session"].refresh_token}
        # Without a proof (RFC 7009 as a client that does not speak DPoP sends it): 200, and nothing ends.
        response = http.post("/v1/session/revoke", data=token)
        expect(response.status_code == 200, f"revoke without a proof: {response.status_code}")
        checked()
        response = rfc.send("revoke", "POST", "/v1/session/revoke",
                            lambda proof: http.post("/v1/session/revoke", data=token, headers={"DPoP": proof}))
        expect(response.status_code == 200, f"revoke with a proof: {response.status_code}")
        ended = check(state["session"].access_token)
        expect(ended.status_code == 401, f"after the revocation: {ended.status_code}")

    results.run("generated client: login by code with a proof, answering the nonce challenge (401)", login)
    results.run("generated client: the bound session checked (GET /v1/session, Authorization: DPoP)", checked)
    results.run("generated client: refresh, challenged for its nonce (401) and answered, then checked", refresh)
    results.run("generated client: revocation without a proof ends nothing; with the key's proof it ends", revoke)


def main():
    mend, mend_server, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(scratch, exist_ok=True)
    results = Results()
    with tempfile.TemporaryDirectory(dir=scratch) as directory, Emulator(mend) as emulator:
        server, base_url = start_server(mend_server, emulator, directory, MEND_DPOP_NONCE="true")
        try:
            document = requests.get(f"{base_url}/openapi.json", timeout=10).json()
            document_path = os.path.join(directory, "openapi.json")
            with open(document_path, "w") as file:
                json.dump(document, file)
            results.run("openapi-spec-validator: the document is valid OpenAPI 3.1, and describes DPoP",
                        check_document, document)
            package = generate(document_path, directory)
            results.run("openapi-python-client: a client generated from the document", importlib.import_module,
                        package)
            run_client(package, base_url, emulator, results)
        finally:
            stop_process(server)
    return results.finish("OpenAPI document and generated client")


if __name__ == "__main__":
    sys.exit(main())
