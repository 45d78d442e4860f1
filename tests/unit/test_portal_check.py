"""The portal check's pure parts (roles/jupyterhub/files/portal_check.py), without a browser:
its input, Chromium's command line, the notebook's report line and the step sequence.
The browser run itself was tried against a local JupyterHub; it needs Chromium."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "roles" / "jupyterhub" / "files" / "portal_check.py"
_SPEC = importlib.util.spec_from_file_location("portal_check", SCRIPT)
pc = importlib.util.module_from_spec(_SPEC)
sys.modules["portal_check"] = pc  # dataclasses look their module up
_SPEC.loader.exec_module(pc)

PASSWORD = "pw-Never-Shown-42"
SPKI = base64.b64encode(hashlib.sha256(b"a SubjectPublicKeyInfo").digest()).decode()
GOOD = {
    "url": "https://127.0.0.1:18000",
    "username": "alice",
    "password": PASSWORD,
    "gpus": 2,
    "partition": None,
    "spki": SPKI,
    "ca_file": None,
    "out_dir": "/tmp/portal-check-out",
    "timeout": 300,
    "chromium": "/usr/bin/chromium",
    "chromedriver": "/usr/bin/chromedriver",
    "expect_folders": ["templates", "isilon"],
}


def _request(**changes) -> str:
    request = {**GOOD, **changes}
    return json.dumps({k: v for k, v in request.items() if v is not ...})


def test_a_full_request_is_taken_as_given_and_a_short_one_gets_the_defaults():
    assert pc.parse_input(_request()) == GOOD
    short = pc.parse_input(
        json.dumps({"url": "https://hub.example:8000/", "username": "a", "password": "p",
                    "out_dir": "/o"})
    )  # fmt: skip
    assert short["url"] == "https://hub.example:8000"  # no trailing slash
    assert (short["gpus"], short["partition"], short["spki"], short["timeout"]) == (
        1, None, None, 300,
    )  # fmt: skip
    assert short["chromium"] == "/usr/bin/chromium"
    assert short["chromedriver"] == "/usr/bin/chromedriver"
    assert short["expect_folders"] == ["templates", "isilon"]
    # null means the default; a partition is kept
    assert pc.parse_input(_request(timeout=None, partition="hipri"))["timeout"] == 300
    assert pc.parse_input(_request(partition="hipri"))["partition"] == "hipri"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "stdin is not JSON"),
        ("[1, 2]", "one JSON object"),
        (_request(passwd="x"), "unknown key(s): passwd"),
        (_request(password=...), "missing: password"),
        (_request(url="", out_dir=...), "missing: url, out_dir"),
        (_request(url="ftp://hub"), "url must be an http(s) URL"),
        (_request(url="https://hub/?next=x"), "no query or fragment"),
        (_request(username="a/b"), "username must be a string without '/'"),
        (_request(gpus=0), "gpus must be a whole number of at least 1"),
        (_request(ca_file="/nonexistent/ca.crt"), "ca_file must be a readable file"),
        (_request(gpus="2"), "gpus must be a whole number"),
        (_request(gpus=True), "gpus must be a whole number"),
        (_request(partition=""), "partition must be null or a name"),
        (_request(spki="not base64!"), "spki must be the base64 SHA-256"),
        (_request(spki=base64.b64encode(b"short").decode()), "spki must be the base64 SHA-256"),
        (_request(timeout=0), "timeout must be a positive number"),
        (_request(out_dir="relative/dir"), "out_dir must be an absolute path"),
        (_request(chromedriver="chromedriver"), "chromedriver must be an absolute path"),
        (_request(expect_folders="templates"), "expect_folders must be a list of names"),
        (_request(expect_folders=["templates", ""]), "expect_folders must be a list of names"),
    ],
)
def test_bad_input_names_the_problem_and_never_the_password(text, message):
    with pytest.raises(pc.InputError) as raised:
        pc.parse_input(text)
    assert message in str(raised.value)
    assert PASSWORD not in str(raised.value)


def _main(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT)], input=text, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def test_the_script_exits_2_on_bad_input_with_one_line_on_stderr(tmp_path):
    result = _main(_request(gpus=-1, out_dir=str(tmp_path)))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("portal_check: bad input: gpus must be a whole number")
    assert PASSWORD not in result.stderr
    # a browser that is not there is bad input too, found before any browser is started
    missing = _main(_request(chromium=str(tmp_path / "no-chromium"), out_dir=str(tmp_path)))
    assert missing.returncode == 2
    assert "chromium: " in missing.stderr and "ensure-browser" in missing.stderr
    # the password is read from stdin only: the command line carries nothing
    assert _main("").returncode == 2


def test_chromium_runs_headless_as_root_and_pins_one_key_at_most():
    args = pc.chrome_arguments(SPKI, "/tmp/profile")
    for wanted in (
        "--headless=new",
        "--no-sandbox",
        "--window-size=1400,900",
        "--user-data-dir=/tmp/profile",  # Chromium honours the SPKI list only with one
        f"--ignore-certificate-errors-spki-list={SPKI}",
    ):
        assert wanted in args
    # never the blanket switch that accepts any certificate
    assert not [a for a in args if a.split("=")[0] == "--ignore-certificate-errors"]
    assert len(args) == len(set(args))
    unpinned = pc.chrome_arguments(None, "/tmp/profile")
    assert not [a for a in unpinned if a.startswith("--ignore-certificate-errors")]
    assert set(unpinned) == set(args) - {f"--ignore-certificate-errors-spki-list={SPKI}"}


SERVER = {
    "hostname": "gpu-1",
    "slurm_job_id": "4242",
    "cuda_visible_devices": "0,1",
    "slurm_cpus_on_node": "16",
    "terminal": "portal-check-terminal gpu-1 4242",
    "user": "alice",
}


def test_the_report_line_is_found_among_other_output():
    text = "a warning\n  PORTAL-CHECK " + json.dumps(SERVER) + "\nmore\n"
    assert pc.parse_output(text) == SERVER
    assert pc.expected_terminal(SERVER) == SERVER["terminal"]
    assert pc.expected_terminal({**SERVER, "slurm_job_id": None}).endswith(" none")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Traceback (most recent call last): ...", "no line starts with PORTAL-CHECK"),
        ("", "no line starts with PORTAL-CHECK"),
        ("PORTAL-CHECK {broken", "the PORTAL-CHECK line is not JSON"),
        ("PORTAL-CHECK [1]", "not a JSON object"),
        ('PORTAL-CHECK {"hostname": "x"}', "lacks slurm_job_id, cuda_visible_devices"),
    ],
)
def test_a_missing_or_broken_report_line_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        pc.parse_output(text)


@pytest.mark.parametrize("job", ["77", None])
def test_the_terminal_command_and_the_notebook_code_agree(tmp_path, job):
    """What the terminal writes is what the notebook reads and the check expects."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "CUDA_"))}
    env["HOME"] = str(tmp_path)
    if job:
        env.update(SLURM_JOB_ID=job, CUDA_VISIBLE_DEVICES="0,1", SLURM_CPUS_ON_NODE="8")
    subprocess.run(["bash", "-c", pc.TERMINAL_COMMAND], env=env, check=True, timeout=30)
    assert (tmp_path / pc.TERMINAL_FILE).exists()
    notebook = subprocess.run(
        [sys.executable, "-c", pc.NOTEBOOK_CODE], env=env, capture_output=True, text=True,
        check=True, timeout=60,
    )  # fmt: skip
    lines = notebook.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(pc.MARKER)
    server = pc.parse_output(notebook.stdout)
    assert server["hostname"] == socket.gethostname()
    assert server["slurm_job_id"] == job
    assert server["terminal"] == pc.expected_terminal(server)
    assert server["cuda_visible_devices"] == ("0,1" if job else None)
    assert not (tmp_path / pc.TERMINAL_FILE).exists()  # no later run reads this one's


def test_the_notebook_code_survives_being_typed_as_one_line():
    """The fallback when CodeMirror's view is out of reach types one line whose brackets
    and quotes come in pairs that auto-closing steps over; it runs the same code."""
    encoded = base64.b64encode(pc.NOTEBOOK_CODE.encode()).decode()
    assert base64.b64decode(encoded).decode() == pc.NOTEBOOK_CODE
    assert "\n" not in encoded and '"' not in encoded


class FakeDriver:
    def __init__(self) -> None:
        self.shots: list[str] = []

    def save_screenshot(self, path: str) -> bool:
        Path(path).write_bytes(b"\x89PNG")
        self.shots.append(Path(path).name)
        return True


def _portal(tmp_path, fail_at: str | None = None):
    cfg = pc.parse_input(_request(out_dir=str(tmp_path)))
    portal = pc.Portal(FakeDriver(), cfg)
    ran = []

    def step(name, starts=False):
        def run():
            ran.append(name)
            if starts:
                portal.started = True
            if name == fail_at:
                raise pc.StepFailed(f"{name} went wrong near {PASSWORD}")
            return f"{name} fine"

        return run

    for name in ("login", "server_ready", "file_browser", "terminal", "notebook", "tensorboard"):
        setattr(portal, name, step(name))
    portal.spawn_form = step("spawn_form", starts=True)
    portal.stop = step("stop")
    return portal, ran


def test_all_steps_pass_in_order_each_with_its_screenshot(tmp_path):
    portal, ran = _portal(tmp_path)
    result = portal.check()
    assert result["ok"] is True and result["error"] is None
    assert ran == list(pc.SHOTS)
    assert [s["name"] for s in result["steps"]] == list(pc.SHOTS)
    assert [s["screenshot"] for s in result["steps"]] == list(pc.SHOTS.values())
    assert pc.SHOTS["stop"] == "08-stopped.png"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(pc.SHOTS.values())
    assert set(result) == {"ok", "steps", "server", "listing", "gpus_offered", "error"}
    assert set(result["steps"][0]) == {"name", "ok", "seconds", "screenshot", "detail"}


def test_a_failed_step_ends_the_others_but_the_server_is_still_stopped(tmp_path):
    portal, ran = _portal(tmp_path, fail_at="file_browser")
    result = portal.check()
    assert ran == ["login", "spawn_form", "server_ready", "file_browser", "stop"]
    assert result["ok"] is False
    assert result["error"] == "file_browser: file_browser went wrong near ***"
    assert PASSWORD not in json.dumps(result)
    assert [s["ok"] for s in result["steps"]] == [True, True, True, False, True]


def test_no_stop_when_the_server_was_never_started(tmp_path):
    portal, ran = _portal(tmp_path, fail_at="login")
    result = portal.check()
    assert ran == ["login"]
    assert result["error"].startswith("login: ") and len(result["steps"]) == 1


def test_the_browser_is_pinned_only_to_a_key_whose_certificate_verified(tmp_path):
    """ca_file: Python's TLS verifies the portal's certificate (name included) before the
    browser is pinned to its key; a certificate that does not verify pins nothing."""
    import socket
    import ssl
    import subprocess
    import threading

    def make(name, *extra):
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-keyout", str(tmp_path / f"{name}.key"),
             "-out", str(tmp_path / f"{name}.crt"), *extra],
            check=True, capture_output=True,
        )  # fmt: skip

    make("portal", "-addext", "subjectAltName=IP:127.0.0.1")
    make("other", "-addext", "subjectAltName=IP:127.0.0.1")
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "portal.crt", tmp_path / "portal.key")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve():
        for _ in range(2):
            conn, _addr = listener.accept()
            with suppress(OSError), server.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"https://127.0.0.1:{port}"
    expected = subprocess.run(
        f"openssl x509 -in {tmp_path / 'portal.crt'} -pubkey -noout | openssl pkey -pubin"
        " -outform der | openssl dgst -sha256 -binary | base64",
        shell=True, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    assert pc.verified_spki(url, str(tmp_path / "portal.crt")) == expected
    with pytest.raises(ssl.SSLError):
        pc.verified_spki(url, str(tmp_path / "other.crt"))
    listener.close()
