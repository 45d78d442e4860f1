#!/usr/bin/python
"""Install the packages a role found missing, or name them in check mode (the work is the
action plugin's, action_plugins/missing_packages.py: this file documents it)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: missing_packages
short_description: Install the packages a role found missing; in check mode, name them
description:
  - A role's package step in one task. The role works out which of its packages this
    run's package listing lacks (the cluster_host role's C(cluster_host_packages)) and
    gives them as O(name); the task is skipped, in one round, where none is missing.
  - Installs them with the host's own package manager, M(ansible.builtin.apt) on the
    Debian family (with O(update_cache), O(cache_valid_time) and O(install_recommends)),
    M(ansible.builtin.dnf) on the Red Hat family (with O(update_cache)); the result is
    that module's.
  - In check mode it asks no package manager (check mode refreshes no package index, and
    a host whose index was never refreshed knows no package, so M(ansible.builtin.apt)
    would fail); it reports C(changed) and names the packages, followed by O(then), in
    RV(msg), shown without C(-v).
version_added: "1.0.0"
options:
  name:
    description: The packages to install (those the host lacks).
    type: list
    elements: str
    required: true
  update_cache:
    description: Refresh the package index first (apt honours O(cache_valid_time)).
    type: bool
    default: true
  cache_valid_time:
    description:
      - Debian family only; with O(update_cache), an apt index younger than this many
        seconds is kept.
    type: int
    default: 3600
  install_recommends:
    description:
      - Debian family only; install the packages' Recommends too (V(true)) or not
        (V(false)). Not given, the host's apt configuration decides
        (C(APT::Install-Recommends)), as M(ansible.builtin.apt) does.
    type: bool
  then:
    description: What the role does once they are installed, added to the check-mode note.
    type: str
    default: ""
attributes:
  check_mode:
    support: full
    details: Names the packages instead of asking the package manager.
  diff_mode:
    support: none
  platform:
    platforms: [debian, redhat]
author: [dlcluster]
"""

EXAMPLES = r"""
- name: Install the monitoring packages (in check mode, name them)
  missing_packages:
    name: "{{ _monitoring_missing }}"
    install_recommends: false
    then: configure them
  when: _monitoring_missing | length > 0
"""

RETURN = r"""
msg:
  description: "In check mode, C(would install: <packages>[, then <then>])."
  returned: check mode
  type: str
"""

from ansible.module_utils.basic import AnsibleModule


def main() -> None:
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    module.fail_json(msg="missing_packages runs through its action plugin")


if __name__ == "__main__":
    main()
