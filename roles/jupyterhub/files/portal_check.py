#!/usr/bin/env python3
"""Check the JupyterHub portal the way a user would, in headless Chromium.

Runs on the control host (Debian's chromium and chromium-driver, lab/bin/ensure-browser)
with Selenium; one JSON object on stdin (never argv: it carries a password):

    {"url": "https://127.0.0.1:18000", "username": "alice", "password": "...",
     "gpus": 2, "partition": null, "spki": null, "ca_file": null, "out_dir": "/abs/dir",
     "timeout": 300,
     "chromium": "/usr/bin/chromium", "chromedriver": "/usr/bin/chromedriver",
     "expect_folders": ["templates", "isilon"]}

Steps, each with a screenshot NN-<step>.png in out_dir: log in, fill the spawn form
(GPUs, partition), wait for JupyterLab (a pending Slurm job takes a while), read the file
browser, type into a terminal, run a notebook cell that reports where it runs, open
TensorBoard through jupyter-server-proxy, and stop the server; the stop is tried whenever
the server was started, even after an earlier step failed. A failed step ends the others.

Prints one JSON object: {"ok", "steps": [{"name", "ok", "seconds", "screenshot",
"detail"}], "server", "listing", "gpus_offered", "error"}. Exit 0 when the check ran
(ok may be false), 2 on bad input.

TLS: with "spki" Chromium accepts exactly the certificate key with that SHA-256
(--ignore-certificate-errors-spki-list, which Chromium honours with --user-data-dir);
without it Python's TLS first verifies the portal's certificate, its name included,
against "ca_file" (or this host's trusted CAs), and Chromium is pinned to that key.
Selenium Manager never runs: the driver's path is given to Service, so Selenium's
DriverFinder skips it, and SE_OFFLINE keeps it offline.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

try:
    from selenium import webdriver
    from selenium.common.exceptions import (
        ElementNotInteractableException,
        JavascriptException,
        NoSuchElementException,
        StaleElementReferenceException,
        TimeoutException,
    )
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # the pure parts below are usable (and tested) without Selenium
    webdriver = None


SHOTS = {
    "login": "01-login.png",
    "spawn_form": "02-spawn-form.png",
    "server_ready": "03-server-ready.png",
    "file_browser": "04-file-browser.png",
    "terminal": "05-terminal.png",
    "notebook": "06-notebook.png",
    "tensorboard": "07-tensorboard.png",
    "stop": "08-stopped.png",
}
DEFAULTS = {
    "gpus": 1,
    "partition": None,
    "spki": None,
    "ca_file": None,
    "timeout": 300,
    "chromium": "/usr/bin/chromium",
    "chromedriver": "/usr/bin/chromedriver",
    "expect_folders": ["templates", "isilon"],
}
REQUIRED = ("url", "username", "password", "out_dir")
WINDOW = (1400, 900)
UI_TIMEOUT = 120  # seconds for one page or widget; the server's start has "timeout"
POLL = 0.5
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in the current tab
KERNEL_IDLE = ".jp-Notebook-ExecutionIndicator[data-status=idle]"
WORKSPACE = "portal-check"  # a JupyterLab workspace of its own: the user's stays as it is
MARKER = "PORTAL-CHECK "
SERVER_KEYS = (
    "hostname",
    "slurm_job_id",
    "cuda_visible_devices",
    "slurm_cpus_on_node",
    "terminal",
    "user",
)
TERMINAL_FILE = ".portal-check-terminal"
TERMINAL_COMMAND = (
    'echo "portal-check-terminal $(hostname) ${SLURM_JOB_ID:-none}" > ~/' + TERMINAL_FILE
)
# Run in the notebook. Set as the cell's text through CodeMirror, so JupyterLab's
# auto-closing brackets and quotes never see it typed. The terminal's file is read (a few
# tries: the terminal may still be writing it) and removed, so no later run reads it.
NOTEBOOK_CODE = f"""\
import getpass, json, os, socket, time
path = os.path.expanduser("~/{TERMINAL_FILE}")
terminal = None
for _ in range(20):
    try:
        with open(path) as f:
            terminal = f.read().strip() or None
    except OSError:
        pass
    if terminal:
        os.remove(path)
        break
    time.sleep(0.5)
print("{MARKER}" + json.dumps({{
    "hostname": socket.gethostname(),
    "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    "slurm_cpus_on_node": os.environ.get("SLURM_CPUS_ON_NODE"),
    "terminal": terminal,
    "user": getpass.getuser(),
}}))
"""

# The page is one of Chromium's own error pages (certificate, connection): its code.
JS_BROWSER_ERROR = """
const body = document.body;
if (!body || !(body.classList.contains('ssl') || body.classList.contains('neterror'))) {
  return null;
}
const code = document.querySelector('#error-code, .error-code');
return (code && code.textContent.trim()) || document.title || 'a browser error page';
"""
# JupyterHub's spawn-pending page: whether the start failed, and its last message.
JS_PROGRESS = """
const bar = document.querySelector('#progress-bar');
const message = document.querySelector('#progress-message');
return [!!(bar && bar.classList.contains('progress-bar-danger')),
        message ? message.innerText : ''];
"""
JS_HEADING = "const h = document.querySelector('h1'); return h ? h.innerText : '';"
# The names in JupyterLab's file browser, each with whether it is a folder.
JS_LISTING = """
return Array.from(document.querySelectorAll('.jp-FileBrowser .jp-DirListing-item')).map(
  (li) => [li.querySelector('.jp-DirListing-itemText').textContent.trim(),
           li.getAttribute('data-isdir') === 'true']);
"""
# The launcher card of a Python 3 notebook, or null.
JS_NOTEBOOK_CARD = """
const cards = Array.from(document.querySelectorAll(
  '.jp-Launcher:not(.lm-mod-hidden) .jp-LauncherCard[data-category="Notebook"]'));
return cards.find((c) => (c.getAttribute('title') || '').startsWith('Python 3'))
  || cards.find((c) => /python/i.test(c.getAttribute('title') || '')) || null;
"""
# Replace the text of the current notebook's first cell through its CodeMirror 6 view.
JS_SET_CELL = """
const content = document.querySelector(
  '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .cm-content');
const tile = content && content.cmView;
const view = tile && (tile.view || (tile.rootView && tile.rootView.view));
if (!view) { return null; }
view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: arguments[0]}});
return view.state.doc.toString();
"""
JS_CELL_TEXT = """
const cell = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
const lines = cell ? Array.from(cell.querySelectorAll('.cm-content .cm-line')) : [];
return lines.map((l) => l.textContent).join('\\n');
"""
# The current notebook's first cell: its prompt ("[ ]:", "[*]:", "[1]:") and output.
JS_CELL_STATE = """
const cell = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
if (!cell) { return null; }
const prompt = cell.querySelector('.jp-InputPrompt');
const outputs = Array.from(cell.querySelectorAll('.jp-OutputArea-output'));
return [prompt ? prompt.textContent.trim() : '', outputs.map((o) => o.innerText).join('\\n')];
"""
# TensorBoard's page shows more than its toolbar: dashboards, or why there are none.
JS_TENSORBOARD_LOADED = """
const app = document.querySelector('tb-webapp');
if (!app) { return !!document.querySelector('tf-tensorboard'); }
const header = app.querySelector('app-header');
return app.innerText.trim().length > (header ? header.innerText.trim().length : 0) + 20;
"""
# Delete a file through the single-user server's contents API (with its XSRF cookie).
JS_DELETE_FILE = """
const done = arguments[arguments.length - 1];
const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
const xsrf = document.cookie.match(/(?:^|; )_xsrf=([^;]*)/);
const headers = xsrf ? {'X-XSRFToken': decodeURIComponent(xsrf[1])} : {};
const path = arguments[0].split('/').map(encodeURIComponent).join('/');
const url = config.baseUrl + 'api/contents/' + path;
fetch(url, {method: 'DELETE', headers: headers, credentials: 'same-origin'})
  .then((r) => done(r.status), (e) => done(String(e)));
"""


class InputError(ValueError):
    """The JSON on stdin is not a usable check request."""


class StepFailed(Exception):
    """A step's check came out negative; the message says why."""


class WaitTimeout(StepFailed):
    """What a step waited for did not come in time."""


def _terminated(signum, frame):
    """SIGTERM (Ansible's timeout): the step under way fails, the server is stopped, the
    browser quits and the report is printed, as after any failed step."""
    raise StepFailed(f"terminated by signal {signum}")


@dataclass
class Step:
    name: str
    ok: bool = False
    seconds: float = 0.0
    screenshot: str | None = None
    detail: str = ""


def parse_input(text: str) -> dict:
    """The check request from stdin's JSON, with defaults; InputError names the problem.

    Messages never carry the password.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"stdin is not JSON: {err}") from None
    if not isinstance(raw, dict):
        raise InputError("stdin must hold one JSON object")
    unknown = sorted(set(raw) - set(REQUIRED) - set(DEFAULTS))
    if unknown:
        raise InputError(f"unknown key(s): {', '.join(unknown)}")
    missing = [key for key in REQUIRED if raw.get(key) in (None, "")]
    if missing:
        raise InputError(f"missing: {', '.join(missing)}")
    cfg = {**DEFAULTS, **{key: value for key, value in raw.items() if value is not None}}

    url = cfg["url"]
    parts = urlsplit(url) if isinstance(url, str) else None
    if not parts or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"url must be an http(s) URL, not {url!r}")
    if parts.query or parts.fragment:
        raise InputError("url must have no query or fragment")
    cfg["url"] = url.rstrip("/")
    if not isinstance(cfg["username"], str) or "/" in cfg["username"]:
        raise InputError("username must be a string without '/'")
    if not isinstance(cfg["password"], str):
        raise InputError("password must be a string")
    gpus = cfg["gpus"]
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
        raise InputError(f"gpus must be a whole number of at least 1, not {gpus!r}")
    if cfg["partition"] is not None and (
        not isinstance(cfg["partition"], str) or not cfg["partition"]
    ):
        raise InputError(f"partition must be null or a name, not {cfg['partition']!r}")
    if cfg["spki"] is not None:
        cfg["spki"] = _spki(cfg["spki"])
    if cfg["ca_file"] is not None and (
        not isinstance(cfg["ca_file"], str) or not os.path.isfile(cfg["ca_file"])
    ):
        raise InputError(f"ca_file must be a readable file, not {cfg['ca_file']!r}")
    timeout = cfg["timeout"]
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise InputError(f"timeout must be a positive number of seconds, not {timeout!r}")
    for key in ("out_dir", "chromium", "chromedriver"):
        if not isinstance(cfg[key], str) or not os.path.isabs(cfg[key]):
            raise InputError(f"{key} must be an absolute path, not {cfg[key]!r}")
    folders = cfg["expect_folders"]
    if not isinstance(folders, list) or not all(isinstance(f, str) and f for f in folders):
        raise InputError(f"expect_folders must be a list of names, not {folders!r}")
    return cfg


def _spki(value: object) -> str:
    """A base64 SHA-256 of a SubjectPublicKeyInfo, as Chromium's SPKI list takes it."""
    try:
        digest = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        digest = b""
    if len(digest) != 32:
        raise InputError(
            "spki must be the base64 SHA-256 of the certificate's SubjectPublicKeyInfo "
            "(openssl x509 -pubkey -noout | openssl pkey -pubin -outform der "
            "| openssl dgst -sha256 -binary | base64)"
        )
    return base64.b64encode(digest).decode()


def verified_spki(url: str, ca_file: str | None) -> str:
    """The portal's key as Chromium's SPKI list takes it, after Python's TLS has verified
    the certificate against ca_file (or this host's trusted CAs), its name included: the
    browser is then pinned to exactly that verified key. ssl.SSLError and OSError say why not.
    """
    import hashlib
    import socket
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    parts = urlsplit(url)
    context = ssl.create_default_context(cafile=ca_file)
    with (
        socket.create_connection((parts.hostname, parts.port or 443), timeout=30) as raw,
        context.wrap_socket(raw, server_hostname=parts.hostname) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    key = x509.load_der_x509_certificate(der).public_key()
    spki = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def chrome_arguments(spki: str | None, user_data_dir: str) -> list[str]:
    """Chromium's command line: headless, as root, one pinned key at most, no blanket
    --ignore-certificate-errors; the SPKI list takes effect only with a --user-data-dir."""
    arguments = [
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={user_data_dir}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--lang=en-US",
    ]
    if spki:
        arguments.append(f"--ignore-certificate-errors-spki-list={spki}")
    return arguments


def parse_output(text: str) -> dict:
    """The notebook's report: the one line that starts with PORTAL-CHECK, as JSON."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith(MARKER):
            continue
        try:
            data = json.loads(line[len(MARKER) :])
        except json.JSONDecodeError as err:
            raise ValueError(f"the {MARKER.strip()} line is not JSON: {err}") from None
        if not isinstance(data, dict):
            raise ValueError(f"the {MARKER.strip()} line is not a JSON object")
        missing = [key for key in SERVER_KEYS if key not in data]
        if missing:
            raise ValueError(f"the {MARKER.strip()} line lacks {', '.join(missing)}")
        return data
    raise ValueError(f"no line starts with {MARKER.strip()}: {_clip(text)!r}")


def expected_terminal(server: dict) -> str:
    """What TERMINAL_COMMAND wrote, when it ran where the notebook's kernel runs."""
    return f"portal-check-terminal {server.get('hostname')} {server.get('slurm_job_id') or 'none'}"


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_line(err: BaseException) -> str:
    message = (getattr(err, "msg", None) or str(err)).strip()
    return _clip(message.splitlines()[0]) if message else type(err).__name__


class Portal:
    """One run of the check against one hub, in one browser."""

    def __init__(self, driver, cfg: dict) -> None:
        self.driver = driver
        self.cfg = cfg
        self.out_dir = Path(cfg["out_dir"])
        self.prefix = urlsplit(cfg["url"]).path.rstrip("/")  # a hub under a base URL
        self.origin = cfg["url"][: len(cfg["url"]) - len(self.prefix)]
        self.name = cfg["username"]
        self.started = False
        self.steps: list[Step] = []
        self.server: dict = {}
        self.listing: list[str] = []
        self.gpus_offered: list[str] = []
        self._step: Step | None = None

    # -- the run -------------------------------------------------------------------

    def check(self) -> dict:
        plan = [
            ("login", self.login),
            ("spawn_form", self.spawn_form),
            ("server_ready", self.server_ready),
            ("file_browser", self.file_browser),
            ("terminal", self.terminal),
            ("notebook", self.notebook),
            ("tensorboard", self.tensorboard),
        ]
        try:
            for name, func in plan:
                if not self.run(name, func):
                    break
        finally:
            if self.started:
                self.run("stop", self.stop)
        failed = next((s for s in self.steps if not s.ok), None)
        return {
            "ok": failed is None and len(self.steps) == len(SHOTS),
            "steps": [asdict(step) for step in self.steps],
            "server": self.server,
            "listing": self.listing,
            "gpus_offered": self.gpus_offered,
            "error": f"{failed.name}: {failed.detail}" if failed else None,
        }

    def run(self, name: str, func) -> bool:
        step = self._step = Step(name)
        began = time.monotonic()
        try:
            step.detail = func() or ""
            step.ok = True
        except StepFailed as err:
            step.detail = str(err)
        except Exception as err:
            step.detail = f"{type(err).__name__}: {_first_line(err)}"
        if step.screenshot is None:
            self.screenshot()
        step.seconds = round(time.monotonic() - began, 1)
        step.detail = self.scrub(step.detail)
        self.steps.append(step)
        return step.ok

    def scrub(self, text: str) -> str:
        password = self.cfg["password"]
        return text.replace(password, "***") if password else text

    def screenshot(self) -> None:
        """This step's screenshot, now (a step takes one itself where it matters)."""
        step = self._step
        if step is None:
            return
        with suppress(Exception):
            if self.driver.save_screenshot(str(self.out_dir / SHOTS[step.name])):
                step.screenshot = SHOTS[step.name]

    # -- browser helpers -------------------------------------------------------------

    def load(self, path: str) -> None:
        """Open a path of the hub; a page still loading when the page-load timeout
        ends is left to the waits that follow."""
        with suppress(TimeoutException):
            self.driver.get(self.origin + path)

    def path(self) -> str:
        return urlsplit(self.driver.current_url).path

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, condition, what: str, timeout: float = UI_TIMEOUT):
        """What condition(driver) returns once truthy, polled; Chromium's own error pages
        (certificate, connection) end the wait early, with their code."""

        def probe(driver):
            self.browser_error()
            return condition(driver)

        waiting = WebDriverWait(
            self.driver,
            timeout,
            poll_frequency=POLL,
            ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
        )
        try:
            return waiting.until(probe)
        except TimeoutException:
            raise WaitTimeout(
                f"timed out after {timeout:g}s waiting for {what} (at {self.path()})"
            ) from None

    def browser_error(self) -> None:
        error = self.js(JS_BROWSER_ERROR)
        if error:
            raise StepFailed(f"{error} at {self.path()}")

    def settled(self) -> None:
        self.wait(lambda d: self.js("return document.readyState") == "complete", "the page")

    def shown(self, css: str) -> list:
        return [e for e in self.driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]

    def user_path(self) -> str:
        return f"{self.prefix}/user/{quote(self.name, safe='@~')}/"

    # -- steps -----------------------------------------------------------------------

    def login(self) -> str:
        self.load(f"{self.prefix}/hub/login")
        self.wait(lambda d: d.find_elements(By.NAME, "password"), "the login form")
        self.driver.find_element(By.NAME, "username").send_keys(self.cfg["username"])
        password = self.driver.find_element(By.NAME, "password")
        password.send_keys(self.cfg["password"])
        form = password.find_element(By.XPATH, "./ancestor::form")
        form.find_element(By.CSS_SELECTOR, "[type=submit]").click()
        login_path = f"{self.prefix}/hub/login"

        def answered(driver):
            refused = self.shown(".login_error")
            if refused:
                raise StepFailed(f"the hub refused the login: {_clip(refused[0].text)}")
            return self.path() != login_path

        self.wait(answered, "the hub to accept the login")
        self.settled()
        return f"logged in as {self.cfg['username']}, at {self.path()}"

    def spawn_form(self) -> str:
        notes = []
        stopped_first = False
        self.load(f"{self.prefix}/hub/home")
        self.wait(lambda d: d.find_elements(By.ID, "start"), "the hub's home page")
        self.name = self.js("return (window.jhdata && window.jhdata.user) || null") or self.name
        if self.shown("#stop"):
            self.stop_server(max(self.cfg["timeout"], UI_TIMEOUT))
            stopped_first = True
        self.load(f"{self.prefix}/hub/spawn")
        self.settled()
        gpus = self.driver.find_elements(By.NAME, "gpus")
        if not gpus:
            # no form at all: the hub starts the server straight away
            self.started = self.left_spawn_form()
            raise StepFailed(f"no gpus choice in the spawn form (at {self.path()})")
        self.gpus_offered = self.choose(gpus[0], str(self.cfg["gpus"]), "gpus")
        notes.append(f"gpus {self.cfg['gpus']} of {', '.join(self.gpus_offered)}")
        partition = self.cfg["partition"]
        if partition:
            selects = self.driver.find_elements(By.NAME, "partition")
            if selects:
                self.choose(selects[0], partition, "partition")
                notes.append(f"partition {partition}")
            else:
                notes.append(f"no partition choice in the form, {partition} not chosen")
        if stopped_first:
            notes.append("stopped the server that was already running first")
        self.screenshot()
        form = gpus[0].find_element(By.XPATH, "./ancestor::form")
        form.find_element(By.CSS_SELECTOR, "[type=submit]").click()
        self.started = True

        def answered(driver):
            error = self.shown(".spawn-error-msg")
            if error:
                raise StepFailed(f"the hub refused the form: {_clip(error[0].text)}")
            return self.left_spawn_form()

        self.wait(answered, "the hub to take the form")
        return "; ".join(notes)

    def left_spawn_form(self) -> bool:
        path = self.path()
        return not path.startswith(f"{self.prefix}/hub/spawn") or "/spawn-pending/" in path

    def choose(self, element, value: str, what: str) -> list[str]:
        """Pick value in a <select>; the values it offers."""
        offered = [o.get_attribute("value") for o in Select(element).options]
        if value not in offered:
            raise StepFailed(f"{what} {value} is not offered (offered: {', '.join(offered)})")
        try:
            Select(element).select_by_value(value)
        except ElementNotInteractableException:  # a select a widget library hides
            self.js(
                "arguments[0].value = arguments[1];"
                "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
                element,
                value,
            )
        return offered

    def server_ready(self) -> str:
        began = time.monotonic()
        deadline = began + self.cfg["timeout"]
        user_path = self.user_path()
        pending = f"{self.prefix}/hub/spawn-pending/"
        elsewhere_since = None
        message = ""
        while True:
            path = self.path()
            if path.startswith(user_path):
                break
            try:
                self.browser_error()
                if path.startswith(pending):
                    elsewhere_since = None
                    failed, message = self.js(JS_PROGRESS)
                    if failed:
                        raise StepFailed(f"the server did not start: {_clip(message)}")
                else:
                    heading = self.js(JS_HEADING).strip()
                    if heading in ("Spawn failed", "Server not running"):
                        body = self.js("return document.body.innerText")
                        raise StepFailed(f"{heading}: {_clip(body)}")
                    # Not on the way to the server (an old tab, a hub page): ask for it;
                    # the hub sends a starting server's visitor to its progress page.
                    elsewhere_since = elsewhere_since or time.monotonic()
                    if time.monotonic() - elsewhere_since > 10:
                        self.load(f"{user_path}lab")
                        elsewhere_since = None
            except (JavascriptException, StaleElementReferenceException):
                pass  # the page went on to the next while we looked
            if time.monotonic() > deadline:
                raise StepFailed(
                    f"the server was not ready within {self.cfg['timeout']:g}s "
                    f"(at {path}{': ' + _clip(message) if message else ''})"
                )
            time.sleep(1)
        waited = time.monotonic() - began
        self.load(f"{user_path}lab/workspaces/{WORKSPACE}?reset")
        self.wait(
            lambda d: self.shown(".jp-FileBrowser .jp-DirListing-content"),
            "JupyterLab's file browser",
        )
        return f"JupyterLab at {user_path}lab after {waited:.0f}s"

    def file_browser(self) -> str:
        if not self.shown(".jp-FileBrowser"):
            self.driver.find_element(By.CSS_SELECTOR, '.jp-SideBar [data-id="filebrowser"]').click()
        expected = self.cfg["expect_folders"]
        entries: list = []

        def listed(driver):
            entries[:] = self.js(JS_LISTING)
            folders = {name for name, is_dir in entries if is_dir}
            return all(name in folders for name in expected)

        with suppress(WaitTimeout):
            self.wait(listed, "the listing", timeout=30)
        self.listing = [name for name, _ in entries]
        folders = {name for name, is_dir in entries if is_dir}
        missing = [name for name in expected if name not in folders]
        if missing:
            raise StepFailed(
                f"no folder {', '.join(missing)} in the listing: {', '.join(self.listing)}"
            )
        return f"{len(self.listing)} entries, with {', '.join(expected) or 'no folder asked'}"

    def launcher(self) -> None:
        """A launcher in the main area: the one open, else a new one."""
        if self.shown(".jp-Launcher .jp-LauncherCard"):
            return
        buttons = self.shown('[data-command="launcher:create"]') or self.shown(
            "#jp-main-dock-panel .lm-TabBar-addButton"
        )
        if not buttons:
            raise StepFailed("no way to open a launcher in JupyterLab")
        buttons[0].click()
        self.wait(lambda d: self.shown(".jp-Launcher .jp-LauncherCard"), "a launcher")

    def terminal(self) -> str:
        self.launcher()
        cards = self.shown('.jp-LauncherCard[data-category="Other"]')
        card = next(
            (
                c
                for c in cards
                if c.text.strip() == "Terminal"
                or c.get_attribute("title") == "Start a new terminal session"
            ),
            None,
        )
        if card is None:
            raise StepFailed("no Terminal in the launcher (are terminals enabled?)")
        card.click()
        css = ".jp-Terminal:not(.lm-mod-hidden) .xterm-helper-textarea"
        textarea = self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, css), "a terminal")[0]

        def cursor():  # xterm keeps its input box at the cursor
            return self.js("return [arguments[0].style.left, arguments[0].style.top]", textarea)

        # The shell's prompt moves the cursor; keys typed before it are queued anyway.
        with suppress(WaitTimeout):
            self.wait(lambda d: cursor() not in (["", ""], ["0px", "0px"]), "a prompt", 30)
        before = cursor()
        textarea.send_keys(TERMINAL_COMMAND)
        textarea.send_keys(Keys.ENTER)
        try:
            self.wait(lambda d: cursor()[1] != before[1], "the command's echo", 30)
            return "typed the command; the shell took the line"
        except WaitTimeout:
            return "typed the command; no echo seen yet"

    def notebook(self) -> str:
        self.launcher()
        card = self.wait(lambda d: self.js(JS_NOTEBOOK_CARD), "a Python 3 notebook in the launcher")
        title = card.get_attribute("title")
        card.click()
        editor_css = f"{NOTEBOOK} .jp-Cell .cm-content"
        editor = self.wait(lambda d: self.shown(editor_css), "a new notebook")[0]
        with suppress(WaitTimeout):  # cells run once the kernel is up anyway
            self.wait(
                lambda d: self.shown(f"{NOTEBOOK} {KERNEL_IDLE}"),
                "the kernel",
            )
        self.set_cell(editor)

        def finished(driver):
            state = self.js(JS_CELL_STATE)
            if not state:
                return False
            prompt, output = state
            done = MARKER in output or re.search(r"\[\d+\]", prompt)
            return [output] if done else False

        [output] = self.run_first_cell(editor, finished)
        self.screenshot()
        self.delete_notebook()
        try:
            self.server = parse_output(output)
        except ValueError as err:
            raise StepFailed(str(err)) from None
        expected = expected_terminal(self.server)
        if self.server["terminal"] != expected:
            raise StepFailed(
                f"the terminal's file reads {self.server['terminal']!r}, not {expected!r}"
            )
        return (
            f"{title} on {self.server['hostname']}, Slurm job {self.server['slurm_job_id']}, "
            f"CUDA_VISIBLE_DEVICES {self.server['cuda_visible_devices']}; "
            "the terminal's command ran there"
        )

    def run_first_cell(self, editor, finished) -> list[str]:
        """Run the first cell (Ctrl+Enter: in place) until it has run. A run asked for
        while the new notebook's kernel is still connecting can be dropped (the prompt
        stays `[ ]`, not `[*]`): it is asked again, never while one is queued or running."""
        deadline = time.monotonic() + UI_TIMEOUT
        while True:
            editor.click()
            ActionChains(self.driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(
                Keys.CONTROL
            ).perform()
            try:
                return self.wait(
                    finished, "the cell's output", max(POLL, min(30, deadline - time.monotonic()))
                )
            except WaitTimeout:
                state = self.js(JS_CELL_STATE) or ["", ""]
                if time.monotonic() >= deadline:
                    raise
                if "*" in state[0]:  # queued or running: wait for it, do not ask again
                    return self.wait(
                        finished, "the cell's output", max(POLL, deadline - time.monotonic())
                    )

    def set_cell(self, editor) -> None:
        """The first cell's text: set through CodeMirror, else typed as one line that
        auto-closed brackets and quotes cannot change (they are stepped over)."""
        if self.js(JS_SET_CELL, NOTEBOOK_CODE) == NOTEBOOK_CODE:
            return
        encoded = base64.b64encode(NOTEBOOK_CODE.encode()).decode()
        line = f'exec(__import__("base64").b64decode("{encoded}").decode())'
        editor.click()
        editor.send_keys(line)
        typed = self.js(JS_CELL_TEXT)
        if typed != line:
            raise StepFailed(f"the cell reads {_clip(typed)!r} after typing")

    def delete_notebook(self) -> None:
        """Remove the notebook the check made, so runs leave no Untitled*.ipynb behind."""
        tab = self.shown("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
        title = tab[0].get_attribute("title") if tab else ""
        found = re.search(r"^Path: (.+\.ipynb)$", title or "", re.MULTILINE)
        if found:
            with suppress(Exception):
                self.driver.execute_async_script(JS_DELETE_FILE, found.group(1))

    def tensorboard(self) -> str:
        path = f"{self.user_path()}tensorboard/"
        self.load(path)

        def shown(driver):
            return driver.title == "TensorBoard" or driver.find_elements(
                By.CSS_SELECTOR, "tb-webapp, tf-tensorboard"
            )

        self.wait(shown, "TensorBoard")
        self.settled()
        with suppress(WaitTimeout):  # its first load of the runs, for the screenshot
            self.wait(lambda d: self.js(JS_TENSORBOARD_LOADED), "its dashboards", 30)
        return f"TensorBoard at {path}"

    def stop(self) -> str:
        began = time.monotonic()
        self.stop_server(max(self.cfg["timeout"], UI_TIMEOUT))
        self.started = False
        return f"stopped after {time.monotonic() - began:.0f}s"

    def stop_server(self, timeout: float) -> None:
        """Stop My Server on the hub's home page, until the page offers Start My Server."""
        deadline = time.monotonic() + timeout
        while True:
            self.load(f"{self.prefix}/hub/home")
            self.wait(lambda d: d.find_elements(By.ID, "start"), "the hub's home page")
            stop = self.shown("#stop")
            if not stop:
                start = self.driver.find_element(By.ID, "start").text
                if "Start" in start:
                    return
                raise StepFailed(f"no Stop My Server on the home page, which offers {start!r}")
            if time.monotonic() > deadline:
                raise StepFailed(f"the server was still running after {timeout:g}s")
            stop[0].click()
            with suppress(WaitTimeout):
                self.wait(
                    lambda d: (
                        not self.shown("#stop")
                        and "Start My Server" in d.find_element(By.ID, "start").text
                    ),
                    "the server to stop",
                    max(POLL, min(60, deadline - time.monotonic())),
                )
            time.sleep(1)


def start_browser(cfg: dict, user_data_dir: str):
    os.environ.pop("SE_CHROMEDRIVER", None)  # Selenium would take it over the path given
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager, were it ever run: no downloads
    options = webdriver.ChromeOptions()
    options.binary_location = cfg["chromium"]
    for argument in chrome_arguments(cfg["spki"], user_data_dir):
        options.add_argument(argument)
    options.unhandled_prompt_behavior = "accept"  # "leave this page?" on leaving the lab
    # No chromedriver log: it would record the keys typed, the password among them.
    service = Service(executable_path=cfg["chromedriver"])
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(UI_TIMEOUT)
    return driver


def run_check(cfg: dict) -> dict:
    if cfg["url"].startswith("https:") and cfg["spki"] is None:
        try:
            cfg["spki"] = verified_spki(cfg["url"], cfg["ca_file"])
        except (OSError, ValueError) as err:  # ssl.SSLError is an OSError
            return {
                "ok": False,
                "steps": [asdict(Step("login", False, 0.0, None, f"TLS: {_first_line(err)}"))],
                "server": {},
                "listing": [],
                "gpus_offered": [],
                "error": f"login: the portal's certificate did not verify: {_first_line(err)}",
            }
    user_data_dir = tempfile.mkdtemp(prefix="portal-check-")
    driver = None
    try:
        try:
            driver = start_browser(cfg, user_data_dir)
        except Exception as err:
            return {
                "ok": False,
                "steps": [],
                "server": {},
                "listing": [],
                "gpus_offered": [],
                "error": f"browser: {type(err).__name__}: {_first_line(err)}",
            }
        return Portal(driver, cfg).check()
    finally:
        if driver is not None:
            with suppress(Exception):
                driver.quit()
        shutil.rmtree(user_data_dir, ignore_errors=True)


def main() -> int:
    try:
        cfg = parse_input(sys.stdin.read())
        for key in ("chromium", "chromedriver"):
            if not (os.path.isfile(cfg[key]) and os.access(cfg[key], os.X_OK)):
                raise InputError(
                    f"{key}: {cfg[key]} is not an executable file (lab/bin/ensure-browser)"
                )
        if webdriver is None:
            raise InputError(f"selenium is not installed for {sys.executable}")
        try:
            Path(cfg["out_dir"]).mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"out_dir: {err}") from None
    except InputError as err:
        print(f"portal_check: bad input: {err}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminated)
    print(json.dumps(run_check(cfg), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
