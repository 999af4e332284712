#!/usr/bin/env python3
"""Renders the consent page of `mend emulate` in headless Chromium and drives its form, as a person would.

Chromium is driven over the DevTools protocol (websocket-client): it opens the login dialog, checks what the page
shows (the user, one checkbox per permission, Continue and Cancel), unticks one permission, presses Continue, and
follows the redirect to a loopback callback server run here. The code it receives is then exchanged for a token.
A second run presses Cancel. A screenshot of the page is written to the folder given as second argument.

Usage: browser_consent.py <path to the mend binary> <output folder>
"""
import base64
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import websocket

from emulator_process import Emulator, Results, expect

APP_ID = "111111111111111"
APP_SECRET = "0123456789abcdef0123456789abcdef"
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-domain-reliability",
    "--disable-client-side-phishing-detection", "--disable-sync", "--metrics-recording-only",
    "--disable-default-apps", "--disable-breakpad", "--safebrowsing-disable-auto-update",
    "--remote-debugging-port=0", "--window-size=800,900",
]


class Callback(http.server.BaseHTTPRequestHandler):
    received = []

    def do_GET(self):
        if self.path.startswith("/callback"):  # not /favicon.ico, which Chromium asks for whenever it likes
            Callback.received.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body>callback received</body></html>")

    def log_message(self, *args):
        pass


class Browser:
    def __init__(self, executable):
        self.profile = tempfile.mkdtemp(prefix="mend-chromium-")
        self.process = subprocess.Popen([executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        endpoint = None
        while time.monotonic() < deadline and endpoint is None:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError("chromium exited before DevTools was ready")
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            if match:
                endpoint = match.group(1)
        expect(endpoint, "chromium printed no DevTools endpoint within 30 s")
        threading.Thread(target=self.process.stderr.read, daemon=True).start()  # keep the pipe drained
        port = urllib.parse.urlparse(endpoint).port
        pages = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(p for p in pages if p.get("type") == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        self.next_id = 0
        self.command("Page.enable")
        self.command("Runtime.enable")

    def command(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression, seconds=15):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def dialog_url(emulator, callback_port, state):
    query = urllib.parse.urlencode({
        "client_id": APP_ID, "redirect_uri": f"http://127.0.0.1:{callback_port}/callback",
        "response_type": "code granted_scopes", "scope": "public_profile,email,user_friends", "state": state,
    })
    return f"{emulator.base_url}/v25.0/dialog/oauth?{query}"


def continue_with_one_permission_declined(browser, emulator, callback_port, output):
    Callback.received.clear()
    browser.command("Page.navigate", url=dialog_url(emulator, callback_port, "browser-state"))
    browser.wait_for("document.readyState === 'complete' && !!document.getElementById('consent-form')")
    page = browser.evaluate("""({
        title: document.title,
        user: document.getElementById('user-name').textContent,
        method: document.getElementById('consent-form').method,
        boxes: [...document.querySelectorAll('input[type=checkbox]')].map(b => b.id + ':' + b.checked),
        buttons: [...document.querySelectorAll('button')].map(b => b.textContent)
    })""")
    expect(page["user"] == "Alice Example", f"user {page['user']!r}")
    expect(page["method"] == "post", f"method {page['method']!r}")
    expect(page["boxes"] == ["scope-public_profile:true", "scope-email:true", "scope-user_friends:true"],
           f"checkboxes {page['boxes']}")
    expect(page["buttons"] == ["Cancel", "Continue"], f"buttons {page['buttons']}")
    shot = browser.command("Page.captureScreenshot", format="png")
    with open(os.path.join(output, "consent-page.png"), "wb") as file:
        file.write(base64.b64decode(shot["data"]))
    browser.evaluate("document.getElementById('scope-user_friends').click()")
    browser.evaluate("document.getElementById('continue').click()")
    browser.wait_for("location.pathname === '/callback' && document.readyState === 'complete'")
    expect(Callback.received, "the callback server received nothing")
    params = urllib.parse.parse_qs(urllib.parse.urlparse(Callback.received[-1]).query)
    expect(params.get("state") == ["browser-state"], f"state {params.get('state')}")
    expect(params.get("granted_scopes") == ["public_profile,email"], f"granted {params.get('granted_scopes')}")
    expect(params.get("denied_scopes") == ["user_friends"], f"denied {params.get('denied_scopes')}")
    query = urllib.parse.urlencode({
        "client_id": APP_ID, "client_secret": APP_SECRET, "code": params["code"][0],
        "redirect_uri": f"http://127.0.0.1:{callback_port}/callback",
    })
    token = json.loads(urllib.request.urlopen(f"{emulator.base_url}/v25.0/oauth/access_token?{query}", timeout=10).read())
    expect(token["access_token"].startswith("EAA"), f"token {token}")


def cancel_redirects_with_access_denied(browser, emulator, callback_port):
    Callback.received.clear()
    browser.command("Page.navigate", url=dialog_url(emulator, callback_port, "cancel-state"))
    browser.wait_for("document.readyState === 'complete' && !!document.getElementById('cancel')")
    browser.evaluate("document.getElementById('cancel').click()")
    browser.wait_for("location.pathname === '/callback' && document.readyState === 'complete'")
    params = urllib.parse.parse_qs(urllib.parse.urlparse(Callback.received[-1]).query)
    expect(params.get("error") == ["access_denied"], f"error {params.get('error')}")
    expect(params.get("error_reason") == ["user_denied"], f"reason {params.get('error_reason')}")
    expect(params.get("state") == ["cancel-state"], f"state {params.get('state')}")


def main():
    binary, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        print("SKIP browser check: chromium is not installed and could not be installed (see scripts/test)")
        return 0
    results = Results()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    browser = None
    try:
        with Emulator(binary) as emulator:
            browser = Browser(executable)
            port = server.server_address[1]
            results.run("Chromium renders the consent page and its form grants a subset",
                        continue_with_one_permission_declined, browser, emulator, port, output)
            results.run("Chromium: Cancel redirects with access_denied", cancel_redirects_with_access_denied,
                        browser, emulator, port)
    finally:
        if browser:
            browser.close()
        server.shutdown()
    return results.finish("Browser")


if __name__ == "__main__":
    sys.exit(main())
