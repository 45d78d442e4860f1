"""The apptainer role: release URLs, the install-or-skip decision, apptainer.conf, images.

The filters are called with the role's real defaults; the job example is rendered through
Jinja2 as Ansible's template module does (trim_blocks). apptainer.conf is checked by
reading the result the way Apptainer's own parser does (pkg/util/apptainerconf/parser.go).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import jinja2
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ROLE = ROOT / "roles" / "apptainer"
_SPEC = importlib.util.spec_from_file_location(
    "apptainer", ROOT / "filter_plugins" / "apptainer.py"
)
app = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(app)

DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
VARS = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
SPECS = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text())["argument_specs"]
OPTIONS = SPECS["main"]["options"]
HOST = "lab-head"
RELEASE = "https://github.com/apptainer/apptainer/releases/download/v1.4.5"
MARKER = VARS["_apptainer_conf_marker"]

# An excerpt of the apptainer.conf the package ships: Apptainer's TemplateAsset rendered
# with its defaults (pkg/util/apptainerconf/config.go: allow setuid yes, bind path
# /etc/localtime,/etc/hosts, always use nv no), comments as there.
SHIPPED = """\
# APPTAINER.CONF
# ALLOW SETUID: [BOOL]
# DEFAULT: yes
allow setuid = yes

# CONFIG RESOLV_CONF: [BOOL]
# DEFAULT: yes
config resolv_conf = yes

# BIND PATH: [STRING]
# DEFAULT: Undefined
#bind path = /etc/apptainer/default-nsswitch.conf:/etc/nsswitch.conf
#bind path = /opt
#bind path = /scratch
bind path = /etc/localtime
bind path = /etc/hosts

# USER BIND CONTROL: [BOOL]
# DEFAULT: yes
user bind control = yes

# ALWAYS USE NV ${TYPE}: [BOOL]
# DEFAULT: no
always use nv = no
"""

# Apptainer's parser (parser.go): this regex over the whole file; every line of a key is
# appended and split on commas; a single-valued key takes the first value.
_PARSER = re.compile(r"(?m)^\s*([a-zA-Z _-]+)[ \t]*=[ \t]*(.*)$")


def _apptainer_reads(text: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for key, value in _PARSER.findall(text):
        if value.strip():
            directives.setdefault(key.strip(), []).extend(
                part.strip() for part in value.strip().split(",")
            )
    return directives


def _settings(suid: bool = False, config: dict | None = None) -> dict:
    """What vars/main.yml's _apptainer_settings gives: allow setuid, then the site's keys."""
    return {"allow setuid": suid, **(DEFAULTS["apptainer_config"] if config is None else config)}


def _urls(version: str, family: str, suid: bool, template: str | None = None) -> list[str]:
    template = template or DEFAULTS["apptainer_release_url"]
    return [
        app.apptainer_package_url(file, template, version)
        for file in app.apptainer_package_files(version, family, suid)
    ]


# ---- release files and URLs ----------------------------------------------------------------


def test_release_url_for_the_default_version_is_upstreams_deb():
    assert _urls(DEFAULTS["apptainer_version"], "Debian", False) == [
        f"{RELEASE}/apptainer_1.4.5_amd64.deb"
    ]


def test_suid_adds_the_suid_deb_after_the_plain_one():
    assert _urls("1.3.6", "Debian", True) == [
        "https://github.com/apptainer/apptainer/releases/download/v1.3.6/apptainer_1.3.6_amd64.deb",
        "https://github.com/apptainer/apptainer/releases/download/v1.3.6/apptainer-suid_1.3.6_amd64.deb",
    ]


def test_red_hat_gets_the_release_rpms():
    assert app.apptainer_package_files("1.4.5", "RedHat", True) == [
        "apptainer-1.4.5-1.x86_64.rpm",
        "apptainer-suid-1.4.5-1.x86_64.rpm",
    ]


def test_other_families_have_no_release_files():
    with pytest.raises(ValueError, match="Suse"):
        app.apptainer_package_files("1.4.5", "Suse", False)


def test_mirror_directory_gets_the_file_name_appended():
    assert _urls("1.4.5", "Debian", False, "http://repo.site/apptainer/{version}/") == [
        "http://repo.site/apptainer/1.4.5/apptainer_1.4.5_amd64.deb"
    ]


# ---- what is missing -----------------------------------------------------------------------


def test_installed_pinned_version_is_not_missing():
    installed = {"apptainer": [{"version": "1.4.5"}]}
    assert app.apptainer_missing(["apptainer"], installed, "1.4.5") == []


def test_other_version_or_missing_suid_package_is_missing():
    installed = {"apptainer": [{"version": "1.3.6"}]}
    assert app.apptainer_missing(["apptainer", "apptainer-suid"], installed, "1.4.5") == [
        "apptainer",
        "apptainer-suid",
    ]


def test_rpm_release_suffix_is_not_part_of_the_version():
    installed = {"apptainer": [{"version": "1.4.5-1.el9"}]}
    assert app.apptainer_missing(["apptainer"], installed, "1.4.5") == []


def test_repository_accepts_any_installed_version():
    installed = {"apptainer": [{"version": "1.3.4-1~ubuntu22.04"}]}
    assert app.apptainer_missing(["apptainer"], installed, None) == []
    assert app.apptainer_missing(["apptainer"], {}, None) == ["apptainer"]


# ---- install, skip or fail -----------------------------------------------------------------

URL = f"{RELEASE}/apptainer_1.4.5_amd64.deb"
# What ansible.builtin.uri registers when no connection is made (failed_when: false).
NO_ANSWER = {
    "status": -1,
    "msg": "Status code was -1 and not [200]: Request failed: <urlopen error timed out>",
}


def _decide(probe, source="release", missing=("apptainer",), arch="x86_64"):
    return app.apptainer_install_decision(HOST, source, [URL], list(missing), probe, arch)


def test_answer_with_the_file_installs():
    assert _decide({"status": 200}) == {"install": True, "skip": "", "fail": ""}


def test_unreachable_source_skips_with_the_one_line():
    decision = _decide(NO_ANSWER)
    assert decision["install"] is False and decision["fail"] == ""
    assert decision["skip"] == (
        f"Apptainer not installed on {HOST}: {URL} unreachable (<urlopen error timed out>); "
        "set apptainer_source=mirror with apptainer_mirror_url, or apptainer_source=none"
    )


def test_server_error_counts_as_unreachable():
    assert "unreachable (HTTP 503)" in _decide({"status": 503})["skip"]


def test_missing_file_on_a_reachable_source_fails():
    decision = _decide({"status": 404, "msg": "HTTP Error 404: Not Found"})
    assert decision["install"] is False and decision["skip"] == ""
    assert "answered HTTP 404" in decision["fail"] and "apptainer_version" in decision["fail"]


def test_nothing_missing_needs_no_probe():
    assert _decide(None, missing=()) == {"install": False, "skip": "", "fail": ""}


def test_source_none_never_installs():
    assert _decide(None, source="none") == {"install": False, "skip": "", "fail": ""}


def test_repository_installs_without_a_probe():
    assert _decide(None, source="repository")["install"] is True


def test_release_files_are_x86_64_only():
    decision = _decide({"status": 200}, arch="aarch64")
    assert decision["install"] is False and "x86_64 only" in decision["skip"]


def test_version_found_from_apptainer_version():
    assert app.apptainer_version_found({"rc": 0, "stdout": "apptainer version 1.4.5"}) == "1.4.5"
    assert app.apptainer_version_found({"rc": 2, "stdout": ""}) == ""


# ---- apptainer.conf ------------------------------------------------------------------------


def test_defaults_give_the_bind_paths_and_no_setuid():
    text = app.apptainer_conf(SHIPPED, _settings(), MARKER)
    reads = _apptainer_reads(text)
    assert reads["bind path"] == ["/etc/localtime", "/etc/hosts", "/home", "/cm/shared"]
    assert reads["allow setuid"] == ["no"]
    assert reads["always use nv"] == ["no"]
    assert reads["config resolv_conf"] == ["yes"]  # not managed: as shipped


def test_managed_keys_replace_the_shipped_lines_in_place():
    lines = app.apptainer_conf(SHIPPED, _settings(), MARKER).splitlines()
    first = lines.index("bind path = /etc/localtime")
    assert lines[first - 1] == "#bind path = /scratch"  # where the package had them
    assert lines[first : first + 4] == [
        "bind path = /etc/localtime",
        "bind path = /etc/hosts",
        "bind path = /home",
        "bind path = /cm/shared",
    ]
    assert "#bind path = /opt" in lines and MARKER not in lines  # comments kept, no append


def test_a_single_valued_key_has_one_line_so_apptainer_reads_ours():
    text = app.apptainer_conf(SHIPPED, _settings(config={"always use nv": True}), MARKER)
    assert _apptainer_reads(text)["always use nv"] == ["yes"]
    assert text.count("always use nv =") == 1


def test_keys_the_file_lacks_are_appended_after_the_marker():
    text = app.apptainer_conf(SHIPPED, _settings(config={"mksquashfs procs": 4}), MARKER)
    assert text.endswith(f"\n{MARKER}\nmksquashfs procs = 4\n")


def test_applying_twice_changes_nothing():
    settings = _settings(suid=True, config={"mksquashfs procs": 4, "bind path": ["/data"]})
    once = app.apptainer_conf(SHIPPED, settings, MARKER)
    assert app.apptainer_conf(once, settings, MARKER) == once
    assert _apptainer_reads(once)["allow setuid"] == ["yes"]


def test_an_absent_file_gets_only_the_managed_keys():
    text = app.apptainer_conf("", _settings(), MARKER)
    assert text.splitlines()[0] == MARKER
    assert _apptainer_reads(text)["bind path"][-1] == "/cm/shared"


# ---- images --------------------------------------------------------------------------------


def test_default_dest_carries_the_tag_so_a_new_tag_is_a_new_file():
    images = [{"name": "tensorflow", "image": "nvcr.io/nvidia/tensorflow:19.03-py3"}]
    (planned,) = app.apptainer_images(images, DEFAULTS["apptainer_image_dir"])
    assert planned["dest"] == "/cm/shared/apps/apptainer/images/tensorflow_19.03-py3.sif"
    images[0]["image"] = "nvcr.io/nvidia/tensorflow:19.05-py3"
    (changed,) = app.apptainer_images(images, DEFAULTS["apptainer_image_dir"])
    assert changed["dest"] != planned["dest"]


def test_explicit_dest_and_registry_port_are_kept():
    images = [
        {"name": "tf", "image": "registry:5000/nvidia/tensorflow:19.03-py3", "dest": "/x/tf.sif"}
    ]
    assert app.apptainer_images(images, "/unused") == [
        {"name": "tf", "image": "registry:5000/nvidia/tensorflow:19.03-py3", "dest": "/x/tf.sif"}
    ]


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "tf", "image": "nvcr.io/nvidia/tensorflow"},  # no tag: would follow latest
        {"name": "a/b", "image": "nvcr.io/nvidia/tensorflow:19.03-py3"},
        {"name": "tf", "image": "nvcr.io/nvidia/tensorflow:19.03-py3", "dest": "rel.sif"},
    ],
)
def test_images_that_would_build_the_wrong_file_are_refused(entry):
    with pytest.raises(ValueError):
        app.apptainer_images([entry], "/images")


def test_two_images_on_one_file_are_refused():
    image = "nvcr.io/nvidia/tensorflow:19.03-py3"
    with pytest.raises(ValueError, match="share one dest"):
        app.apptainer_images([{"name": "tf", "image": image}] * 2, "/images")


# ---- the job example -----------------------------------------------------------------------


def _render_job(**context) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROLE / "templates"),
        trim_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    values = {**DEFAULTS, "_apptainer_conf_marker": MARKER, "_apptainer_image_plan": []}
    return env.get_template("ngc.job.j2").render(**{**values, **context})


def test_job_example_loads_the_lmod_and_runs_the_first_image_with_nv():
    plan = app.apptainer_images(
        [{"name": "tensorflow", "image": "nvcr.io/nvidia/tensorflow:19.03-py3"}], "/img"
    )
    lines = _render_job(_apptainer_image_plan=plan).splitlines()
    assert lines[0] == "#!/bin/bash"
    assert [line for line in lines if line.startswith("#SBATCH")] == [
        "#SBATCH -N 1",
        "#SBATCH -n 1",
        "#SBATCH --gres=gpu:4",
    ]
    assert lines.index("module load shared") < lines.index("module load apptainer")
    assert lines[-1] == (
        "srun apptainer exec --nv /img/tensorflow_19.03-py3.sif "
        + DEFAULTS["apptainer_job_command"]
    )


def test_job_example_without_images_says_how_to_build_one():
    text = _render_job()
    assert "#   apptainer build /cm/shared/apps/apptainer/images/tensorflow_19.03-py3.sif" in text
    assert text.rstrip().endswith(DEFAULTS["apptainer_job_command"])


# ---- the contract --------------------------------------------------------------------------


def test_argument_specs_default_every_default_identically():
    assert set(OPTIONS) == set(DEFAULTS)
    for name, value in DEFAULTS.items():
        assert OPTIONS[name].get("default") == value, name


def test_the_registry_password_is_no_log():
    assert OPTIONS["apptainer_registry_password"].get("no_log") is True


def test_every_task_that_carries_the_password_is_no_log():
    carriers = 0
    for path in sorted((ROLE / "tasks").glob("*.yml")):
        for task in yaml.safe_load(path.read_text()) or []:
            if "apptainer_registry_password" in yaml.safe_dump(task):
                carriers += 1
                assert task.get("no_log") is True, f"{path.name}: {task['name']}"
                # -vvv prints a task's environment in the connection's command line
                assert "apptainer_registry_password" not in str(task.get("environment", ""))
                assert "apptainer_registry_password" not in str(
                    task["ansible.builtin.command"]["argv"]
                )
    assert carriers == 1  # the image build
