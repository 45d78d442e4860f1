"""Controller side of missing_packages (library/missing_packages.py documents it): the
package manager's module for the host's OS family, or, in check mode, a note of what a
run would install."""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC: dict[str, Any] = {
    "name": {"type": "list", "elements": "str", "required": True},
    "update_cache": {"type": "bool", "default": True},
    "cache_valid_time": {"type": "int", "default": 3600},
    "install_recommends": {"type": "bool"},
    "then": {"type": "str", "default": ""},
}


def would_install(names: list[str], then: str = "") -> str:
    """The check-mode note: `would install: a, b[, then <then>]`."""
    note = "would install: " + ", ".join(names)
    return f"{note}, then {then}" if then else note


def install_call(names: list[str], options: dict[str, Any], family: str) -> tuple[str, dict]:
    """The package manager's module and its arguments for an OS family (Ansible's
    ansible_facts.os_family)."""
    if family == "Debian":
        args = {"name": names, "state": "present", "update_cache": options["update_cache"]}
        # not given: the host's own apt configuration decides (APT::Install-Recommends)
        if options["install_recommends"] is not None:
            args["install_recommends"] = options["install_recommends"]
        # apt refreshes its index whenever cache_valid_time is given (the apt module's
        # documentation): only with update_cache
        if options["update_cache"]:
            args["cache_valid_time"] = options["cache_valid_time"]
        return "ansible.builtin.apt", args
    if family == "RedHat":
        return "ansible.builtin.dnf", {
            "name": names,
            "state": "present",
            "update_cache": options["update_cache"],
        }
    raise AnsibleActionFail(f"missing_packages: no package manager for the OS family {family!r}")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _validation, options = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        names = list(options["name"])
        if not names:
            result["changed"] = False
            return result
        if self._play_context.check_mode:
            # shown without -v, as debug's message is
            result.update(changed=True, msg=would_install(names, options["then"]))
            result["_ansible_verbose_always"] = True
            return result
        family = str((task_vars.get("ansible_facts") or {}).get("os_family", ""))
        module, module_args = install_call(names, options, family)
        result.update(
            self._execute_module(module_name=module, module_args=module_args, task_vars=task_vars)
        )
        return result
