"""schemathesis hooks for server_schemathesis.py: DPoP proofs (RFC 9449) made by pydpop, one per call.

Loaded by `st` through SCHEMATHESIS_HOOKS. The session's access token is DPoP-bound to the key in
MEND_SCHEMATHESIS_DPOP_JWK (a private JWK; the login that bound it was proved with it). For every call of an operation
the document says takes a `DPoP` header, the auth provider makes a new proof of that call — its method, its URL
(without query or fragment), `ath` of the access token on the operations a session's token authenticates, and the
server's latest nonce when it has given one — and sends the token as `Authorization: DPoP` on those operations. So the
bound operations are exercised with proofs (their answers checked as every other answer is), and schemathesis's
auth probes (no token, another token) still take the token away and see the refusal.

Read from the environment (set by server_schemathesis.py, never printed): MEND_SCHEMATHESIS_TOKEN,
MEND_SCHEMATHESIS_DPOP_JWK, MEND_SCHEMATHESIS_BASE_URL; MEND_SCHEMATHESIS_DPOP_REPORT names a file where, at exit,
the answers to the calls that carried the session's token with a proof are counted by operation and status.
"""
import atexit
import json
import os
import threading
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import pydpop
import schemathesis
from requests.utils import requote_uri

TOKEN = os.environ["MEND_SCHEMATHESIS_TOKEN"]
KEY = pydpop.private_key_from_jwk(json.loads(os.environ["MEND_SCHEMATHESIS_DPOP_JWK"]))
BASE_URL = os.environ["MEND_SCHEMATHESIS_BASE_URL"]

_nonce = None  # the server's latest DPoP-Nonce
_lock = threading.Lock()
_answers = Counter()  # (operation, status) of the calls that presented the bound token with a proof


def _takes_proof(operation):
    parameters = operation.definition.raw.get("parameters", [])
    return any(p.get("in") == "header" and p.get("name", "").lower() == "dpop" for p in parameters)


def _takes_session_token(operation):
    """Whether the operation's security names the DPoP scheme (a session's access token authenticates it)."""
    return any("DPoP" in requirement for requirement in operation.definition.raw.get("security", []))


def _htu(case, operation):
    """The URL the call goes to, as requests will send it, without query and fragment (RFC 9449 §4.2)."""
    url = requote_uri(operation.schema.build_request_url(case, BASE_URL))
    scheme, netloc, path, _, _ = urlsplit(url)
    return urlunsplit((scheme, netloc, path, "", ""))


@schemathesis.auth(refresh_interval=None)
class DPoPAuth:
    """The bound session's token and a fresh proof per call, on the operations that take one."""

    def get(self, case, context):
        return TOKEN

    def set(self, case, token, context):
        operation = context.operation
        if not _takes_proof(operation):
            return
        bound = _takes_session_token(operation)
        with _lock:
            nonce = _nonce
        headers = dict(case.headers or {})
        if bound:
            headers["Authorization"] = f"DPoP {token}"
        headers["DPoP"] = pydpop.generate_proof(
            private_key=KEY, htm=case.method.upper(), htu=_htu(case, operation),
            access_token=token if bound else None, nonce=nonce)
        case.headers = headers


@schemathesis.hook
def after_call(context, case, response):
    """Keeps the nonce the server gave (RFC 9449 §8): the next proofs carry it."""
    global _nonce
    values = response.headers.get("dpop-nonce")
    sent = {name.lower(): value for name, value in (case.headers or {}).items()}
    with _lock:
        if values:
            _nonce = values[-1] if isinstance(values, list) else values
        if sent.get("authorization") == f"DPoP {TOKEN}" and "dpop" in sent:
            _answers[(f"{case.method.upper()} {case.path}", response.status_code)] += 1


@atexit.register
def _report():
    path = os.environ.get("MEND_SCHEMATHESIS_DPOP_REPORT")
    if path:
        with open(path, "w") as report:
            json.dump([[operation, status, count] for (operation, status), count in sorted(_answers.items())], report)
