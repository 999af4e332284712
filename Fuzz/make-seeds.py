#!/usr/bin/env python3
"""Writes the seed corpora of Mend's fuzz targets into Fuzz/Corpus/<target>/ (committed; scripts/fuzz copies them
into a scratch corpus and never grows them).

The seeds come from the wire facts of the provider (shared reference: Graph API error envelope, usage headers,
login redirects, signed_request), Mend's test fixtures, the emulator's answers and the RFC examples (RFC 9110
Retry-After, RFC 8252 loopback redirects, RFC 7515/7519 tokens); har-redaction's are choice streams of a fixed
generator. Run it again after changing a seed here:

    python3 Fuzz/make-seeds.py

The id-token seeds are signed with keys made afresh on each run (python3-cryptography), so those files change on
every run; the other seeds are stable.
"""
import base64
import hashlib
import hmac
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "Corpus")
NOW = 1_800_000_000  # the harnesses' fixed clock (Support.swift: fuzzNow)


def write(target, name, content):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


def response(status, headers, body):
    head = f"{status}\n" + "".join(f"{name}: {value}\n" for name, value in headers)
    return head + "\n" + body


def b64url(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# --- redirect -------------------------------------------------------------------------------------------------------
STATE = "fuzz-state-0123456789"
BASE = "http://127.0.0.1:8765/callback"
REDIRECTS = {
    "authorized": f"{BASE}?code=AQDx7c9kq2&state={STATE}",
    "authorized-scopes": f"{BASE}?code=AQDx7c9kq2&granted_scopes=email%2Cpublic_profile&denied_scopes=user_posts"
    f"&state={STATE}#_=_",
    "authorized-iss": f"{BASE}?code=AQD&state={STATE}&iss=https%3A%2F%2Fwww.facebook.com",
    "cancelled": f"{BASE}?error=access_denied&error_code=200&error_description=Permissions+error"
    f"&error_reason=user_denied&state={STATE}#_=_",
    "server-error": f"{BASE}?error=server_error&error_description=Try+again&state={STATE}",
    "temporarily-unavailable": f"{BASE}?error=temporarily_unavailable&state={STATE}",
    "provider-error": f"{BASE}?error=invalid_scope&error_description=Invalid+Scopes%3A+foo&state={STATE}",
    "wrong-state": f"{BASE}?code=AQD&state=another-state",
    "no-state": f"{BASE}?code=AQD",
    "token-in-fragment": f"{BASE}#access_token=EAAB&expires_in=5183944&state={STATE}",
    "fragment-code": f"{BASE}#code=AQD&state={STATE}",
    "duplicate-code": f"{BASE}?code=a&code=b&state={STATE}",
    "bad-escape": f"{BASE}?code=%ZZ&state={STATE}",
    "other-host": f"http://evil.example:8765/callback?code=AQD&state={STATE}",
    "other-port": f"http://127.0.0.1:8766/callback?code=AQD&state={STATE}",
    "userinfo": f"http://user:pw@127.0.0.1:8765/callback?code=AQD&state={STATE}",
    "uppercase-host": f"HTTP://127.0.0.1:8765/callback?code=AQD&state={STATE}",
    "mix-up": f"{BASE}?code=AQD&state={STATE}&iss=https%3A%2F%2Fevil.example",
    "query-only": f"?code=AQD&state={STATE}",
    "fragment-only": f"#code=AQD&state={STATE}",
    "plus-and-percent": f"{BASE}?code=a+b%2Bc%26d&state={STATE}",
    "unicode": f"{BASE}?code=%C3%A9t%C3%A9&state={STATE}",
}
for name, text in REDIRECTS.items():
    write("redirect", name, text)

# --- loopback-request -----------------------------------------------------------------------------------------------
HEADS = {
    "chrome": f"GET /callback?code=AQD&state={STATE} HTTP/1.1\r\nHost: 127.0.0.1:8765\r\n"
    "Connection: keep-alive\r\nUpgrade-Insecure-Requests: 1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n"
    "Accept: text/html\r\nSec-Fetch-Site: cross-site\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n",
    "curl-lf": f"GET /callback?state={STATE}&code=x HTTP/1.1\nHost: 127.0.0.1\n\n",
    "favicon": "GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1:8765\r\n\r\n",
    "post": f"POST /callback?state={STATE} HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
    "http10": f"GET /callback?state={STATE} HTTP/1.0\r\n\r\n",
    "http2-preface": "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "incomplete": f"GET /callback?state={STATE} HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    "wrong-state": "GET /callback?state=nope&code=x HTTP/1.1\r\n\r\n",
    "cancelled": f"GET /callback?error=access_denied&error_reason=user_denied&state={STATE} HTTP/1.1\r\n\r\n",
    "absolute-form": f"GET http://127.0.0.1:8765/callback?state={STATE} HTTP/1.1\r\n\r\n",
    "extra-spaces": f"GET  /callback?state={STATE}  HTTP/1.1\r\n\r\n",
    "latin1-header": f"GET /callback?state={STATE} HTTP/1.1\r\nX-Name: caf\xe9\r\n\r\n".encode("latin-1"),
    "target-only": f"/callback?code=AQD&state={STATE}",
}
for name, text in HEADS.items():
    write("loopback-request", name, text)

# --- error-decoders and graphql-response ----------------------------------------------------------------------------
def fixture(path):
    with open(os.path.join(HERE, "..", path), encoding="utf-8") as handle:
        return handle.read()


WWW = 'OAuth "Facebook Platform" "invalid_token" "Error validating access token: Session has expired"'
ERRORS = {
    "graph-token-expired": response(400, [("WWW-Authenticate", WWW), ("x-fb-trace-id", "EJplcsCHuLu"),
                                          ("x-fb-request-id", "A1b2C3"), ("facebook-api-version", "v25.0")],
                                    fixture("Tests/MendCommandsTests/Fixtures/graph-token-expired.json")),
    "graph-password-changed": response(401, [], json.dumps({"error": {
        "message": "Error validating access token: The session has been invalidated because the user changed "
                   "their password.", "type": "OAuthException", "code": 190, "error_subcode": 460,
        "error_user_title": "Session expired", "error_user_msg": "Please log in again.",
        "fbtrace_id": "AbCdEf", "is_transient": False}})),
    "graph-permission": response(403, [], json.dumps({"error": {
        "message": "(#200) Requires extended permission: publish_actions, pages_read_engagement",
        "type": "OAuthException", "code": 200, "fbtrace_id": "Gh1"}})),
    "graph-permission-before": response(400, [], json.dumps({"error": {
        "message": "(#10) This endpoint requires the 'pages_read_engagement' permission or the "
                   "'Page Public Content Access' feature", "type": "OAuthException", "code": 10}})),
    "graph-rate-limit-usage": response(400, [
        ("X-Business-Use-Case-Usage", '{"112233":[{"type":"pages","call_count":100,"total_cputime":20,'
                                      '"total_time":20,"estimated_time_to_regain_access":7}]}'),
        ("X-App-Usage", '{"call_count":100,"total_cputime":25,"total_time":25}'),
        ("Retry-After", "120")],
        json.dumps({"error": {"message": "(#80001) There have been too many calls to this Page account.",
                              "type": "OAuthException", "code": 80001, "is_transient": True,
                              "fbtrace_id": "X"}})),
    "graph-ad-account-limit": response(400, [
        ("X-Ad-Account-Usage", '{"acc_id_util_pct":100,"reset_time_duration":300,"ads_api_access_tier":'
                               '"standard_access"}')],
        json.dumps({"error": {"message": "(#17) User request limit reached", "type": "OAuthException",
                              "code": 17, "error_subcode": 2446079, "is_transient": True}})),
    "graph-transient": response(500, [("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")], json.dumps({"error": {
        "message": "An unexpected error has occurred. Please retry your request later.",
        "type": "OAuthException", "code": 2, "is_transient": True, "fbtrace_id": "Q"}})),
    "graph-legacy": response(400, [], json.dumps({"error_code": 190, "error_msg": "Invalid OAuth 2.0 Access Token",
                                                  "error_reason": "token expired", "request_args": []})),
    "graph-200-with-error": response(200, [], json.dumps({"error": {"message": "Unsupported get request.",
                                                                    "type": "GraphMethodException", "code": 100,
                                                                    "error_subcode": 33}})),
    "graph-batch": response(400, [], json.dumps({"error": {"message": "(#1) Too many requests in batch message. "
                                                           "Maximum batch size is 50", "type": "GraphBatchException",
                                                           "code": 1}})),
    "html-503": response(503, [("Content-Type", "text/html")],
                         fixture("Tests/MendCommandsTests/Fixtures/html-503.html")),
    "empty-500": response(500, [("x-fb-trace-id", "T")], ""),
    "truncated": response(400, [], fixture("Tests/MendCommandsTests/Fixtures/truncated.json")),
    "success": response(200, [("Content-Type", "application/json")], '{"id":"4","name":"Mark"}'),
    "success-not-json": response(200, [], "OK"),
    "no-content": response(204, [], ""),
    "rest-conflict": response(409, [("X-Request-Id", "req-1")],
                              fixture("Tests/MendCommandsTests/Fixtures/rest-conflict.json")),
    "rest-200-status": response(200, [], '{"status":{"code":"409","message":"revision","referenceid":"ref-9",'
                                         '"additionalmessages":["__revision: 4"]}}'),
    "rest-field-errors": response(400, [], json.dumps({"code": 400, "message": "Validation failed",
                                                       "referenceId": 12345, "errors": [
                                                           {"field": "email", "message": "is invalid"},
                                                           "name is required"]})),
    "rest-unknown-cause": response(200, [], '{"status":{"code":"100","message":"?"}}'),
    "mend-service": response(503, [("X-Request-Id", "r-77")], json.dumps({"error": {
        "domain": "graph", "code": 2, "subcode": None, "name": "serviceUnavailable", "category": "transient",
        "recovery": "retry", "message": "upstream", "referenceId": "ref", "additionalMessages": [],
        "retryAfter": 30}})),
    "secret-echo": response(400, [("Authorization", "Bearer EAAFuzzRequestTokenZZ9")], json.dumps({"error": {
        "message": "Invalid token EAAFuzzRequestTokenZZ9", "type": "OAuthException", "code": 190,
        "access_token": "EAAFuzzRequestTokenZZ9"}})),
    "graphql-partial": response(200, [], fixture("Tests/MendCommandsTests/Fixtures/graphql-partial.json")),
    "body-only": '{"error":{"message":"x","code":4}}',
}
for name, text in ERRORS.items():
    write("error-decoders", name, text)

GRAPHQL = {
    "spec-error": response(200, [], fixture("Tests/MendGraphQLTests/Fixtures/spec-error.json")),
    "spec-extensions": response(200, [], fixture("Tests/MendGraphQLTests/Fixtures/spec-extensions.json")),
    "spec-partial-data": response(200, [], fixture("Tests/MendGraphQLTests/Fixtures/spec-partial-data.json")),
    "spec-top-level-code": response(200, [], fixture("Tests/MendGraphQLTests/Fixtures/spec-top-level-code.json")),
    "partial": response(200, [], fixture("Tests/MendCommandsTests/Fixtures/graphql-partial.json")),
    "unauthenticated": response(200, [], json.dumps({"data": None, "errors": [{
        "message": "Not logged in", "extensions": {"code": "UNAUTHENTICATED"}}]})),
    "internal-no-data": response(200, [], json.dumps({"errors": [{
        "message": "boom", "path": ["me"], "extensions": {"code": "INTERNAL_SERVER_ERROR"}}]})),
    "forbidden-partial": response(200, [], json.dumps({"data": {"me": {"email": None}}, "errors": [{
        "message": "Forbidden", "path": ["me", "email"], "extensions": {"code": "FORBIDDEN"}}]})),
    "validation-400": response(400, [("Content-Type", "application/graphql-response+json")], json.dumps({
        "errors": [{"message": "Cannot query field \"nam\" on type \"User\".", "locations": [
            {"line": 1, "column": 8}], "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}]})),
    "bad-user-input": response(200, [], json.dumps({"data": {"createPost": None}, "errors": [{
        "message": "title is too long", "path": ["createPost"], "extensions": {"code": "BAD_USER_INPUT",
                                                                               "field": "title"}}]})),
    "data-only": response(200, [], '{"data":{"me":{"id":"1","name":"Ada"}}}'),
    "extensions": response(200, [], '{"data":{"a":1},"extensions":{"cost":{"requested":3,"limit":1000}}}'),
    "errors-null": response(200, [], '{"data":{"a":1},"errors":null}'),
    "not-graphql": response(200, [], '{"message":"hello"}'),
    "html-502": response(502, [], "<html><body>Bad Gateway</body></html>"),
    "truncated": response(200, [], '{"data":{"me":{"name":"Ada"},"errors":[{"mess'),
    "retry-after-503": response(503, [("Retry-After", "5")], '{"errors":[{"message":"overloaded"}]}'),
    "unauthorized-401": response(401, [("WWW-Authenticate", 'Bearer error="invalid_token"')],
                                 '{"errors":[{"message":"token expired","extensions":{"code":"UNAUTHENTICATED"}}]}'),
    "invalid-errors": response(200, [], '{"errors":[{"msg":"no message key"}]}'),
    "body-only": '{"errors":[{"message":"x","path":["a",0,"b"]}],"data":{"a":[{"b":null}]}}',
}
for name, text in GRAPHQL.items():
    write("graphql-response", name, text)

# --- id-token ---------------------------------------------------------------------------------------------------------
def id_token_seeds():
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    except ImportError:
        print("python3-cryptography is missing: the signed id-token seeds were not written", file=sys.stderr)
        return
    issuer, client, nonce = "https://www.facebook.com", "1234567890", "fuzz-nonce-0123456789"
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = ec_key.public_key().public_numbers()
    rsa_numbers = rsa_key.public_key().public_numbers()

    def int_bytes(value, length=None):
        length = length or (value.bit_length() + 7) // 8
        return value.to_bytes(length, "big")

    ec_jwk = {"kty": "EC", "crv": "P-256", "kid": "ec-1", "use": "sig", "alg": "ES256",
              "x": b64url(int_bytes(numbers.x, 32)), "y": b64url(int_bytes(numbers.y, 32))}
    rsa_jwk = {"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256",
               "n": b64url(int_bytes(rsa_numbers.n)), "e": b64url(int_bytes(rsa_numbers.e))}
    jwks = json.dumps({"keys": [rsa_jwk, ec_jwk]})

    def sign(header, claims):
        signing_input = b64url(json.dumps(header)) + "." + b64url(json.dumps(claims))
        if header.get("alg") == "RS256":
            signature = rsa_key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        elif header.get("alg") == "ES256":
            r, s = decode_dss_signature(ec_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            signature = int_bytes(r, 32) + int_bytes(s, 32)
        else:
            signature = b""
        return signing_input + "." + b64url(signature)

    good = {"iss": issuer, "aud": client, "sub": "100000000000001", "iat": NOW - 30, "exp": NOW + 3600,
            "nonce": nonce, "name": "Ada Lovelace", "email": "ada@example.com", "jti": "j1"}
    tokens = {
        "rs256-valid": ({"alg": "RS256", "kid": "rsa-1", "typ": "JWT"}, good),
        "es256-valid": ({"alg": "ES256", "kid": "ec-1"}, good),
        "aud-array": ({"alg": "ES256", "kid": "ec-1"}, {**good, "aud": ["other", client]}),
        "expired": ({"alg": "RS256", "kid": "rsa-1"}, {**good, "exp": NOW - 3600}),
        "wrong-issuer": ({"alg": "ES256", "kid": "ec-1"}, {**good, "iss": "https://evil.example"}),
        "wrong-audience": ({"alg": "ES256", "kid": "ec-1"}, {**good, "aud": "other"}),
        "wrong-nonce": ({"alg": "ES256", "kid": "ec-1"}, {**good, "nonce": "other"}),
        "old-iat": ({"alg": "ES256", "kid": "ec-1"}, {**good, "iat": NOW - 7200}),
        "unknown-kid": ({"alg": "ES256", "kid": "rotated"}, good),
        "alg-none": ({"alg": "none", "kid": "ec-1"}, good),
        "alg-hs256": ({"alg": "HS256", "kid": "rsa-1"}, good),
        "alg-mismatch": ({"alg": "RS256", "kid": "ec-1"}, good),
    }
    for name, (header, claims) in tokens.items():
        write("id-token", name, sign(header, claims) + "\n" + jwks)
    write("id-token", "own-keys-garbage", "eyJhbGciOiJFUzI1NiIsImtpZCI6ImZ1enotZXMyNTYifQ.e30.AAAA\n")
    write("id-token", "not-a-jwt", "hello\n" + jwks)
    write("id-token", "jwks-not-json", sign({"alg": "ES256", "kid": "ec-1"}, good) + "\n<html>keys</html>")
    write("id-token", "jwks-bad-keys", sign({"alg": "ES256", "kid": "ec-1"}, good) + "\n" + json.dumps(
        {"keys": [{"kty": "EC", "crv": "P-384", "kid": "ec-1", "x": "AA", "y": "AA"},
                  {"kty": "RSA", "kid": "ec-1", "n": "AQAB", "e": "AQAB"}, {"kid": 5}, "x"]}))
    # Signed by the harness (header JSON, newline, payload JSON).
    write("id-token", "harness-signed-valid", json.dumps({"alg": "ES256", "kid": "fuzz-es256"}) + "\n"
          + json.dumps(good))
    write("id-token", "harness-signed-no-nonce", json.dumps({"alg": "ES256", "kid": "fuzz-es256"}) + "\n"
          + json.dumps({k: v for k, v in good.items() if k != "nonce"}))
    write("id-token", "harness-signed-string-times", json.dumps({"alg": "ES256", "kid": "fuzz-es256"}) + "\n"
          + json.dumps({**good, "iat": str(NOW), "exp": "1.8e9"}))
    write("id-token", "harness-signed-rs256-header", json.dumps({"alg": "RS256", "kid": "fuzz-es256"}) + "\n"
          + json.dumps(good))


id_token_seeds()

# --- signed-request -------------------------------------------------------------------------------------------------
SECRET = "0123456789abcdef0123456789abcdef"


def signed_request(payload, secret=SECRET):
    encoded = b64url(json.dumps(payload))
    signature = hmac.new(secret.encode(), encoded.encode(), hashlib.sha256).digest()
    return b64url(signature) + "." + encoded


deauth = {"algorithm": "HMAC-SHA256", "expires": 0, "issued_at": NOW - 60, "user_id": "100000000000001"}
SIGNED = {
    "deauthorize": signed_request(deauth),
    "data-deletion": signed_request({**deauth, "oauth_token": "EAAB", "expires": NOW + 3600}),
    "int-user": signed_request({**deauth, "user_id": 100000000000001}),
    "bad-signature": signed_request(deauth, secret="another secret of the same size!"),
    "expired": signed_request({**deauth, "issued_at": NOW - 7200}),
    "future": signed_request({**deauth, "issued_at": NOW + 3600}),
    "past-expires": signed_request({**deauth, "expires": NOW - 1}),
    "algorithm-none": signed_request({**deauth, "algorithm": "none"}),
    "no-user": signed_request({k: v for k, v in deauth.items() if k != "user_id"}),
    "three-parts": signed_request(deauth) + ".x",
    "padded": signed_request(deauth) + "==",
    # Payloads the harness signs itself (the second half of every run).
    "payload-deauthorize": json.dumps(deauth),
    "payload-string-issued-at": json.dumps({**deauth, "issued_at": str(NOW)}),
    "payload-float-issued-at": json.dumps({**deauth, "issued_at": float(NOW)}),
    "payload-lowercase-algorithm": json.dumps({**deauth, "algorithm": "hmac-sha256"}),
    "payload-array": "[1,2,3]",
    # Found by the harness: the age overflowed (FuzzRegressionTests in MendServerTests).
    "payload-issued-at-int64-min": '{"algorithm":"HMAC-SHA256","issued_at":-9223372036854775808,"user_id":"1"}',
    "payload-issued-at-int64-min-text": '{"algorithm":"HMAC-SHA256","issued_at":"-9223372036854775808","user_id":"1"}',
}
for name, text in SIGNED.items():
    write("signed-request", name, text)

# --- retry-after ----------------------------------------------------------------------------------------------------
RETRY_AFTER = {
    "seconds": "120", "zero": "0", "day": "86400", "huge": "99999999999999999999", "negative": "-5",
    "spaces": "  30  ", "fraction": "1.5",
    "imf-fixdate": "Fri, 15 Jan 2027 08:05:00 GMT",  # RFC 9110 §5.6.7 preferred format
    "imf-fixdate-past": "Sun, 06 Nov 1994 08:49:37 GMT",  # RFC 9110's own example
    "rfc850": "Friday, 15-Jan-27 08:05:00 GMT",
    "asctime": "Fri Jan 15 08:05:00 2027",
    "asctime-one-digit-day": "Sun Nov  6 08:49:37 1994",
    "far-future": "Fri, 31 Dec 9999 23:59:59 GMT",
    "bad-day": "Fri, 32 Jan 2027 08:05:00 GMT",
    "not-a-date": "soon",
    # Found by the fuzzer: DateFormatter leaked on text outside the BMP; ICU read non-ASCII digits
    # (FuzzRegressionTests in MendHTTPTests).
    "outside-bmp": "F 1 Dec -27 0:5\U00011451:00 G]T",
    "fullwidth-digits": "Fri, \uff11\uff15 Jan 2027 08:05:00 GMT",
}
for name, text in RETRY_AFTER.items():
    write("retry-after", name, text)

# --- usage-headers --------------------------------------------------------------------------------------------------
USAGE = {
    "app": "X-App-Usage: {\"call_count\":28,\"total_cputime\":25,\"total_time\":25}\n",
    "ad-account": "X-Ad-Account-Usage: {\"acc_id_util_pct\":9.67,\"reset_time_duration\":100,"
                  "\"ads_api_access_tier\":\"development_access\"}\n",
    "business": "X-Business-Use-Case-Usage: {\"112233\":[{\"type\":\"pages\",\"call_count\":95,\"total_cputime\":20,"
                "\"total_time\":20,\"estimated_time_to_regain_access\":0}]}\n",
    "business-throttled": "X-Business-Use-Case-Usage: {\"112233\":[{\"type\":\"ads_insights\",\"call_count\":100,"
                          "\"total_cputime\":100,\"total_time\":100,\"estimated_time_to_regain_access\":12}],"
                          "\"445566\":[{\"type\":\"pages\",\"call_count\":3,\"estimated_time_to_regain_access\":1}]}\n",
    "all-three": "200\nX-App-Usage: {\"call_count\":100,\"total_cputime\":25,\"total_time\":25}\n"
                 "X-Ad-Account-Usage: {\"acc_id_util_pct\":100,\"reset_time_duration\":300}\n"
                 "X-Business-Use-Case-Usage: {\"1\":[{\"type\":\"pages\",\"call_count\":100,"
                 "\"estimated_time_to_regain_access\":5}]}\n\n",
    "string-numbers": "x-app-usage: {\"call_count\":\"28\",\"total_cputime\":\"2.5e1\",\"total_time\":\"nan\"}\n",
    "huge-regain": "X-Business-Use-Case-Usage: {\"1\":[{\"type\":\"pages\",\"estimated_time_to_regain_access\":1e308}]}\n",
    "negative-reset": "X-Ad-Account-Usage: {\"acc_id_util_pct\":-1,\"reset_time_duration\":-100}\n",
    "not-json": "X-App-Usage: call_count=28\n",
    "duplicate": "X-App-Usage: {\"call_count\":1}\nX-App-Usage: {\"call_count\":2}\n",
    "with-status": "429\nRetry-After: 60\nX-App-Usage: {\"call_count\":100}\n\n{\"error\":{\"code\":4}}",
}
for name, text in USAGE.items():
    write("usage-headers", name, text)

# --- har-redaction -------------------------------------------------------------------------------------------------
# The harness builds a HAR from its input, one byte per choice (HARRedactionDocument.swift): these seeds are choice
# streams, not HAR files. The first byte's parity chooses the mode (even: only recognised secrets and low-entropy text,
# which must be redacted, not refused; odd: adversarial, random high-entropy strings too). Pseudo-random streams from
# a fixed generator (stable across runs) of several lengths in both modes, and the all-zero ones (the plainest
# document of each mode).
def har_redaction_seeds():
    import random
    generator = random.Random(38)
    write("har-redaction", "recognised-plainest", bytes([0]))
    write("har-redaction", "adversarial-plainest", bytes([1]))
    for index, length in enumerate([64, 160, 300, 500, 800, 1200, 1800, 2600]):
        for mode in (0, 1):
            body = bytes(generator.randrange(256) for _ in range(length))
            name = f"{'recognised' if mode == 0 else 'adversarial'}-{index:02d}-{length}"
            write("har-redaction", name, bytes([mode * 1 + 2 * generator.randrange(128)]) + body)
    # Every choice the largest (bytes 0xff: the last option wherever 256 is a multiple of the count), and the middle.
    write("har-redaction", "recognised-high-choices", bytes([0]) + bytes([0xFF]) * 600)
    write("har-redaction", "adversarial-high-choices", bytes([1]) + bytes([0xFF]) * 600)
    write("har-redaction", "recognised-middle-choices", bytes([2]) + bytes([0x55, 0xAA, 0x33, 0xCC]) * 200)


har_redaction_seeds()

# --- jws -----------------------------------------------------------------------------------------------------------
# MendJOSE's compact JWS reader: tokens of the fixed key the harness signs with (Ed25519, seed 32 × 0x2A; JOSEFuzzing),
# the RFC 8037 A.4 example, and one token for each rule the reader keeps (alg none, HMAC, crit, b64, a member twice,
# padding, a second spelling, JWE's five parts, two parts).
def jws_seeds():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.from_private_bytes(bytes([0x2A]) * 32)

    def signed(header, payload):
        head = b64url(header.encode()) + "." + b64url(payload.encode())
        return head + "." + b64url(key.sign(head.encode()))

    claims = '{"iss":"mend","sub":"u","iat":1800000000,"exp":1800000900}'
    write("jws", "fixed-key", signed('{"alg":"EdDSA","kid":"fuzz","typ":"JWT"}', claims))
    write("jws", "fixed-key-string-time", signed('{"alg":"EdDSA"}', '{"exp":"1800000900"}'))
    write("jws", "rfc8037-a4", "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
          "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
    write("jws", "alg-none", b64url(b'{"alg":"none"}') + "." + b64url(claims.encode()) + ".")
    write("jws", "hmac", signed('{"alg":"HS256"}', claims))
    write("jws", "crit", signed('{"alg":"EdDSA","crit":["exp"],"exp":1}', claims))
    write("jws", "b64", signed('{"alg":"EdDSA","b64":false,"crit":["b64"]}', claims))
    write("jws", "member-twice", signed('{"alg":"EdDSA"}', '{"sub":"a","sub":"b"}'))
    write("jws", "padded", signed('{"alg":"EdDSA"}', claims) + "==")
    token = signed('{"alg":"EdDSA"}', claims)
    write("jws", "jwe-five-parts", token + "." + token.split(".")[1] + ".x")
    write("jws", "two-parts", ".".join(token.split(".")[:2]))


jws_seeds()

# --- json ----------------------------------------------------------------------------------------------------------
# Mend's one JSON lexer: bodies of the provider (its error envelope, a page, a batch), a token's header and claims, a
# JWK set, and one text for each rule the lexer keeps and each class the differential test names (a member twice,
# NaN, a lone surrogate, an integer beyond 64 bits, a trailing comma, a byte order mark, deep nesting, cut-off text).
def json_seeds():
    write("json", "graph-error", '{"error":{"message":"Invalid OAuth access token.","type":"OAuthException",'
          '"code":190,"error_subcode":463,"fbtrace_id":"AbCdEf"}}')
    write("json", "graph-page", r'{"data":[{"id":"1","name":"A"},{"id":"2","name":"\u00e9\ud83d\ude00"}],'
          '"paging":{"cursors":{"before":"QVFI","after":"QVFJ"},"next":"https://graph.example/v1/me?after=QVFJ"}}')
    write("json", "batch", '[{"code":200,"headers":[{"name":"Content-Type","value":"text/javascript"}],'
          r'"body":"{\"id\":\"1\"}"},null]')
    write("json", "jwt-claims", '{"iss":"https://issuer.example","sub":"u","aud":["app"],"iat":1800000000,'
          '"exp":1800000900,"cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}')
    write("json", "jwks", '{"keys":[{"kty":"EC","crv":"P-256","kid":"a","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",'
          '"y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}')
    write("json", "numbers", '[0,-0,1.0,-0.25e3,1E2,9223372036854775807,-9223372036854775808,18446744073709551616,'
          '1e308,5e-324,123456789012345678901234567890]')
    write("json", "escapes", r'["\"\\\/\b\f\n\r\t\u0000\u001f\u007f",""," \t\n\r"]')
    write("json", "member-twice", '{"sub":"alice","aud":"app","sub":"mallory"}')
    write("json", "nan", '[NaN,Infinity,-Infinity]')
    write("json", "lone-surrogate", r'["\ud800","\udc00x"]')
    write("json", "trailing-comma", '[1,2,]')
    write("json", "byte-order-mark", b"\xef\xbb\xbf[1]")
    write("json", "deep", "[" * 300 + "]" * 300)
    write("json", "cut-off", '{"error":{"message":"trunc')
    write("json", "top-level-scalars", ' "s" ')


def webauthn_seeds():
    """cbor: RFC 8949 appendix A (Tests/MendWebAuthnTests/Vectors) and the W3C's attestation objects; attestation:
    the W3C test vectors' attestation objects (mode 0), authenticator data (mode 1), and none-es256's assertion
    (mode 2: client data, authenticator data and signature separated by `\\n--\\n`)."""
    vectors_dir = os.path.join(HERE, "..", "Tests", "MendWebAuthnTests", "Vectors")
    with open(os.path.join(vectors_dir, "w3c-webauthn-test-vectors.json")) as handle:
        vectors = json.load(handle)
    with open(os.path.join(vectors_dir, "rfc8949-appendix-a.json")) as handle:
        appendix = json.load(handle)
    for index, case in enumerate(appendix):
        write("cbor", f"rfc8949-{index:02d}", bytes.fromhex(case["hex"]))
    for name in ["none-es256", "packed-self-es256", "packed-rs256", "packed-eddsa", "tpm-es256"]:
        attestation = bytes.fromhex(vectors[name]["registration"]["attestationObject"])
        write("cbor", f"attestation-{name}", attestation)
        write("attestation", f"object-{name}", b"\x00" + attestation)
        write("attestation", f"authdata-{name}",
              b"\x01" + bytes.fromhex(vectors[name]["authentication"]["authenticatorData"]))
    registration = vectors["none-es256"]["registration"]["attestationObject"]
    start = registration.index("68617574684461746158a4") + len("68617574684461746158a4")
    write("attestation", "authdata-attested-none-es256", b"\x01" + bytes.fromhex(registration[start:start + 0xA4 * 2]))
    assertion = vectors["none-es256"]["authentication"]
    write("attestation", "assertion-none-es256", b"\x02" + b"\n--\n".join(
        bytes.fromhex(assertion[key]) for key in ["clientDataJSON", "authenticatorData", "signature"]))


json_seeds()
webauthn_seeds()

print("seeds:", {target: len(os.listdir(os.path.join(CORPUS, target))) for target in sorted(os.listdir(CORPUS))
                 if os.path.isdir(os.path.join(CORPUS, target))})
