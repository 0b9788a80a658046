"""The documentation site as a reader sees it, in a real browser.

The site is built with ``mkdocs build --strict``, served on the loopback interface and every page is
loaded in headless Chromium (Debian's ``chromium``), driven over the DevTools protocol on a pipe: no
driver, no extra package. Every page must show:

- no raw reST: no role (``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ...) and no literal
  marker (a paragraph ending in ``::``) in its text;
- no raw LaTeX in its text, every formula typeset by MathJax without an error (``docs/qp.md`` has
  formulas: the check cannot pass by having none);
- no request that leaves the machine (a CDN, web fonts: the site must be self-contained) and no
  failed request (a missing image, script or style sheet), every image decoded, no script error;
- every link into the site reaching a page or a file, and the anchor it names on that page;
- no word of code in a table broken over two lines, and no table wider than the page.

Screenshots of the index and of the QP page, and ``report.json`` (what each page showed), are written
to ``build/docs-check/`` (git-ignored), also when the check fails.

Chromium: ``$HUMANOID_WBC_CHROMIUM`` or ``chromium`` on ``PATH``; ``.ci/run`` installs Debian's when
missing. Without one the test skips, except under CI (``$CI`` set), where it fails.
"""

from __future__ import annotations

import base64
import fcntl
import functools
import http.server
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.docs_site import ROOT, build_site

ARTIFACTS = ROOT / "build" / "docs-check"
#: Each page loads well under 1 s; this bounds a hang, it times nothing [s].
BROWSER_TIMEOUT_S = 60
#: The window the pages are laid out in [CSS px]: a laptop screen, the layout with both sidebars.
WINDOW_PX = (1280, 900)
#: Formulas the QP page must have typeset at least (it has 14 display formulas today).
MIN_QP_FORMULAS = 10
#: site page (folder under the site) -> screenshot file.
SCREENSHOTS = {"": "index.png", "qp/": "qp.png"}

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
pytest.importorskip("mkdocstrings")

# What a page's text must not hold, and what the page reports, measured in the browser. Text inside
# code blocks, inline code, scripts and typeset formulas is not prose and is skipped.
AUDIT_JS = r"""
async () => {
  await document.fonts.ready;
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
  const ROLE = /:(?:py:)?(?:class|meth|attr|data|mod|func|exc|obj|const|ref|doc|term|math|any):/;
  const LATEX = /\\[A-Za-z]+|\\[()\[\]{},;!]|\$\$/;
  // where a finding is: the id of the last heading before it
  const headings = [...document.querySelectorAll("h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]")];
  const where = (node) => {
    let id = "";
    for (const h of headings) {
      if (h.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING) id = h.id;
      else break;
    }
    return id;
  };
  // a private Python name (`_x`, `a._x`; not a dunder) in inline code; quoted strings, `<side>_hand`,
  // `{side}_foot` and globs (`*_phase1`) are not names
  const PRIVATE = /(?:^|[^\w.'"<>{}*%-])((?:[A-Za-z]\w*\.)*_(?!_)[A-Za-z]\w*)/;
  const found = {roles: [], literal_markers: [], latex: [], private_names: []};
  for (const code of document.querySelectorAll("code")) {
    if (code.closest("pre")) continue;
    const m = code.textContent.match(PRIVATE);
    if (m) found.private_names.push(`${where(code)}: ${m[1]} in ${code.textContent.slice(0, 80)}`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("pre, code, script, style, noscript, textarea, mjx-container, svg")) continue;
    const text = node.textContent;
    const snippet = `${where(node)}: ${text.trim().slice(0, 100)}`;
    if (ROLE.test(text)) found.roles.push(snippet);
    if (/::\s*$/.test(text)) found.literal_markers.push(snippet);
    if (LATEX.test(text)) found.latex.push(snippet);
  }
  // Markdown that a docstring's line breaks turned into something else: a continuation line that
  // starts with ">" makes a quote, a list not set off by a blank line stays in its paragraph
  found.stray_quotes = [...document.querySelectorAll(".doc-contents blockquote")].map(
    (el) => `${where(el)}: ${el.textContent.trim().slice(0, 100)}`);
  found.unrendered_lists = [...document.querySelectorAll(".md-content p")].filter(
    (p) => p.textContent.split("\n").slice(1).some((line) => /^\s*(?:[-*+]|\d+[.)])\s/.test(line))).map(
    (p) => `${where(p)}: ${p.textContent.trim().slice(0, 100)}`);
  const formulas = [...document.querySelectorAll(".arithmatex")];
  const words = (code) => {
    // the whitespace-free runs of a code element, each a DOM range
    const ranges = [];
    const texts = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let t = texts.nextNode(); t; t = texts.nextNode()) {
      for (const m of t.textContent.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(t, m.index);
        range.setEnd(t, m.index + m[0].length);
        ranges.push([m[0], range]);
      }
    }
    return ranges;
  };
  const lines = (range) => new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  return {
    ...found,
    formulas: formulas.length,
    untypeset: formulas.filter((el) => !el.querySelector("mjx-container")).map((el) => el.textContent.trim().slice(0, 100)),
    math_errors: [...document.querySelectorAll("[data-mjx-error], [data-mml-node='merror']")].map(
      (el) => el.getAttribute("data-mjx-error") || el.textContent),
    broken_images: [...document.images].filter((img) => !(img.complete && img.naturalWidth > 0)).map((img) => img.src),
    images: document.images.length,
    links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
    ids: [...document.querySelectorAll("[id], a[name]")].map((el) => el.id || el.getAttribute("name")),
    split_table_words: [...document.querySelectorAll(".md-typeset table code")].flatMap(
      (code) => words(code).filter(([, range]) => lines(range) > 1).map(([word]) => word)),
    // a table wider than the text column (Material then scrolls its wrapper sideways)
    wide_tables: [...document.querySelectorAll(".md-typeset table")].map((table) => {
      const column = table.closest(".md-content__inner") || document.body;
      const style = getComputedStyle(column);
      const left = column.getBoundingClientRect().left + parseFloat(style.paddingLeft);
      const room = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return [table, Math.ceil(table.getBoundingClientRect().right - left), Math.floor(room)];
    }).filter(([, width, room]) => width > room + 1).map(
      ([table, width, room]) => `${where(table)}: ${width} px in ${room} px: ${table.innerText.trim().slice(0, 60)}`),
    table_code: document.querySelectorAll(".md-typeset table code").length,
  };
}
"""


#: argv: the fd to become 3, the fd to become 4, the browser's command line.
SHIM = "import os, sys; a, b = map(int, sys.argv[1:3]); os.dup2(a, 3); os.dup2(b, 4); os.close(a); os.close(b); " \
    "os.execv(sys.argv[3], sys.argv[3:])"


class BrowserError(RuntimeError):
    """Chromium did not answer as the DevTools protocol says, or not in time."""


class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``).

    The browser reads JSON messages on its file descriptor 3 and writes them on 4, each ended by a NUL
    byte. One tab, attached with a flat session; calls are synchronous and events are kept in
    ``events`` until cleared.
    """

    def __init__(self, executable: str, profile: Path, window_px: tuple[int, int]):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser's ends go to fds 3 and 4 in a small Python shim that then becomes the browser;
        # moved above 9 first, so that neither dup2 can overwrite the other's source.
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)
        args = [executable, "--headless", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
                "--force-device-scale-factor=1", f"--window-size={window_px[0]},{window_px[1]}"]  # fmt: skip
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.log = profile / "chromium.log"
        with open(self.log, "wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-c", SHIM, str(ends[0]), str(ends[1]), *args],
                pass_fds=ends, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        for fd in ends:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Network", "Log"):
                self.call(f"{domain}.enable", session=self.session)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": window_px[0], "height": window_px[1], "deviceScaleFactor": 1, "mobile": False},
                      session=self.session)  # fmt: skip
        except BaseException:
            self.close()
            raise

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError(f"no message from Chromium in time (its log: {self.log})")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed its pipe (exit {self._process.poll()}; its log: {self.log})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send one command and return its result; events that arrive meanwhile go to ``events``."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data) :]
        deadline = time.monotonic() + BROWSER_TIMEOUT_S
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        """The first event ``method`` of the tab, waiting for it if it has not come yet."""
        deadline = time.monotonic() + BROWSER_TIMEOUT_S
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method and event.get("sessionId") == self.session:
                    return event
            seen = len(self.events)
            self.events.append(self._receive(deadline))

    def load(self, url: str) -> None:
        """Open ``url`` in the tab and wait for its load event; ``events`` then holds this page's."""
        self.events.clear()
        navigation = self.call("Page.navigate", {"url": url}, session=self.session)
        if navigation.get("errorText"):
            raise BrowserError(f"{url}: {navigation['errorText']}")
        self.wait_for("Page.loadEventFired")

    def evaluate(self, function: str):
        """The value of the JavaScript ``function`` (async allowed) called in the page."""
        result = self.call("Runtime.evaluate",
                           {"expression": f"({function})()", "awaitPromise": True, "returnByValue": True},
                           session=self.session)  # fmt: skip
        if "exceptionDetails" in result:
            raise BrowserError(f"the audit script failed: {result['exceptionDetails']}")
        return result["result"]["value"]

    def screenshot(self, path: Path) -> None:
        """The whole page, as laid out in the window's width, as a PNG file."""
        size = self.call("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        shot = self.call("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True, "clip": clip},
                         session=self.session)  # fmt: skip
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        """Close the browser (killed if it does not exit within 10 s) and the pipes."""
        if self._process.poll() is None:
            try:
                self.call("Browser.close")
            except (BrowserError, OSError):
                pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def network_problems(events: list[dict], origin: str) -> list[str]:
    """The page's requests that left ``origin`` or failed, and its script errors, from its events."""
    urls, problems = {}, []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            urls[params["requestId"]] = url
            if urllib.parse.urlsplit(url).scheme in ("http", "https") and not url.startswith(origin):
                problems.append(f"request leaving the site: {url}")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            problems.append(f"HTTP {params['response']['status']}: {params['response']['url']}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            problems.append(f"failed ({params['errorText']}): {urls.get(params['requestId'], '?')}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            problems.append(f"script error: {details.get('exception', {}).get('description', details['text'])}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            problems.append(f"console error: {params['entry']['text']} {params['entry'].get('url', '')}".strip())
    return problems


def find_chromium() -> str | None:
    named = os.environ.get("HUMANOID_WBC_CHROMIUM")
    if named:
        return named
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


#: What each page of a report is checked for (a non-empty list fails).
CHECKS = ("roles", "literal_markers", "latex", "private_names", "stray_quotes", "unrendered_lists", "untypeset",
          "math_errors", "broken_images", "network", "broken_links", "split_table_words", "wide_tables")  # fmt: skip


def chromium_or_skip() -> str:
    chromium = find_chromium()
    if chromium is None:
        message = ("Chromium not found ($HUMANOID_WBC_CHROMIUM, or chromium, chromium-browser, google-chrome "
                   "on PATH): install Debian's, apt-get install chromium (.ci/run does when it is missing)")  # fmt: skip
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return chromium


def audit_site(site: Path, pages: list[str], chromium: str, profile: Path,
               screenshots: dict[str, Path] | None = None) -> dict[str, dict]:  # fmt: skip
    """Serve ``site`` on 127.0.0.1 and load each of ``pages`` (paths under it, ``""`` the index) in
    Chromium: page -> what ``AUDIT_JS`` found there, with ``network`` and ``broken_links`` added
    (each check of ``CHECKS`` a list of findings). ``screenshots``: page -> PNG file to write."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    report: dict[str, dict] = {}
    try:
        browser = Chromium(chromium, profile, WINDOW_PX)
        try:
            for page in pages:
                browser.load(origin + page)
                audit = browser.evaluate(AUDIT_JS)
                audit["network"] = network_problems(browser.events, origin)
                report[page] = audit
                if page in (screenshots or {}):
                    browser.screenshot(screenshots[page])
        finally:
            browser.close()
        # Links into the site: the page or file must exist, and the anchor on a page must be there.
        for audit in report.values():
            audit["broken_links"] = []
            for link in sorted(set(audit["links"])):
                if not link.startswith(origin):
                    continue  # another site (not reachable from here) or another scheme
                path, _, anchor = link[len(origin) :].partition("#")
                path = urllib.parse.unquote(path.split("?")[0])
                if path in report:
                    if anchor and urllib.parse.unquote(anchor) not in report[path]["ids"]:
                        audit["broken_links"].append(f"{link}: no element with that id on the page")
                    continue
                try:
                    urllib.request.urlopen(origin + urllib.parse.quote(path), timeout=10).close()
                except urllib.error.HTTPError as exc:
                    audit["broken_links"].append(f"{link}: HTTP {exc.code}")
    finally:
        server.shutdown()
        server.server_close()
    return report


def test_every_page_renders_in_chromium(tmp_path):
    chromium = chromium_or_skip()
    site = build_site(tmp_path / "site")
    pages = sorted(p.relative_to(site).parent.as_posix() + "/" for p in site.rglob("index.html"))
    pages = ["" if page == "./" else page for page in pages]
    assert "qp/" in pages and "api/wbc_layer/" in pages, pages

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (tmp_path / "profile").mkdir()
    screenshots = {page: ARTIFACTS / name for page, name in SCREENSHOTS.items()}
    report = audit_site(site, pages, chromium, tmp_path / "profile", screenshots)
    (ARTIFACTS / "report.json").write_text(json.dumps(
        {page: {k: v for k, v in audit.items() if k not in ("links", "ids")} for page, audit in report.items()},
        indent=1))  # fmt: skip

    problems = [f"{page or 'index'}: {check} ({len(audit[check])}): {audit[check][:8]}"
                for page, audit in report.items() for check in CHECKS if audit[check]]  # fmt: skip
    assert not problems, f"{len(problems)} problems (all in {ARTIFACTS / 'report.json'}):\n" + "\n".join(problems)
    # what the checks above looked at exists: formulas typeset, an image decoded, code in tables laid out
    assert report["qp/"]["formulas"] >= MIN_QP_FORMULAS, report["qp/"]["formulas"]
    assert report[""]["images"] >= 1 and report[""]["table_code"] >= 3, (report[""]["images"], report[""]["table_code"])
    assert all(path.stat().st_size > 10_000 for path in screenshots.values())


#: A page with one fault of each kind the checks look for (the other site: localhost, not 127.0.0.1).
FAULTY_PAGE = r"""<!doctype html><html><head><meta charset="utf-8">
<script src="http://localhost:{port}/elsewhere.js"></script></head><body>
<div class="md-content"><div class="md-content__inner md-typeset" style="width: 300px">
<h1 id="top">Faults</h1>
<p>See :class:<code>Foo</code> and the private <code>_helper</code>. Usage::</p>
<p>A formula left raw: \[ M \ddot q = 	au \]</p>
<div class="arithmatex">\(x^2\)</div>
<p>A list that stays in its paragraph:
- one
- two</p>
<div class="doc-contents"><blockquote>= 0) a continuation line</blockquote></div>
<img src="missing.png" alt="missing">
<a href="nowhere/">a missing page</a> <a href="#absent">a missing anchor</a> <a href="#top">fine</a>
<table style="width: 40px"><tr><td><code style="word-break: break-all">HumanoidWBCSeesaw-v0</code></td></tr></table>
<table><tr><td><code style="white-space: nowrap">a_very_long_table_entry_that_cannot_fit_in_three_hundred_px</code></td></tr></table>
</div></div></body></html>
"""


#: A 1x1 transparent GIF (base64): an icon for the hand-made site.
TRANSPARENT_GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def test_the_checks_catch_each_fault(tmp_path):
    """The checker itself: a hand-made page with one fault of each kind is reported for every one,
    and the page without them is not (so the site test passing means the faults are absent)."""
    chromium = chromium_or_skip()
    site = tmp_path / "site"
    (site / "clean").mkdir(parents=True)
    (site / "index.html").write_text(FAULTY_PAGE.replace("{port}", "9"))
    # Chromium asks an origin for /favicon.ico once, on whichever page it is at then: a 404 there
    # would fault the clean page half the time (the built site links its own icon).
    (site / "favicon.ico").write_bytes(base64.b64decode(TRANSPARENT_GIF))
    (site / "clean" / "index.html").write_text(
        '<!doctype html><html><body><div class="md-content"><div class="md-content__inner md-typeset">'
        '<h1 id="clean">Clean</h1><p>Plain text, <code>code</code>, a <a href="../#top">link</a>.</p>'
        "</div></div></body></html>")  # fmt: skip
    (tmp_path / "profile").mkdir()
    report = audit_site(site, ["", "clean/"], chromium, tmp_path / "profile")
    missed = [check for check in CHECKS if check != "math_errors" and not report[""][check]]
    assert not missed, {check: report[""][check] for check in CHECKS}
    assert not [check for check in CHECKS if report["clean/"][check]], report["clean/"]
    assert len(report[""]["broken_links"]) == 2, report[""]["broken_links"]  # the page and the anchor, not #top
