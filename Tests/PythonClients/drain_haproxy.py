"""mend-server's drain behind a real load balancer: a rolling restart with no failed request.

haproxy (Debian's) with HTTP health checks on `/health/ready` (every 500 ms, down after 2 failures, up after 2
successes) in front of two `mend-server` instances on 127.0.0.1, each with its own SQLite database and the same signing
key; a load generator sends GET /.well-known/jwks.json through haproxy at a steady rate (50 requests per second by
default) while each instance in turn is stopped with SIGTERM, waited for, started again on the same port, and waited
for until haproxy marks it up. haproxy retries nothing (`retries 0`, no redispatch): a request that reaches an instance
whose listener has closed fails, and counts. Each instance is started again only once haproxy has marked it down, as
when its successor comes up elsewhere; with the drain, haproxy must have marked it down before the process exited.

With MEND_DRAIN_DELAY=3s (more than haproxy's 2 failed checks × 500 ms), no request may fail. Then, for comparison
only, one instance is restarted with MEND_DRAIN_DELAY=0 (SIGTERM closes the listener at once, as before the drain):
the requests that fail then are printed, not checked (how many depends on when the checks fall).

    python3 drain_haproxy.py <mend-server binary> <scratch directory> [requests per second]

Ports are picked free at run time (haproxy needs fixed ones for its backends); everything binds 127.0.0.1 only.
"""
import concurrent.futures
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests

from emulator_process import start_mend_server

DRAIN_DELAY = "3s"
CHECK_INTERVAL_MS = 500
FALL = 2
RISE = 2


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Balancer:
    """haproxy in the foreground, its configuration and stats socket in `directory`."""

    def __init__(self, directory, port, backends):
        self.socket_path = os.path.join(directory, "haproxy.sock")
        self.port = port
        servers = "\n".join(f"    server {name} 127.0.0.1:{backend_port} check"
                            for name, backend_port in backends.items())
        configuration = f"""
global
    stats socket {self.socket_path} mode 600 level admin
    maxconn 1024

defaults
    mode http
    retries 0
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout check 1s

frontend web
    bind 127.0.0.1:{port}
    default_backend mend

backend mend
    balance roundrobin
    option httpchk GET /health/ready
    http-check expect status 200
    default-server inter {CHECK_INTERVAL_MS}ms fall {FALL} rise {RISE}
    http-response set-header X-Served-By %s
{servers}
"""
        self.path = os.path.join(directory, "haproxy.cfg")
        with open(self.path, "w") as file:
            file.write(configuration)
        self.log = open(os.path.join(directory, "haproxy.log"), "wb")
        self.process = subprocess.Popen(["haproxy", "-db", "-f", self.path], stdout=self.log, stderr=self.log)

    def statuses(self):
        """Each backend server's status as haproxy's stats socket says (`UP`, `DOWN`, `UP 1/2`, …)."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(self.socket_path)
            connection.sendall(b"show stat\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        lines = data.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        status = header.index("status")
        return {fields[1]: fields[status] for fields in (line.split(",") for line in lines[1:] if line)
                if fields[0] == "mend" and fields[1] not in ("FRONTEND", "BACKEND")}

    def wait_until(self, server, wanted, timeout=60):
        """Waits (polling the stats socket) until haproxy says `server` is `wanted`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.statuses().get(server) == wanted:
                    return
            except OSError:
                pass  # haproxy not listening on its socket yet
            time.sleep(0.05)
        raise RuntimeError(f"haproxy did not mark {server} {wanted} within {timeout} s: {self.statuses()}")

    def stop(self):
        self.process.send_signal(signal.SIGUSR1)  # soft stop
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


class Load:
    """GET `url` at `rate` requests per second, each on a pooled keep-alive connection, until stopped."""

    def __init__(self, url, rate):
        self.url = url
        self.rate = rate
        self.lock = threading.Lock()
        self.sent = 0
        self.answered = {}  # the instance that answered (X-Served-By) -> count
        self.failures = []  # (seconds since start, what)
        self.local = threading.local()
        self.stopping = threading.Event()
        self.workers = concurrent.futures.ThreadPoolExecutor(max_workers=32)
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self.schedule, daemon=True)
        self.thread.start()

    def schedule(self):
        index = 0
        while not self.stopping.is_set():
            due = self.started + index / self.rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            with self.lock:
                self.sent += 1
            self.workers.submit(self.one)
            index += 1

    def one(self):
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.local.session = requests.Session()
        began = time.monotonic() - self.started
        try:
            response = session.get(self.url, timeout=10)
            if response.status_code == 200 and response.json().get("keys"):
                with self.lock:
                    server = response.headers.get("X-Served-By", "?")
                    self.answered[server] = self.answered.get(server, 0) + 1
                return
            failure = f"{response.status_code} from {response.headers.get('X-Served-By', 'haproxy')}"
        except (requests.RequestException, ValueError) as error:
            failure = f"{type(error).__name__}: {error}"
        with self.lock:
            self.failures.append((began, failure))

    def stop(self):
        self.stopping.set()
        self.thread.join()
        self.workers.shutdown(wait=True)
        return self.sent, dict(self.answered), list(self.failures)


class Instance:
    """One mend-server on a fixed port, restarted in place."""

    def __init__(self, name, binary, port, environment, directory):
        self.name, self.binary, self.port = name, binary, port
        self.environment = dict(environment, MEND_PORT=str(port),
                                DATABASE_URL="sqlite://" + os.path.join(directory, f"{name}.sqlite"))
        self.directory = directory
        self.generation = 0
        self.process = None
        self.log = None

    def start(self, drain_delay):
        self.generation += 1
        self.log = open(os.path.join(self.directory, f"{self.name}-{self.generation}.log"), "wb")
        self.process, _ = start_mend_server(
            self.binary, dict(self.environment, MEND_DRAIN_DELAY=drain_delay), log=self.log)

    def stop(self):
        """SIGTERM, then waits for the exit: its status and how long it took."""
        began = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=60)
        self.process.log_copier.join()
        self.log.close()
        return status, time.monotonic() - began


def restart(balancer, instance, drain_delay, restart_delay):
    """Stops `instance` (SIGTERM), waits until haproxy has marked it down (with the drain it already has when the
    process exits), starts it again on its port and waits until haproxy marks it up. Whether haproxy had marked it
    down when it exited."""
    status, took = instance.stop()
    if status != 0:
        raise RuntimeError(f"{instance.name} exited {status} (log: {instance.log.name})")
    down_at_exit = balancer.statuses().get(instance.name, "").startswith("DOWN")
    balancer.wait_until(instance.name, "DOWN")
    instance.start(restart_delay)
    balancer.wait_until(instance.name, "UP")
    print(f"  {instance.name}: MEND_DRAIN_DELAY={drain_delay}, stopped {took:.1f} s after SIGTERM (exit 0), "
          f"{'already' if down_at_exit else 'not yet'} down in haproxy then; up again", flush=True)
    return down_at_exit


def main(binary, scratch, rate):
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    directory = tempfile.mkdtemp(dir=scratch)
    key = subprocess.run([binary, "generate-key"], capture_output=True, text=True, check=True).stdout.split()[-1]
    environment = dict(
        os.environ, MEND_HOST="127.0.0.1", MEND_APP_ID="1", MEND_APP_SECRET="drain-check-secret",
        MEND_GRAPH_URL="http://127.0.0.1:9", MEND_REDIRECT_URIS="https://app.example/callback",
        MEND_SIGNING_KEYS=key, MEND_LOG_LEVEL="notice")
    instances = {name: Instance(name, binary, free_port(), environment, directory) for name in ("a", "b")}
    for instance in instances.values():
        instance.start(DRAIN_DELAY)
    balancer = Balancer(directory, free_port(), {name: i.port for name, i in instances.items()})
    failed = False
    try:
        for name in instances:
            balancer.wait_until(name, "UP")
        url = f"http://127.0.0.1:{balancer.port}/.well-known/jwks.json"
        print(f"haproxy {CHECK_INTERVAL_MS} ms checks, fall {FALL}, rise {RISE}; two instances; {rate} requests/s "
              f"through it; MEND_DRAIN_DELAY={DRAIN_DELAY}", flush=True)

        load = Load(url, rate)
        began = time.monotonic()
        time.sleep(1)
        out_first = [restart(balancer, instance, DRAIN_DELAY, DRAIN_DELAY) for instance in instances.values()]
        time.sleep(1)
        sent, answered, failures = load.stop()
        seconds = time.monotonic() - began
        print(f"rolling restart with the drain: {sent} requests in {seconds:.1f} s, {len(failures)} failed; "
              f"answered by a: {answered.get('a', 0)}, b: {answered.get('b', 0)}", flush=True)
        for at, what in failures[:10]:
            print(f"  failed at {at:.2f} s: {what}")
        if failures or sent < rate * seconds * 0.9 or not all(answered.get(name) for name in instances):
            failed = True
        if not all(out_first):
            print("FAIL: an instance exited before haproxy had taken it out")
            failed = True

        # For comparison: the same restart of one instance without the drain (as before it).
        instances["a"].stop()
        instances["a"].start("0")
        balancer.wait_until("a", "UP")
        load = Load(url, rate)
        time.sleep(1)
        restart(balancer, instances["a"], "0", DRAIN_DELAY)
        time.sleep(1)
        sent, answered, failures = load.stop()
        print(f"for comparison, one restart without the drain (MEND_DRAIN_DELAY=0): {sent} requests, "
              f"{len(failures)} failed (not checked)", flush=True)
        for at, what in failures[:3]:
            print(f"  failed at {at:.2f} s: {what}")
    finally:
        balancer.stop()
        for instance in instances.values():
            if instance.process and instance.process.poll() is None:
                instance.stop()
    if failed:
        print(f"FAIL: requests failed during the rolling restart (logs in {directory})")
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    print("drain behind haproxy: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 50))
