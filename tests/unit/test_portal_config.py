"""The hub's jupyterhub_config.py as the jupyterhub role renders it, run as JupyterHub
runs a config file (a `c` from get_config(), the file executed), without a hub.

The lab runs the real hub on this file (tests/lab/test_portal.py); here, each setting the
role's variables decide, for values the lab does not use.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

ROLE = Path(__file__).resolve().parents[2] / "roles" / "jupyterhub"


class _Section(dict):
    """A traitlets-like config section: attributes are created on first use."""

    def __getattr__(self, name: str) -> Any:
        return self.setdefault(name, _Section())

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def _config(**overrides: Any) -> _Section:
    variables = {
        **yaml.safe_load((ROLE / "defaults" / "main.yml").read_text()),
        **yaml.safe_load((ROLE / "vars" / "main.yml").read_text()),
        "ansible_managed": "managed by dlcluster",
        "inventory_hostname": "head-1",
        "jupyterhub_hub_host": "head-1",
        "jupyterhub_hub_ip": "10.0.0.1",
        "groups": {"compute": []},
        "hostvars": {},
        "cluster_host_packages": [],
        **overrides,
    }
    text = (ROLE / "templates" / "jupyterhub_config.py.j2").read_text()
    rendered = Templar(loader=DataLoader(), variables=variables).template(trust_as_template(text))
    config = _Section()
    sys.modules.setdefault("batchspawner", types.ModuleType("batchspawner"))
    exec(compile(rendered, "jupyterhub_config.py", "exec"), {"get_config": lambda: config})
    return config


def test_the_idle_culler_is_a_service_with_only_the_scopes_it_needs():
    config = _config(jupyterhub_idle_timeout=5400, jupyterhub_idle_check_interval=120)
    (service,) = config.JupyterHub.services
    assert service["name"] == "idle-culler"
    assert service["command"][1:] == [
        "-m", "jupyterhub_idle_culler", "--timeout=5400", "--cull-every=120",
    ]  # fmt: skip
    assert service["command"][0] == sys.executable  # the hub's own venv's python
    (role,) = config.JupyterHub.load_roles
    assert role["services"] == ["idle-culler"]
    # its README's scopes: no admin:users (it never deletes users), no admin rights
    assert role["scopes"] == ["list:users", "read:users:activity", "read:servers", "delete:servers"]


def test_a_timeout_of_zero_runs_no_culler():
    config = _config(jupyterhub_idle_timeout=0)
    assert "services" not in config.JupyterHub and "load_roles" not in config.JupyterHub


@pytest.mark.parametrize(("timeout", "installed"), [(3600, True), (0, False)])
def test_the_culler_is_installed_in_the_hubs_venv_only_when_it_runs(timeout, installed):
    hub = yaml.safe_load((ROLE / "tasks" / "hub.yml").read_text())
    task = next(t for t in hub if "_jupyterhub_pip_packages" in (t.get("vars") or {}))
    variables = {
        **yaml.safe_load((ROLE / "defaults" / "main.yml").read_text()),
        **yaml.safe_load((ROLE / "vars" / "main.yml").read_text()),
        "jupyterhub_idle_timeout": timeout,
    }
    packages = Templar(loader=DataLoader(), variables=variables).template(
        trust_as_template(task["vars"]["_jupyterhub_pip_packages"])
    )
    assert ("jupyterhub-idle-culler==1.4.0" in packages) is installed
    assert "jupyterhub==5.4.3" in packages
