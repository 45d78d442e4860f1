"""The linear strategy run through Mitogen (PyPI `mitogen`, pinned in requirements.txt).

Mitogen keeps one Python interpreter per host for the whole run and sends modules over
it, instead of starting a new interpreter over SSH for every task; on the lab that makes
a no-op site.yml about a third faster (docs/benchmarks.md). ansible.cfg selects it; to
run without it, set ANSIBLE_STRATEGY=linear.
"""

from __future__ import annotations

import ansible.plugins.strategy.linear
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.strategy

DOCUMENTATION = """
name: mitogen_linear
short_description: the linear strategy, with Mitogen connections
description:
  - Task execution as the linear strategy, over Mitogen's persistent per-host interpreters.
"""


class StrategyModule(
    ansible_mitogen.strategy.StrategyMixin, ansible.plugins.strategy.linear.StrategyModule
):
    pass
