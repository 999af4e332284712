"""Starts `mend emulate --port 0`, reads the base URL and the ready line, and stops it again.

Shared by the client checks (clients.py) and the browser check (browser_consent.py). All traffic stays on
127.0.0.1: the emulator binds loopback only.
"""
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
import urllib.request


class Emulator:
    """`mend emulate` as a context manager. `environment` replaces the process's environment (None: this one's);
    `banner` keeps the lines it printed up to its ready line."""

    def __init__(self, binary, *arguments, environment=None):
        self.binary = binary
        self.arguments = list(arguments)
        self.environment = environment
        self.process = None
        self.base_url = None
        self.startup_seconds = None
        self.banner = []

    def __enter__(self):
        started = time.monotonic()
        self.process = subprocess.Popen(
            [self.binary, "emulate", "--port", "0", *self.arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.environment)
        deadline = started + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("mend emulate exited before it was ready: " + self.process.stderr.read())
            self.banner.append(line)
            if line.startswith("base URL: "):
                self.base_url = line.split(": ", 1)[1].strip()
            if line.strip() == "ready":
                self.startup_seconds = time.monotonic() - started
                return self
        raise RuntimeError("mend emulate printed no ready line within 30 s")

    def __exit__(self, *exc):
        stop_process(self.process, timeout=10)
        return False

    def control(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + "/_emulator/" + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")


class Results:
    """A tiny runner that prints one line per check and the closing 'N passed, N failed' line."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, function, *args):
        try:
            function(*args)
        except Exception as error:  # noqa: BLE001 - report every failure and go on
            self.failed += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
        else:
            self.passed += 1
            print(f"ok   {name}", flush=True)

    def finish(self, label):
        print(f"{label}: {self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")


def stop_process(process, timeout=15):
    """Stops `process` as a deployment would (SIGTERM), and kills it when it has not exited within `timeout` seconds."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_mend_server(binary, environment, log=None):
    """Starts `mend-server` with `environment` (MEND_PORT=0), waits for its ready line and returns the process and
    its base URL; standard error keeps being read in the background, so the server never blocks on a full pipe.

    With `log` (a file open for writing bytes), everything the server writes goes there too, from its first line:
    standard output directly, standard error line by line through a thread, `process.log_copier`, which ends when the
    process does (join it after `wait()` for the whole log).

    The server drains for no time when stopped (MEND_DRAIN_DELAY=0, unless `environment` says otherwise): no check
    here stands behind a load balancer, and each would wait out the default delay at its end."""
    environment = {"MEND_DRAIN_DELAY": "0", **environment}
    if log is not None:
        return _start_logged_mend_server(binary, environment, log)
    process = subprocess.Popen([binary], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            raise RuntimeError("mend-server exited before it was ready")
        if "mend-server ready" in line:
            match = re.search(r"port=(\d+)", line)
            if match:
                subprocess.Popen(["cat"], stdin=process.stderr, stdout=subprocess.DEVNULL)
                return process, f"http://127.0.0.1:{match.group(1)}"
    raise RuntimeError("mend-server printed no ready line within 60 s")


def _start_logged_mend_server(binary, environment, log):
    process = subprocess.Popen([binary], env=environment, stdout=log, stderr=subprocess.PIPE)
    lines = queue.Queue()  # the lines up to the ready line, for the wait below
    ready = threading.Event()

    def copy():
        for line in process.stderr:
            log.write(line)
            log.flush()
            if not ready.is_set():
                lines.put(line)
        lines.put(None)

    process.log_copier = threading.Thread(target=copy, daemon=True)
    process.log_copier.start()
    deadline = time.monotonic() + 60
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            raise RuntimeError("mend-server exited before it was ready")
        match = re.search(rb"port=(\d+)", line) if b"mend-server ready" in line else None
        if match:
            ready.set()
            return process, f"http://127.0.0.1:{match.group(1).decode()}"
    raise RuntimeError("mend-server printed no ready line within 60 s")
