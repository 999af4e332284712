#!/usr/bin/env python3
"""A fake Mend runner for scripts/stale-peer-matrix.py: the runner protocol, answered the way Mend should.

It is not Mend (the real runner is the MendStaleMatrixClient product): it exists so that the matrix driver can be
tested end to end without Swift. Started as `stale-peer-matrix-fake-runner.py <baseURL>`; reads JSON lines on stdin,
writes one JSON line per request on stdout:

  {"op":"login","user":U,"token":T}   signs U in with T (one session at a time; the last login wins)
  {"op":"get","path":P,"maxStale":S,"timeout":T,"cacheMode":"snapshot"|"http"}
                                      asks the network first; a 200 is stored for the signed-in user (in "http" mode
                                      not when the answer says no-store); on a transient failure (no connection, a
                                      timeout, 502/503/504, 429) the user's stored answer no older than S seconds
                                      answers instead, marked stale with its age and the error it stands in for; any
                                      other failure surfaces; 401 with code session/11 ends the session (and purges)
  {"op":"advance","seconds":N}        moves the clock forward (how entries get older)
  {"op":"signout"}                    signs out and forgets the user's stored answers
  {"op":"quit"}                       ends

STALE_MATRIX_FAKE_DEFECT=shared-store makes it wrong on purpose (one store for every user, never purged), so that the
driver's check can be seen to fail.
"""
import json
import socket
import sys
import time
import urllib.error
import urllib.request

TRANSIENT_STATUSES = {429, 502, 503, 504}
NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the scenario server is on 127.0.0.1


class FakeRunner:
    def __init__(self, base_url: str, shared_store: bool) -> None:
        self.base_url = base_url.rstrip("/")
        self.shared_store = shared_store
        self.user = None
        self.token = None
        self.clock_offset = 0.0
        self.store = {}  # (user, path) -> (body, stored at)

    def now(self) -> float:
        return time.time() + self.clock_offset

    def key(self, path: str):
        return (None if self.shared_store else self.user, path)

    def purge(self, user) -> None:
        if self.shared_store:
            return
        for key in [key for key in self.store if key[0] == user]:
            del self.store[key]

    def handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "login":
            self.user, self.token = request["user"], request["token"]
            return {"ok": True}
        if op == "signout":
            self.purge(self.user)
            self.user = self.token = None
            return {"ok": True}
        if op == "advance":
            self.clock_offset += float(request["seconds"])
            return {"ok": True}
        if op == "get":
            return self.get(request)
        return {"ok": False, "error": f"unknown op {op!r}"}

    def get(self, request: dict) -> dict:
        path = request["path"]
        max_stale = float(request.get("maxStale", 0))
        timeout = float(request.get("timeout", 10))
        mode = request.get("cacheMode", "http")
        if self.user is None:
            return failure("session/not-signed-in")
        http_request = urllib.request.Request(self.base_url + path, headers={"Authorization": f"Bearer {self.token}"})
        try:
            with NO_PROXY_OPENER.open(http_request, timeout=timeout) as answer:
                body = answer.read().decode()
                cache_control = answer.headers.get("Cache-Control", "")
            if mode == "snapshot" or "no-store" not in cache_control:
                self.store[self.key(path)] = (body, self.now())
            return {"status": 200, "body": body, "stale": False, "ageSeconds": None, "error": None}
        except urllib.error.HTTPError as problem:
            text = problem.read().decode(errors="replace")
            status = problem.code
            if status not in TRANSIENT_STATUSES:
                code = error_code(text)
                if status == 401 and code == "session/11":
                    self.purge(self.user)
                    self.user = self.token = None
                    return failure("session/11")
                return failure(f"http/{status}")
            code = f"http/{status}"
        except (TimeoutError, socket.timeout):
            code = "transport/timeout"
        except (urllib.error.URLError, ConnectionError, OSError) as problem:
            reason = getattr(problem, "reason", problem)
            code = "transport/timeout" if isinstance(reason, (TimeoutError, socket.timeout)) else "transport/1"
        entry = self.store.get(self.key(path))
        if entry is not None and max_stale > 0:
            age = self.now() - entry[1]
            if age <= max_stale:
                return {"status": 200, "body": entry[0], "stale": True, "ageSeconds": int(age), "error": code}
        return failure(code)


def error_code(text: str):
    try:
        return json.loads(text)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def failure(code: str) -> dict:
    return {"status": None, "body": None, "stale": False, "ageSeconds": None, "error": code}


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: stale-peer-matrix-fake-runner.py <baseURL>", file=sys.stderr)
        return 2
    import os

    runner = FakeRunner(sys.argv[1], os.environ.get("STALE_MATRIX_FAKE_DEFECT") == "shared-store")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        print(json.dumps(runner.handle(request)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
