#!/usr/bin/env python3
"""Real clients that no one here wrote, against `mend emulate`.

- requests-oauthlib with its Facebook compliance fix: the authorization-code login (the consent form is
  submitted as a browser would; the client authenticates with HTTP Basic, then with the body), then a Graph read
  with the token.
- Meta's Python Business SDK (facebook-business): a Graph read with the SDK's own appsecret_proof (the app
  requires one), then an injected graph/190/460 that the SDK must report with code 190, subcode 460 and the trace id.

Usage: clients.py <path to the mend binary>
"""
import html.parser
import json
import os
import sys
import tempfile
import urllib.parse

import requests
from facebook_business.api import FacebookAdsApi
from facebook_business.exceptions import FacebookRequestError
from facebook_business.session import FacebookSession
from requests_oauthlib import OAuth2Session
from requests_oauthlib.compliance_fixes import facebook_compliance_fix

from emulator_process import Emulator, Results, expect

APP_ID = "111111111111111"
APP_SECRET = "0123456789abcdef0123456789abcdef"
REDIRECT_URI = "http://127.0.0.1:8765/callback"  # never contacted: the redirect is read from Location
SERVER_APP_ID = "222222222222222"  # a second app that requires appsecret_proof, as server-side apps may
SERVER_APP_SECRET = "fedcba9876543210fedcba9876543210"
VERSION = "v25.0"


class FormReader(html.parser.HTMLParser):
    """Reads the consent page's form as a browser would: action, method, and the fields a submit sends."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.method = None
        self.fields = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action, self.method = attrs.get("action"), attrs.get("method")
        elif tag == "input" and attrs.get("name") and "disabled" not in attrs:
            if attrs.get("type") == "checkbox" and "checked" not in attrs:
                return
            self.fields.append((attrs["name"], attrs.get("value", "on")))
        elif tag == "option" and "selected" in attrs:
            self.fields.append(("user_id", attrs["value"]))


def oauthlib_login_and_graph_read(emulator, include_client_id):
    """One login; the token request authenticates the client with requests-oauthlib's default, HTTP Basic
    (RFC 6749 §2.3.1, which a provider must accept), or with client_id and client_secret in the body
    (include_client_id=True)."""
    os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"  # the emulator speaks plain HTTP on loopback
    session = facebook_compliance_fix(OAuth2Session(APP_ID, redirect_uri=REDIRECT_URI, scope=["public_profile", "email"]))
    authorization_url, state = session.authorization_url(f"{emulator.base_url}/{VERSION}/dialog/oauth")
    page = requests.get(authorization_url, allow_redirects=False, timeout=10)
    expect(page.status_code == 200, f"the dialog answered {page.status_code}")
    form = FormReader()
    form.feed(page.text)
    expect(form.method == "post" and form.action, f"no consent form: {form.method} {form.action}")
    fields = form.fields + [("decision", "continue")]
    answer = requests.post(urllib.parse.urljoin(emulator.base_url, form.action), data=fields,
                           allow_redirects=False, timeout=10)
    expect(answer.status_code == 302, f"the consent answered {answer.status_code}: {answer.text[:200]}")
    location = answer.headers["Location"]
    expect(location.startswith(REDIRECT_URI), f"redirected to {location}")
    token = session.fetch_token(f"{emulator.base_url}/{VERSION}/oauth/access_token", client_secret=APP_SECRET,
                                authorization_response=location, include_client_id=include_client_id)
    expect(token["access_token"].startswith("EAA"), f"token {token!r}")
    expect(token.get("token_type", "").lower() == "bearer", f"token type {token.get('token_type')}")
    me = session.get(f"{emulator.base_url}/{VERSION}/me", params={"fields": "id,name,email"}, timeout=10).json()
    expect(me == {"id": "100000000000001", "name": "Alice Example", "email": "alice@example.com"}, f"/me: {me}")


def sdk_api(emulator, token):
    session = FacebookSession(SERVER_APP_ID, SERVER_APP_SECRET, token)
    session.GRAPH = emulator.base_url  # the SDK's only link to the provider: point it at the emulator
    session.requests.verify = True
    return FacebookAdsApi(session, api_version=VERSION)


def business_sdk_graph_read(emulator):
    token = emulator.control("POST", "tokens", {"userID": "100000000000001", "appID": SERVER_APP_ID,
                                                 "scopes": ["email"]})["access_token"]
    response = sdk_api(emulator, token).call("GET", ("me",), params={"fields": "id,name,email"})
    body = response.json()
    # Without the proof the app refuses the call: the SDK's proof is what made this one pass.
    bare = requests.get(f"{emulator.base_url}/{VERSION}/me", params={"access_token": token}, timeout=10).json()
    expect(bare.get("error", {}).get("code") == 100, f"a call without appsecret_proof passed: {bare}")
    expect(body["name"] == "Alice Example" and body["email"] == "alice@example.com", f"/me: {body}")
    expect(response.headers().get("x-app-usage") is not None, "no X-App-Usage header")


def business_sdk_reports_the_error(emulator):
    token = emulator.control("POST", "tokens", {"userID": "100000000000001", "appID": SERVER_APP_ID})["access_token"]
    emulator.control("POST", "faults", {"error": "graph/190/460", "path": "/me", "times": 1})
    try:
        sdk_api(emulator, token).call("GET", ("me",), params={"fields": "id"})
    except FacebookRequestError as error:
        expect(error.api_error_code() == 190, f"code {error.api_error_code()}")
        expect(error.api_error_subcode() == 460, f"subcode {error.api_error_subcode()}")
        expect(error.api_error_type() == "OAuthException", f"type {error.api_error_type()}")
        expect(error.http_status() == 400, f"status {error.http_status()}")
        trace = error.body()["error"]["fbtrace_id"]
        expect(trace and trace == error.http_headers().get("x-fb-trace-id"), f"trace id {trace!r}")
        expect("password" in error.api_error_message(), f"message {error.api_error_message()!r}")
        log = emulator.control("GET", "requests")
        expect(token not in json.dumps(log), "the request log shows the token")
        expect(log[-1]["status"] == 400 and log[-1]["faultID"], f"log {log[-1]}")
    else:
        raise AssertionError("the SDK reported no error")


def main():
    binary = sys.argv[1]
    results = Results()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
        json.dump({"apps": [{"id": APP_ID, "secret": APP_SECRET, "name": "Mend Emulator App",
                             "redirectURIs": [REDIRECT_URI]},
                            {"id": SERVER_APP_ID, "secret": SERVER_APP_SECRET, "name": "Server App",
                             "requiresAppSecretProof": True}]}, config)
    try:
        with Emulator(binary, "--config", config.name) as emulator:
            # A figure, not a check: a start-up time is no test's business on a loaded machine.
            print(f"mend emulate ready after {emulator.startup_seconds:.3f} s at {emulator.base_url}", flush=True)
            results.run("requests-oauthlib (Facebook compliance fix): login (HTTP Basic client auth) and Graph read",
                        oauthlib_login_and_graph_read, emulator, False)
            results.run("requests-oauthlib (Facebook compliance fix): login (client_secret in the body) and Graph read",
                        oauthlib_login_and_graph_read, emulator, True)
            results.run("facebook-business SDK: Graph read with appsecret_proof", business_sdk_graph_read, emulator)
            results.run("facebook-business SDK: reports graph/190/460 with code, subcode and trace id",
                        business_sdk_reports_the_error, emulator)
    finally:
        os.unlink(config.name)
    return results.finish("Python clients")


if __name__ == "__main__":
    sys.exit(main())
