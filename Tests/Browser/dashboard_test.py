#!/usr/bin/env python3
"""Headless Chromium opens every dashboard page on generated data.

Starts `footprint serve` on a fresh database filled by `footprint generate`, drives Chromium
through chromedriver's WebDriver HTTP API (standard library only), signs in, opens every page,
checks for console errors and that the overview shows the numbers the report API gives, and
saves a screenshot of each page under artifacts/browser/.

Usage: dashboard_test.py FOOTPRINT_BINARY
"""

import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "artifacts", "browser")
ADMIN_TOKEN = "fpa_browser_test_admin_token_0001"
READ_TOKEN = "fpr_browser_test_read_token_00001"
PAGES = [
    ("/", "Overview"), ("/pages", "Pages"), ("/pages?page=ProductList&from_page=ProductList", "Pages"),
    ("/events", "Events"), ("/elements", "Elements"),
    ("/items", "Exposures"), ("/funnels?step1=page%3AHome&step2=page%3AProductList&step3=event%3A%24element_click",
                              "Funnels"),
    ("/retention", "Retention"), ("/live", "Live events"), ("/definitions", "Definitions"), ("/config", "Config"),
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {url}: HTTP {error.code}: {error.read()[:500]!r}")


def wait_for(predicate, what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Browser:
    """A WebDriver session with chromedriver."""

    def __init__(self, driver_url):
        self.base = driver_url
        capabilities = {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": shutil.which("chromium") or "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1366,900"],
            },
        }
        answer = request("POST", f"{self.base}/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = f"{self.base}/session/{answer['value']['sessionId']}"

    def command(self, method, path, body=None):
        return request(method, self.session + path, body)["value"]

    def open(self, url):
        self.command("POST", "/url", {"url": url})

    def script(self, source, *args):
        return self.command("POST", "/execute/sync", {"script": source, "args": list(args)})

    def text(self, selector):
        return self.script("var e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector)

    def console_errors(self):
        entries = request("POST", self.session + "/se/log", {"type": "browser"})["value"]
        return [entry for entry in entries if entry.get("level") == "SEVERE"]

    def screenshot(self, name):
        os.makedirs(ARTIFACTS, exist_ok=True)
        with open(os.path.join(ARTIFACTS, name + ".png"), "wb") as file:
            file.write(base64.b64decode(self.command("GET", "/screenshot")))

    def close(self):
        try:
            request("DELETE", self.session)
        except Exception:
            pass


def main():
    footprint = os.path.abspath(sys.argv[1])
    directory = tempfile.mkdtemp(prefix="footprint-browser-")
    database = os.path.join(directory, "events.sqlite")
    processes = []
    browser = None
    try:
        subprocess.run([footprint, "generate", "--events", "20000", "--people", "800", "--days", "14",
                        "--db", database], check=True, stdout=subprocess.DEVNULL)
        server = subprocess.Popen(
            [footprint, "serve", "--db", database, "--port", "0", "--admin-token", ADMIN_TOKEN,
             "--read-token", READ_TOKEN], stdout=subprocess.PIPE, text=True)
        processes.append(server)
        first = server.stdout.readline()
        match = re.search(r"listening on (http://\S+)", first)
        assert match, f"serve printed {first!r}"
        base = match.group(1)

        driver_port = free_port()
        driver = subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        processes.append(driver)
        driver_url = f"http://127.0.0.1:{driver_port}"

        def driver_ready():
            try:
                return request("GET", driver_url + "/status")["value"]["ready"]
            except Exception:
                return False

        wait_for(driver_ready, "chromedriver")
        browser = Browser(driver_url)

        # Signed out: every page leads to the sign-in form.
        browser.open(base + "/pages")
        assert browser.text("h1") == "Sign in to Footprint", browser.text("h1")
        browser.screenshot("00-signin")
        browser.script("document.querySelector('input[name=token]').value = arguments[0];"
                       "document.querySelector('form.signin').submit();", "wrong-token")
        wait_for(lambda: browser.text("p.error"), "the refusal")
        # The refusal is a 401 response, which Chromium logs; reading the log clears it.
        refused = browser.console_errors()
        assert all("401" in entry["message"] for entry in refused), refused
        browser.script("document.querySelector('input[name=token]').value = arguments[0];"
                       "document.querySelector('form.signin').submit();", ADMIN_TOKEN)
        wait_for(lambda: browser.text("h1") == "Overview", "the overview after sign-in")

        expected = request("GET", base + "/v1/reports/traffic",
                           headers={"Authorization": "Bearer " + READ_TOKEN})
        shown = browser.script(
            "var cards = {}; document.querySelectorAll('.card').forEach(function (card) {"
            " cards[card.querySelector('.label').textContent] = card.querySelector('.value').textContent; });"
            " return cards;")
        assert shown["Page views"] == f"{expected['pageViews']:,}", (shown, expected["pageViews"])
        assert shown["Visitors (UV)"] == f"{expected['people']:,}", (shown, expected["people"])
        assert expected["pageViews"] > 0

        for index, (path, title) in enumerate(PAGES, start=1):
            browser.open(base + path)
            assert browser.text("h1") == title, (path, browser.text("h1"))
            if path == "/live":
                wait_for(lambda: browser.script("return document.querySelectorAll('#live tbody tr').length;") > 0,
                         "live events")
            if "page=ProductList" in path:
                assert browser.text("#next-pages") is not None, "the next pages on one page"
            if path.startswith("/funnels"):
                assert browser.text("#funnel") is not None, "the funnel table"
            svg_count = browser.script("return document.querySelectorAll('svg').length;")
            if path in ("/", "/events"):
                assert svg_count > 0, f"{path} has no chart"
            browser.screenshot(f"{index:02d}-{title.lower().replace(' ', '-')}")
            errors = browser.console_errors()
            assert not errors, f"{path}: console errors: {errors}"
        print(f"browser test: {len(PAGES)} pages, overview {shown['Page views']} page views, no console errors; "
              f"screenshots in {os.path.relpath(ARTIFACTS, ROOT)}")
    finally:
        if browser:
            browser.close()
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
