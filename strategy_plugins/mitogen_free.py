"""The free strategy run through Mitogen: each host runs its tasks as fast as it can.

For plays whose hosts share nothing while they run (the data switches of
playbooks/layers/network.yml: each switch's session is its own), so a slow switch does not hold
the others back task by task. As mitogen_linear, it refuses an Ansible release Mitogen
cannot drive; to run without Mitogen, set the play's strategy to ansible.builtin.free.
"""

from __future__ import annotations

import ansible.plugins.strategy.free
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.strategy

DOCUMENTATION = """
name: mitogen_free
short_description: the free strategy, with Mitogen connections
description:
  - Task execution as the free strategy, over Mitogen's persistent per-host interpreters.
"""


class StrategyModule(
    ansible_mitogen.strategy.StrategyMixin, ansible.plugins.strategy.free.StrategyModule
):
    pass
