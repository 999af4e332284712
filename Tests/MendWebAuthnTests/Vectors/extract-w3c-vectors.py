#!/usr/bin/env python3
"""Writes w3c-webauthn-test-vectors.json from the WebAuthn specification's source (w3c/webauthn index.bs, §16).

    python3 extract-w3c-vectors.py index.bs w3c-webauthn-test-vectors.json
"""
import re, json, sys
text = open(sys.argv[1]).read().splitlines()
start = next(i for i,l in enumerate(text) if l.startswith('<!-- GENERATED CONTENT: Use test-vectors/webauthn-test-vectors.py'))
end = next(i for i,l in enumerate(text) if l.startswith('<!-- END GENERATED CONTENT: Use test-vectors/webauthn-test-vectors.py'))
out = {}
section = None; part = None
for line in text[start:end]:
    m = re.match(r'^## (.*) ## \{#sctn-test-vectors-(.*)\}', line)
    if m:
        section = m.group(2); out[section] = {"title": m.group(1)}; part = None; continue
    if section is None: continue
    if 'registration ceremony|Registration' in line: part = 'registration'; out[section][part] = {}; continue
    if 'authentication ceremony|Authentication' in line: part = 'authentication'; out[section][part] = {}; continue
    m = re.match(r"^(\w+) = h'([0-9a-f]*)'", line)
    if m:
        (out[section][part] if part else out[section])[m.group(1)] = m.group(2)
out.pop('attestation-root-cert', None)
json.dump(out, open(sys.argv[2], 'w'), indent=1, sort_keys=True)
print(list(out))
