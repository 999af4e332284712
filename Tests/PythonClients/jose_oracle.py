"""joserfc as an outside oracle of Mend's JOSE: one process per test, a JSON batch on stdin, one JSON answer on stdout.

Input: {"now": <seconds>, "items": [item, ...]}; each item is one of

- {"op": "verify", "token": ..., "keys": <JWK Set> | "key": <JWK>, "algorithms": [...],
   "claims": {"iss": ..., "aud": ..., "sub": true}}  (claims optional; "sub": true makes sub essential)
  -> {"ok": true, "header": {...}, "claims": {...}} or {"ok": false, "error": "<exception class>"}
- {"op": "sign", "alg": "ES256" | "EdDSA" | "RS256", "kid": ..., "claims": {...}, "header": {...},
   "private_jwk": {...}}  (private_jwk optional: a new key is made without it)
  -> {"token": ..., "jwk": <the public JWK, with kid>}

Verification is what a careful joserfc user writes: jwt.decode with the allowed algorithms and the issuer's keys,
then JWTClaimsRegistry with a minute of leeway (exp, nbf and iat are checked whenever present). The answer says what
joserfc decided; the Swift test decides what that means.
"""

import json
import sys

from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, OKPKey, RSAKey, import_key
from joserfc.jwt import JWTClaimsRegistry


def verify(item, now):
    if "keys" in item:
        key = KeySet.import_key_set(item["keys"])
    else:
        key = import_key(item["key"])
    try:
        token = jwt.decode(item["token"], key, algorithms=item["algorithms"])
        options = {}
        for name, value in (item.get("claims") or {}).items():
            options[name] = {"essential": True} if value is True else {"essential": True, "value": value}
        JWTClaimsRegistry(now=now, leeway=60, **options).validate(token.claims)
        return {"ok": True, "header": token.header, "claims": token.claims}
    except Exception as error:  # noqa: BLE001 - every refusal is an answer
        return {"ok": False, "error": type(error).__name__}


def sign(item):
    alg = item["alg"]
    if "private_jwk" in item:
        key = import_key({**item["private_jwk"], "kid": item["kid"]})
    elif alg == "ES256":
        key = ECKey.generate_key("P-256", parameters={"kid": item["kid"]}, private=True)
    elif alg == "EdDSA":
        key = OKPKey.generate_key("Ed25519", parameters={"kid": item["kid"]}, private=True)
    elif alg == "RS256":
        key = RSAKey.generate_key(2048, parameters={"kid": item["kid"]}, private=True)
    else:
        raise ValueError(alg)
    header = {"alg": alg, "kid": item["kid"], **(item.get("header") or {})}
    token = jwt.encode(header, item["claims"], key, algorithms=[alg])
    return {"token": token, "jwk": key.as_dict(private=False)}


def main():
    batch = json.load(sys.stdin)
    now = batch["now"]
    answers = []
    for item in batch["items"]:
        answers.append(verify(item, now) if item["op"] == "verify" else sign(item))
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
