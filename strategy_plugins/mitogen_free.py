"""The free strategy run through Mitogen: each host runs its tasks as fast as it can.

For plays whose hosts share nothing while they run (the data switches of
playbooks/layers/network.yml: each switch's session is its own), so a slow switch does not hold
the others back task by task. As mitogen_linear, it refuses an Ansible release Mitogen
cannot drive, skips a task whose condition is false on the controller, counts a role
dependency that its own condition skips as run, and works out no host's variables for
ansible-core's implicit meta tasks (dlcluster_linear's docstring says how); to run without
Mitogen, set the play's strategy to ansible.builtin.free.
"""

from __future__ import annotations

import sys

import ansible.plugins.strategy.free
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.strategy
from ansible.plugins.loader import strategy_loader

DOCUMENTATION = """
name: mitogen_free
short_description: the free strategy, with Mitogen connections
description:
  - Task execution as the free strategy, over Mitogen's persistent per-host interpreters.
  - As mitogen_linear, a task whose conditional is false for a host is skipped by the
    controller, without a worker process.
"""

# The shared part lives in the sibling plugin; the loader imports it under its own name.
_linear = sys.modules[strategy_loader.get("mitogen_linear", class_only=True).__module__]


class StrategyModule(
    _linear.ProjectStrategyMixin,
    ansible_mitogen.strategy.StrategyMixin,
    ansible.plugins.strategy.free.StrategyModule,
):
    pass
