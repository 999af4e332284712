#!/usr/bin/env python3
"""authlib, a standard OpenID Connect client library, against the emulated Apple-like and Google-like issuers.

For each issuer: discovery, the authorization request (PKCE S256, state, nonce), the code from the redirect (Google)
or from the form_post page (Apple, which asks for name and email), the token request (Google: the web client's
secret, then the iOS client as a public client with PKCE only; Apple: a client secret that authlib signs as an ES256
JWT with the team key the emulator hands out), then the id_token validated by authlib (signature by the issuer's
JWKS, iss, aud, exp, iat, nonce, at_hash), and a refresh where the issuer gives refresh tokens.

Usage: oidc_authlib.py <path to the mend binary>
"""
import html.parser
import sys
import time
import warnings

import requests
import authlib.deprecate  # sets its own "always" filter for its deprecation warnings: ours must come after it

# authlib.jose is deprecated in favour of joserfc from authlib 2.0; scripts/test pins authlib below 2.
warnings.filterwarnings("ignore", category=authlib.deprecate.AuthlibDeprecationWarning)
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from emulator_process import Emulator, Results, expect

GOOGLE_WEB = ("mend-web.apps.googleusercontent.com", "google-web-secret")
GOOGLE_IOS = "mend-ios.apps.googleusercontent.com"
APPLE_WEB = "com.example.mend.web"


class FormPost(html.parser.HTMLParser):
    """Reads a form_post answer as a browser would before submitting it: the action and the hidden fields."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs.get("action")
        elif tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value", "")


def discover(emulator, kind):
    issuer = f"{emulator.base_url}/{kind}"
    document = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    expect(document["issuer"] == issuer, f"discovery names {document['issuer']}")
    return document


def validated_claims(document, id_token, client_id, nonce, access_token):
    keys = JsonWebKey.import_key_set(requests.get(document["jwks_uri"], timeout=10).json())
    claims = jwt.decode(
        id_token, keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": document["issuer"]}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": access_token})
    claims.validate(leeway=60)
    return claims


def google_flow(emulator, client_id, client_secret):
    document = discover(emulator, "google")
    redirect_uri = "http://127.0.0.1:8766/callback"
    session = OAuth2Session(
        client_id, client_secret, scope="openid email profile", redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_post" if client_secret else "none")
    verifier = "v" * 10 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
    nonce = "nonce-" + str(time.time_ns())
    url, state = session.create_authorization_url(
        document["authorization_endpoint"], code_verifier=verifier, nonce=nonce, access_type="offline")
    answer = requests.get(url, allow_redirects=False, timeout=10)
    expect(answer.status_code == 302, f"the authorization answered {answer.status_code}: {answer.text[:200]}")
    location = answer.headers["Location"]
    expect(location.startswith(redirect_uri), f"redirected to {location}")
    token = session.fetch_token(
        document["token_endpoint"], authorization_response=location, code_verifier=verifier, state=state)
    claims = validated_claims(document, token["id_token"], client_id, nonce, token["access_token"])
    expect(claims["email_verified"] is True, f"email_verified {claims.get('email_verified')!r}")
    expect(claims["hd"] == "example.com", f"hd {claims.get('hd')!r}")
    expect(len(claims["sub"]) == 21 and claims["sub"].isdigit(), f"sub {claims['sub']}")
    info = session.get(document["userinfo_endpoint"], timeout=10).json()
    expect(info["sub"] == claims["sub"] and info["email"] == claims["email"], f"userinfo {info}")
    refreshed = session.refresh_token(document["token_endpoint"], refresh_token=token["refresh_token"])
    expect(refreshed["access_token"] != token["access_token"], "the refresh gave the same access token")
    revoked = requests.post(document["revocation_endpoint"], data={"token": token["refresh_token"]}, timeout=10)
    expect(revoked.status_code == 200, f"revocation answered {revoked.status_code}")


def apple_client_secret(emulator, issuer, client_id):
    control = emulator.control("GET", "issuers")
    key = JsonWebKey.import_key(control["appleTeamKey"], {"kty": "EC"})
    apple = next(item for item in control["issuers"] if item["kind"] == "apple")
    client = next(item for item in apple["clients"] if item["id"] == client_id)
    now = int(time.time())
    header = {"alg": "ES256", "kid": client["appleKeyID"]}
    claims = {"iss": client["appleTeamID"], "iat": now, "exp": now + 3600, "aud": issuer, "sub": client_id}
    return jwt.encode(header, claims, key).decode()


def apple_flow(emulator):
    document = discover(emulator, "apple")
    redirect_uri = "https://app.example/callback"  # never contacted: the form_post page is read instead
    secret = apple_client_secret(emulator, document["issuer"], APPLE_WEB)
    session = OAuth2Session(
        APPLE_WEB, secret, scope="name email", redirect_uri=redirect_uri, code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_post")
    verifier = "w" * 10 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
    nonce = "nonce-" + str(time.time_ns())
    url, state = session.create_authorization_url(
        document["authorization_endpoint"], code_verifier=verifier, nonce=nonce, response_mode="form_post")
    answer = requests.get(url, allow_redirects=False, timeout=10)
    expect(answer.status_code == 200, f"the authorization answered {answer.status_code}: {answer.text[:200]}")
    form = FormPost()
    form.feed(answer.text)
    expect(form.action == redirect_uri, f"the form posts to {form.action}")
    expect(form.fields.get("state") == state, "the state differs")
    expect("firstName" in form.fields.get("user", ""), f"user {form.fields.get('user')!r}")
    token = session.fetch_token(
        document["token_endpoint"], code=form.fields["code"], grant_type="authorization_code",
        code_verifier=verifier)
    claims = validated_claims(document, token["id_token"], APPLE_WEB, nonce, token["access_token"])
    expect(claims["email_verified"] == "true", f"email_verified {claims.get('email_verified')!r}")
    expect(claims["is_private_email"] == "true", f"is_private_email {claims.get('is_private_email')!r}")
    expect(claims["email"].endswith("@privaterelay.appleid.com"), f"email {claims['email']}")
    refreshed = session.refresh_token(document["token_endpoint"], refresh_token=token["refresh_token"])
    validated_claims(document, refreshed["id_token"], APPLE_WEB, None, refreshed["access_token"])
    revoked = requests.post(
        document["revocation_endpoint"],
        data={"client_id": APPLE_WEB, "client_secret": secret, "token": token["refresh_token"],
              "token_type_hint": "refresh_token"}, timeout=10)
    expect(revoked.status_code == 200, f"revocation answered {revoked.status_code}")
    recorded = emulator.control("GET", "issuers/revocations")
    expect(any(item["issuer"] == "apple" and item["tokenKind"] == "refresh" for item in recorded),
           f"revocations {recorded}")


def apple_refuses_a_forged_secret(emulator):
    document = discover(emulator, "apple")
    other = JsonWebKey.generate_key("EC", "P-256", is_private=True)
    now = int(time.time())
    forged = jwt.encode({"alg": "ES256", "kid": "MENDKEY001"},
                        {"iss": "MENDTEAM01", "iat": now, "exp": now + 60, "aud": document["issuer"],
                         "sub": APPLE_WEB}, other).decode()
    answer = requests.post(document["token_endpoint"], data={
        "client_id": APPLE_WEB, "client_secret": forged, "grant_type": "authorization_code", "code": "x"}, timeout=10)
    expect(answer.status_code == 400 and answer.json() == {"error": "invalid_client"}, f"{answer.status_code} {answer.text}")


def main():
    binary = sys.argv[1]
    results = Results()
    with Emulator(binary, "--auto-consent", "grantAll") as emulator:
        results.run("authlib: Google code flow, web client (secret), id_token, userinfo, refresh, revoke",
                    google_flow, emulator, *GOOGLE_WEB)
        results.run("authlib: Google code flow, iOS client (public, PKCE only), id_token",
                    google_flow, emulator, GOOGLE_IOS, None)
        results.run("authlib: Apple code flow (form_post, ES256 client secret), id_token, refresh, revoke",
                    apple_flow, emulator)
        results.run("authlib: Apple refuses a client secret signed with another key", apple_refuses_a_forged_secret,
                    emulator)
    return results.finish("authlib OIDC")


if __name__ == "__main__":
    sys.exit(main())
