#!/usr/bin/env python3
"""Passkeys from outside: a real browser's authenticator, a second relying party and a second authenticator.

mend-server runs as a WebAuthn relying party (RP ID `localhost`, the page's loopback origin allowed) in front of
`mend emulate`. Playwright drives Debian's Chromium (no browser download) on a page of that origin; the DevTools
WebAuthn domain gives it a virtual authenticator (ctap2, internal, resident keys, user verification). The page only
runs the browser's own calls — `PublicKeyCredential.parseCreationOptionsFromJSON`, `navigator.credentials.create`,
`.get`, `toJSON()` — on the options mend-server made; this script carries them to and from the server, as an app's
page would with fetch. Checked:

- a passkey added after a provider login and used alone signs in to the same user, for ES256, EdDSA and RS256 each;
- py_webauthn (PyPI `webauthn`) as a second relying party verifies every browser response Mend accepted, against
  Mend's own options (challenge, RP ID, origin);
- a synced passkey (the authenticator's backup eligibility and state on) is stored as backed up;
- a removed passkey answers 404 passkey/4 with the RP ID and credential ID, and the page can pass them to
  `PublicKeyCredential.signalUnknownCredential`;
- user verification refused: the browser's NotAllowedError where it is required, and passkey/3 from the server when
  the options are changed to discourage it;
- an authenticator that holds an excluded credential: the browser's InvalidStateError;
- conditional mediation: the browser says it is available, and a conditional `get` with the server's usernameless
  options is answered by the authenticator's passkey;
- soft-webauthn (its own virtual environment, given as the second argument: it cannot share one with py_webauthn 3)
  as a second authenticator: it sends no user verification, so it runs against a server whose policy prefers it.

Usage: browser_passkeys.py <mend binary> <mend-server binary> <scratch folder> [<python with soft-webauthn>]
"""
import base64
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import requests
from playwright.sync_api import sync_playwright
from webauthn import verify_authentication_response, verify_registration_response

from emulator_process import Emulator, Results, expect, stop_process
from server_schemathesis import authorization_code, start_server

PAGE = b"""<!doctype html><html><body><form><input id="username" autocomplete="username webauthn"></form></body></html>"""

CREATE = """async (options) => {
    const credential = await navigator.credentials.create({
        publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)});
    return credential.toJSON();
}"""
GET = """async ([options, mediation]) => {
    const request = {publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options)};
    if (mediation) request.mediation = mediation;
    const credential = await navigator.credentials.get(request);
    return credential.toJSON();
}"""
FAILING = """async ([kind, options]) => {
    try {
        if (kind === "create") {
            await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)});
        } else {
            await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options)});
        }
        return "no error";
    } catch (error) {
        return error.name;
    }
}"""


def unpadded(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def decoded(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


class Ceremonies:
    """The server, the page and its virtual authenticator, and the steps every check uses."""

    def __init__(self, server, page, cdp, origin):
        self.server, self.page, self.cdp, self.origin = server, page, cdp, origin
        self.authenticator = None

    def new_authenticator(self, **options):
        if self.authenticator is not None:
            self.cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": self.authenticator})
        self.authenticator = self.cdp.send("WebAuthn.addVirtualAuthenticator", {"options": dict(
            protocol="ctap2", transport="internal", hasResidentKey=True, hasUserVerification=True,
            isUserVerified=True, automaticPresenceSimulation=True, **options)})["authenticatorId"]

    def login(self, emulator, user):
        answer = requests.post(f"{self.server}/v1/login/code", json=authorization_code(emulator, user), timeout=30)
        answer.raise_for_status()
        return answer.json()

    def registration_options(self, session):
        answer = requests.post(f"{self.server}/v1/passkeys/registration/options", json={}, timeout=30,
                               headers={"Authorization": f"Bearer {session['access_token']}"})
        answer.raise_for_status()
        return answer.json()

    def register(self, session, options):
        """The browser's credential for `options`, sent to mend-server; (its answer, the credential)."""
        credential = self.page.evaluate(CREATE, options)
        answer = requests.post(f"{self.server}/v1/passkeys/registration", json={"credential": credential},
                               headers={"Authorization": f"Bearer {session['access_token']}"}, timeout=30)
        return answer, credential

    def login_options(self):
        answer = requests.post(f"{self.server}/v1/login/passkey/options", json={}, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def sign_in(self, options, mediation=None):
        credential = self.page.evaluate(GET, [options, mediation])
        answer = requests.post(f"{self.server}/v1/login/passkey", json={"credential": credential}, timeout=30)
        return answer, credential


def second_party_registration(ceremonies, options, credential):
    """py_webauthn's verification of what Mend accepted, against Mend's options."""
    verified = verify_registration_response(
        credential=credential, expected_challenge=decoded(options["challenge"]), expected_origin=ceremonies.origin,
        expected_rp_id="localhost", require_user_verification=True)
    expect(verified.credential_id == decoded(credential["rawId"]), "py_webauthn read another credential ID")
    return verified


def check_algorithm(ceremonies, emulator, user, algorithm):
    ceremonies.new_authenticator()
    session = ceremonies.login(emulator, user)
    options = ceremonies.registration_options(session)
    options["pubKeyCredParams"] = [{"type": "public-key", "alg": algorithm}]
    answer, credential = ceremonies.register(session, options)
    expect(answer.status_code == 201, f"registration answered {answer.status_code}: {answer.text}")
    expect(answer.json()["algorithm"] == algorithm, f"stored algorithm {answer.json()['algorithm']}")
    verified = second_party_registration(ceremonies, options, credential)
    login_options = ceremonies.login_options()
    signed, assertion = ceremonies.sign_in(login_options)
    expect(signed.status_code == 200, f"passkey login answered {signed.status_code}: {signed.text}")
    expect(signed.json()["user"]["id"] == session["user"]["id"], "the passkey signed in another user")
    second = verify_authentication_response(
        credential=assertion, expected_challenge=decoded(login_options["challenge"]), expected_rp_id="localhost",
        expected_origin=ceremonies.origin, credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count, require_user_verification=True)
    expect(second.new_sign_count >= verified.sign_count, "py_webauthn read the counter backwards")


def check_synced(ceremonies, emulator):
    ceremonies.new_authenticator(defaultBackupEligibility=True, defaultBackupState=True)
    session = ceremonies.login(emulator, 3)
    answer, _ = ceremonies.register(session, ceremonies.registration_options(session))
    expect(answer.status_code == 201, f"registration answered {answer.status_code}: {answer.text}")
    expect(answer.json()["backup_eligible"] and answer.json()["backed_up"], f"not stored as synced: {answer.text}")
    signed, _ = ceremonies.sign_in(ceremonies.login_options())
    expect(signed.status_code == 200, f"passkey login answered {signed.status_code}: {signed.text}")


def check_removed(ceremonies, emulator):
    ceremonies.new_authenticator()
    session = ceremonies.login(emulator, 4)
    answer, credential = ceremonies.register(session, ceremonies.registration_options(session))
    removed = requests.delete(f"{ceremonies.server}/v1/passkeys/{answer.json()['id']}", timeout=30,
                              headers={"Authorization": f"Bearer {session['access_token']}"})
    expect(removed.status_code == 204, f"removal answered {removed.status_code}")
    refused, _ = ceremonies.sign_in(ceremonies.login_options())
    body = refused.json()
    expect(refused.status_code == 404, f"a removed passkey answered {refused.status_code}")
    expect(body["error"]["domain"] == "passkey" and body["error"]["code"] == 4, f"not passkey/4: {body}")
    expect(body["passkey"] == {"rp_id": "localhost", "credential_id": credential["rawId"]}, f"{body['passkey']}")
    signal = ceremonies.page.evaluate("""async (passkey) => {
        if (!PublicKeyCredential.signalUnknownCredential) return "not available";
        await PublicKeyCredential.signalUnknownCredential({rpId: passkey.rp_id, credentialId: passkey.credential_id});
        return "signalled";
    }""", body["passkey"])
    expect(signal == "signalled", f"signalUnknownCredential: {signal}")


def check_user_verification(ceremonies, emulator):
    ceremonies.new_authenticator()
    session = ceremonies.login(emulator, 5)
    answer, _ = ceremonies.register(session, ceremonies.registration_options(session))
    expect(answer.status_code == 201, f"registration answered {answer.status_code}")
    ceremonies.cdp.send("WebAuthn.setUserVerified", {"authenticatorId": ceremonies.authenticator, "isUserVerified": False})
    name = ceremonies.page.evaluate(FAILING, ["get", ceremonies.login_options()])
    expect(name == "NotAllowedError", f"UV required and refused: the browser answered {name}")
    options = ceremonies.login_options()
    options["userVerification"] = "discouraged"
    refused, _ = ceremonies.sign_in(options)
    body = refused.json()
    expect(body["error"]["domain"] == "passkey" and body["error"]["code"] == 3, f"not passkey/3: {body}")


def check_excluded(ceremonies, emulator):
    ceremonies.new_authenticator()
    session = ceremonies.login(emulator, 6)
    answer, _ = ceremonies.register(session, ceremonies.registration_options(session))
    expect(answer.status_code == 201, f"registration answered {answer.status_code}")
    again = ceremonies.registration_options(session)
    expect(len(again["excludeCredentials"]) >= 1, "the second options exclude nothing")
    name = ceremonies.page.evaluate(FAILING, ["create", again])
    expect(name == "InvalidStateError", f"an excluded credential: the browser answered {name}")


def check_conditional(ceremonies, emulator):
    ceremonies.new_authenticator()
    session = ceremonies.login(emulator, 7)
    answer, _ = ceremonies.register(session, ceremonies.registration_options(session))
    expect(answer.status_code == 201, f"registration answered {answer.status_code}")
    available = ceremonies.page.evaluate("() => PublicKeyCredential.isConditionalMediationAvailable()")
    expect(available is True, f"isConditionalMediationAvailable: {available}")
    signed, _ = ceremonies.sign_in(ceremonies.login_options(), mediation="conditional")
    expect(signed.status_code == 200, f"a conditional sign-in answered {signed.status_code}: {signed.text}")
    expect(signed.json()["user"]["id"] == session["user"]["id"], "the conditional sign-in found another user")


class SoftAuthenticator:
    """soft-webauthn in its own Python, as a long-lived process that answers one JSON line per ceremony."""

    PROGRAM = r"""
import base64, json, sys
from soft_webauthn import SoftWebauthnDevice
device = SoftWebauthnDevice()
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
def raw(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
for line in sys.stdin:
    kind, options, origin = json.loads(line)
    if kind == "create":
        options["challenge"] = raw(options["challenge"]); options["user"]["id"] = raw(options["user"]["id"])
        answer = device.create({"publicKey": options}, origin)
        response = {"clientDataJSON": b64(answer["response"]["clientDataJSON"]),
                    "attestationObject": b64(answer["response"]["attestationObject"])}
    else:
        options["challenge"] = raw(options["challenge"])
        answer = device.get({"publicKey": options}, origin)
        response = {key: b64(value) for key, value in answer["response"].items()}
    print(json.dumps({"id": b64(answer["rawId"]), "rawId": b64(answer["rawId"]), "type": "public-key",
                      "response": response, "clientExtensionResults": {}}), flush=True)
"""

    def __init__(self, python):
        self.process = subprocess.Popen([python, "-c", self.PROGRAM], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def ceremony(self, kind, options, origin):
        self.process.stdin.write(json.dumps([kind, options, origin]) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def check_soft_webauthn(python, server, emulator, origin):
    soft = SoftAuthenticator(python)
    try:
        ceremonies = Ceremonies(server, None, None, origin)
        session = ceremonies.login(emulator, 8)
        options = ceremonies.registration_options(session)
        credential = soft.ceremony("create", options, origin)
        answer = requests.post(f"{server}/v1/passkeys/registration", json={"credential": credential},
                               headers={"Authorization": f"Bearer {session['access_token']}"}, timeout=30)
        expect(answer.status_code == 201, f"soft-webauthn's registration answered {answer.status_code}: {answer.text}")
        options = ceremonies.login_options()
        assertion = soft.ceremony("get", options, origin)
        signed = requests.post(f"{server}/v1/login/passkey", json={"credential": assertion}, timeout=30)
        expect(signed.status_code == 200, f"soft-webauthn's sign-in answered {signed.status_code}: {signed.text}")
        expect(signed.json()["user"]["id"] == session["user"]["id"], "soft-webauthn signed in another user")
    finally:
        soft.close()


def main():
    mend, mend_server, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
    soft_python = sys.argv[4] if len(sys.argv) > 4 else None
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        print("SKIP passkey browser check: chromium is not installed and could not be installed (see scripts/test)")
        return 0
    os.makedirs(scratch, exist_ok=True)
    page_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=page_server.serve_forever, daemon=True).start()
    origin = f"http://localhost:{page_server.server_address[1]}"
    results = Results()
    with tempfile.TemporaryDirectory(dir=scratch) as directory, Emulator(mend) as emulator:
        os.makedirs(os.path.join(directory, "required"))
        os.makedirs(os.path.join(directory, "preferred"))
        settings = dict(MEND_PASSKEY_RP_ID="localhost", MEND_PASSKEY_ORIGINS=origin, MEND_RATE_LIMIT_LOGIN_IP="off")
        server, base_url = start_server(mend_server, emulator, os.path.join(directory, "required"), **settings)
        lenient, lenient_url = start_server(
            mend_server, emulator, os.path.join(directory, "preferred"), MEND_PASSKEY_USER_VERIFICATION="preferred",
            **settings)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page()
                page.goto(origin + "/")
                cdp = page.context.new_cdp_session(page)
                cdp.send("WebAuthn.enable")
                ceremonies = Ceremonies(base_url, page, cdp, origin)
                for user, (name, algorithm) in enumerate([("ES256", -7), ("EdDSA", -8), ("RS256", -257)]):
                    results.run(f"a {name} passkey added and used alone; py_webauthn agrees", check_algorithm,
                                ceremonies, emulator, user, algorithm)
                results.run("a synced passkey (BE, BS)", check_synced, ceremonies, emulator)
                results.run("a removed passkey: 404 passkey/4, then signalUnknownCredential", check_removed,
                            ceremonies, emulator)
                results.run("user verification refused: NotAllowedError, and passkey/3", check_user_verification,
                            ceremonies, emulator)
                results.run("an excluded credential: InvalidStateError", check_excluded, ceremonies, emulator)
                results.run("conditional mediation (autofill)", check_conditional, ceremonies, emulator)
                browser.close()
            if soft_python:
                results.run("soft-webauthn as a second authenticator (UV preferred)", check_soft_webauthn,
                            soft_python, lenient_url, emulator, origin)
            else:
                print("SKIP soft-webauthn: no second Python with it was given (see scripts/test)")
        finally:
            stop_process(server)
            stop_process(lenient)
            page_server.shutdown()
    return results.finish("passkeys from outside")


if __name__ == "__main__":
    sys.exit(main())
