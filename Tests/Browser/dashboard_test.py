#!/usr/bin/env python3
"""Headless Chromium opens every dashboard page on generated data.

Starts `footprint serve` on a fresh database filled by `footprint generate`, drives Chromium
through chromedriver's WebDriver HTTP API (standard library only), signs in, opens every page,
checks for console errors and that the overview shows the numbers the report API gives, and
saves a screenshot of each page under artifacts/browser/.

Then the Screens page: starts a connect session, uploads a snapshot of the most clicked page
through `POST /v1/snapshots` (the write key and the session's token) and waits for the live view
to show it, hovers a box and reads its clicks (equal to the elements report's), clicks it,
defines an event from it, publishes the plan, and finds the definition on the definitions page,
in the config page's document and in the plan the SDK fetches (`GET /v1/config`).

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
import urllib.parse
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "artifacts", "browser")
ADMIN_TOKEN = "fpa_browser_test_admin_token_0001"
READ_TOKEN = "fpr_browser_test_read_token_00001"
PAGES = [
    ("/", "Overview"), ("/pages", "Pages"), ("/pages?page=ProductList&from_page=ProductList", "Pages"),
    ("/events", "Events"), ("/elements", "Elements"),
    ("/items", "Exposures"), ("/funnels?step1=page%3AHome&step2=page%3AProductList&step3=event%3A%24element_click",
                              "Funnels"),
    ("/retention", "Retention"), ("/live", "Live events"), ("/screens", "Screens"), ("/definitions", "Definitions"),
    ("/config", "Config"),
]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(method, url, body=None, headers=None, status=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            assert status is None or response.status == status, f"{method} {url}: HTTP {response.status}"
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {url}: HTTP {error.code}: {error.read()[:500]!r}")


def snapshot_of(page, elements, token):
    """A wireframe snapshot (no image) of `page` with a stacked box per element, as a device sends it."""
    return {
        "connect_token": token, "snapshot_id": str(uuid.uuid4()), "anonymous_id": "browser-test-device",
        "page": page, "app_version": "2.0", "build": "1", "os_version": "17.4", "device_model": "iPhone15,2",
        "screen": {"width": 390, "height": 844, "scale": 3}, "taken_at": "2026-12-01T10:00:00.000Z",
        "trigger": "page_appear",
        "elements": [
            {"path": element["path"], "similar_path": re.sub(r"\[(\d+):\d+\]", r"[\1:*]", element["path"]),
             "kind": "button", "frame": {"x": 16, "y": 110 + index * 76, "width": 358, "height": 64},
             "text": element.get("text") or f"Element {index + 1}", "ignored": False, "planned": False}
            for index, element in enumerate(elements)
        ] + [{"path": "#secret:#UITextField#Form", "similar_path": "#secret:#UITextField#Form", "kind": "text_field",
              "frame": {"x": 16, "y": 760, "width": 358, "height": 44}, "ignored": True, "planned": False}],
    }


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

    def find(self, selector):
        return self.command("POST", "/element", {"using": "css selector", "value": selector})

    def hover(self, selector):
        element = self.find(selector)
        self.command("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": element, "x": 0, "y": 0}]}]})
        self.command("DELETE", "/actions")

    def click(self, selector):
        found = self.find(selector)
        assert ELEMENT in found, (selector, found)
        self.command("POST", f"/element/{found[ELEMENT]}/click", {})

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


def screens(browser, base, write_key):
    """Connect session, live snapshot, hover, define from the box, publish; returns the box's clicks."""
    reports = {"Authorization": "Bearer " + READ_TOKEN}
    elements = request("GET", base + "/v1/reports/elements?limit=100", headers=reports)
    top = elements[0]
    shown = [element for element in elements if element.get("page") == top.get("page")][:8]
    browser.open(base + "/screens")
    browser.click("form[action^='/screens/connect'] button")
    link = wait_for(lambda: browser.text("#connect-link"), "the connect link")
    token = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["token"][0]
    assert browser.script("return document.querySelectorAll('.connect svg path').length;") == 1, "no QR code"
    assert browser.text("#live-snapshot .empty"), "the live view waits for the device"

    authorization = "Basic " + base64.b64encode((write_key + ":").encode()).decode()
    uploaded = time.time()
    request("POST", base + "/v1/snapshots", snapshot_of(top.get("page") or "Home", shown, token),
            headers={"Authorization": authorization}, status=201)
    # The live view polls every second; the guard only stops a hang (the delay is reported, not judged).
    wait_for(lambda: browser.script("return document.querySelectorAll('#live-snapshot rect.box').length;")
             == len(shown) + 1, "the uploaded snapshot in the live view", seconds=30)
    appeared = time.time() - uploaded
    browser.script("document.getElementById('live-snapshot').scrollIntoView();")
    browser.screenshot("20-screens-live")

    box = "#live-snapshot rect.box[data-index='0']"
    browser.hover(box)
    wait_for(lambda: browser.text("#element-info dd[data-field='data-clicks']"), "the hover panel")
    assert browser.text("#element-info dd[data-field='data-path']") == top["path"]
    hovered = int(browser.text("#element-info dd[data-field='data-clicks']"))
    assert hovered == top["clicks"], (hovered, top)
    assert int(browser.text("#element-info dd[data-field='data-people']")) == top["uniqueVisitors"]
    assert browser.script("return document.querySelectorAll('#live-snapshot rect.box.ignored').length;") == 1
    browser.screenshot("21-screens-hover")

    # A tap on the device during the session is marked on its box by the live view.
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    tap = {"type": "track", "event": "$element_click", "messageId": str(uuid.uuid4()),
           "anonymousId": "browser-test-device", "timestamp": now,
           "properties": {"$element_path": top["path"], "$page_name": top.get("page") or "Home"}}
    request("POST", base + "/v1/batch", {"batch": [tap], "sentAt": now}, headers={"Authorization": authorization},
            status=200)
    wait_for(lambda: browser.script(
        "var box = document.querySelector(arguments[0]); return box && box.getAttribute('data-taps');", box) == "1",
        "the tap marked on its box", seconds=30)
    assert browser.text("#live-snapshot text.tap-count") == "1"
    browser.screenshot("22-screens-tap")
    top = next(element for element in request("GET", base + "/v1/reports/elements?limit=100", headers=reports)
               if element["path"] == top["path"])
    assert top["clicks"] == hovered + 1, (top, hovered)

    browser.click(box)
    wait_for(lambda: browser.text("h1") == "Define an event", "the define form")
    assert browser.text("#define-path") == top["path"]
    assert browser.text("#define-matches") == f"{top['clicks']:,}", (browser.text("#define-matches"), top)
    browser.script("var form = document.getElementById('define-form');"
                   "form.elements.id.value = 'from_screen'; form.elements.name.value = 'Tapped from a screen';"
                   "form.submit();")
    wait_for(lambda: browser.text("#define-saved"), "the saved definition")
    browser.screenshot("23-screens-defined")
    browser.click("#define-saved form[action^='/definitions/publish'] button")
    wait_for(lambda: browser.text("h1") == "Config", "the config page after publishing")
    document = json.loads(browser.script("return document.querySelector('textarea[name=document]').value;"))
    published = [event for event in document.get("events", []) if event.get("id") == "from_screen"]
    assert published and published[0]["triggers"][0]["path"] == top["path"], document
    assert browser.text("#plan-health") is not None or "No data" in browser.text("main"), "plan health"
    browser.screenshot("24-screens-published")
    plan = request("GET", base + "/v1/config", headers={"Authorization": authorization})
    assert any(event.get("id") == "from_screen" for event in plan.get("events", [])), plan
    browser.open(base + "/definitions")
    assert "from_screen" in browser.text("#definitions"), "the definitions page"

    browser.open(base + "/screens")
    assert browser.text("#screens") and (top.get("page") or "Home") in browser.text("#screens")
    browser.click("#connect-sessions form.danger button")
    wait_for(lambda: browser.text(".notice") == "Ended the connect session.", "the session ended")
    errors = browser.console_errors()
    assert not errors, f"/screens: console errors: {errors}"
    return hovered, appeared


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
        write_key = None
        while write_key is None:
            line = server.stdout.readline()
            assert line, "serve printed no write key"
            found = re.search(r"write key:\s+(\S+)", line)
            write_key = found.group(1) if found else None

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
        clicks, appeared = screens(browser, base, write_key)
        print(f"browser test: {len(PAGES)} pages, overview {shown['Page views']} page views, "
              f"a snapshot in the live view {appeared:.1f} s after its upload, "
              f"a screen's box with {clicks:,} clicks defined and published, no console errors; "
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
