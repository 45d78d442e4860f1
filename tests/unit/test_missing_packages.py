"""missing_packages (library/, action_plugins/): a role's package step in one task.

Which package manager gets which arguments, the check-mode note, and that check mode (and
an empty list) asks no package manager at all: run through ansible-playbook on this
machine, where the packages asked for do not exist, so any apt or dnf call would fail.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml
from ansible.errors import AnsibleActionFail
from playbook import local_host, run_playbook

_PATH = Path(__file__).resolve().parents[2] / "action_plugins" / "missing_packages.py"
_SPEC = importlib.util.spec_from_file_location("missing_packages_action", _PATH)
action = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(action)

OPTIONS = {"update_cache": True, "cache_valid_time": 3600, "install_recommends": False}


def test_debian_installs_with_apt_and_its_options():
    assert action.install_call(["lmod"], OPTIONS, "Debian") == (
        "ansible.builtin.apt",
        {
            "name": ["lmod"],
            "state": "present",
            "update_cache": True,
            "cache_valid_time": 3600,
            "install_recommends": False,
        },
    )


def test_apt_leaves_recommends_to_the_hosts_configuration_unless_told():
    """A host whose apt configuration installs no Recommends (APT::Install-Recommends
    "false", as the lab's images) keeps it: an explicit true would pull R's whole
    toolchain with r-cran-irkernel."""
    _module, args = action.install_call(["lmod"], {**OPTIONS, "install_recommends": None}, "Debian")
    assert "install_recommends" not in args


def test_apt_gets_no_cache_valid_time_without_update_cache():
    """apt refreshes its index whenever cache_valid_time is given."""
    _module, args = action.install_call(["docker.io"], {**OPTIONS, "update_cache": False}, "Debian")
    assert args["update_cache"] is False and "cache_valid_time" not in args


def test_red_hat_installs_with_dnf_without_apt_only_options():
    assert action.install_call(["Lmod"], OPTIONS, "RedHat") == (
        "ansible.builtin.dnf",
        {"name": ["Lmod"], "state": "present", "update_cache": True},
    )


def test_another_family_is_refused_by_name():
    with pytest.raises(AnsibleActionFail, match="'Suse'"):
        action.install_call(["lmod"], OPTIONS, "Suse")


@pytest.mark.parametrize(
    ("then", "note"),
    [("", "would install: a, b"), ("configure them", "would install: a, b, then configure them")],
)
def test_the_check_mode_note(then, note):
    assert action.would_install(["a", "b"], then) == note


PLAYBOOK = """
- hosts: server
  gather_facts: false
  tasks:
    - name: Check mode names the packages
      missing_packages:
        name: [dlcluster-no-such-package, dlcluster-nor-this]
        then: configure them
      check_mode: true
      register: checked

    - name: Nothing missing asks no package manager
      missing_packages:
        name: []
      register: nothing

    - name: Record what both said
      ansible.builtin.copy:
        content: "{{ {'checked': checked, 'nothing': nothing} | to_json }}"
        dest: "{{ out }}"
        mode: "0644"

    - name: A run outside check mode on a host without OS facts fails before any change
      missing_packages:
        name: [dlcluster-no-such-package]
"""


def test_check_mode_and_an_empty_list_ask_no_package_manager(tmp_path):
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAYBOOK)
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(json.dumps({"all": {"hosts": {"server": local_host()}}}))
    result = run_playbook(inventory, playbook, {"out": str(tmp_path / "out.json")})
    said = json.loads((tmp_path / "out.json").read_text())
    assert said["checked"]["changed"] is True
    assert said["checked"]["msg"] == (
        "would install: dlcluster-no-such-package, dlcluster-nor-this, then configure them"
    )
    assert said["nothing"]["changed"] is False
    # the note shows without -v, as debug's message does
    assert "would install: dlcluster-no-such-package" in result.stdout
    # no OS facts: refused by name, no package manager guessed
    assert result.returncode != 0
    assert "no package manager for the OS family ''" in result.stdout, result.stdout[-2000:]


def test_the_documented_options_are_the_ones_the_action_takes():
    spec = importlib.util.spec_from_file_location(
        "missing_packages_doc", _PATH.parents[1] / "library" / "missing_packages.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    documented = yaml.safe_load(module.DOCUMENTATION)["options"]
    keys = ("type", "default", "required", "elements")
    assert {
        name: {key: option[key] for key in keys if key in option}
        for name, option in documented.items()
    } == action.ARGUMENT_SPEC
