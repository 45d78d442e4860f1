"""The linear strategy run through Mitogen (PyPI `mitogen`, pinned in requirements.txt).

Mitogen keeps one Python interpreter per host for the whole run and sends modules over
it, instead of starting a new interpreter over SSH for every task; on the lab that makes
a no-op site.yml about a third faster (docs/benchmarks.md). ansible.cfg selects it; to
run without it, set ANSIBLE_STRATEGY=linear.

It adds dlcluster_linear's savings (the strategy of the plays on the control host): a
task whose `when` is false skipped on the controller without a worker process, a role
dependency that its own condition skips counted as run, and no host variables worked out
for ansible-core's implicit meta tasks; that module's docstring says why and how.

Loading it also makes Mitogen compile each file it sends once per run, instead of once per
module that imports it and again to send it (`compile_once`), and list the installed
collections once per run instead of once per task of a collection's module
(`collection_dirs`).
"""

from __future__ import annotations

import os
import sys

import ansible.collections.list
import ansible.plugins.strategy.linear
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.module_finder
import ansible_mitogen.planner
import ansible_mitogen.strategy
import mitogen.master
from ansible.plugins.loader import strategy_loader

DOCUMENTATION = """
name: mitogen_linear
short_description: the linear strategy, with Mitogen connections
description:
  - Task execution as the linear strategy, over Mitogen's persistent per-host interpreters.
  - A task whose conditional is false for a host is skipped by the controller, without a
    worker process, with the result a worker would have returned; tasks with a loop or
    C(delegate_to), and conditionals that fail or warn, go to a worker as usual.
  - As dlcluster_linear, a role dependency that its own condition skips on a host counts
    as run there for the rest of the play, and Ansible's implicit meta tasks get no host
    variables worked out.
  - Mitogen compiles each file it sends once (for its import scan and its module
    responder alike) and lists the installed collections once per run.
"""

# The controller-side part lives in the sibling plugin (the strategy of the plays on the
# control host); the loader imports it under its own name, from this directory whatever
# the configuration says.
strategy_loader.add_directory(os.path.dirname(os.path.abspath(__file__)))
_project = sys.modules[strategy_loader.get("dlcluster_linear", class_only=True).__module__]


_compiled: dict = {}


def compile_once(source, filename, mode):
    """`compile` for Mitogen's two readings of what a module imports, remembered per source
    text.

    Before a module's first run, Mitogen's multiplexer compiles the module and every
    `module_utils` file it imports, to find what to send; it remembers the result per
    module, not per file, so each of the ~30 modules of a site.yml run compiled
    ansible.module_utils.basic and the ~45 files below it again (about 0.08 s a module,
    2.4 s of a lab no-op, on the path of the task that waits for it). Then, sending each of
    those files to a host's interpreter, its module responder compiles it once more to
    list the file's own imports, on the thread that routes every host's messages. A code
    object is immutable and depends only on its source and mode (and its name, which only
    tracebacks show; both readings only list import statements), so one per source serves
    both. `dont_inherit`: no `__future__` flag of this file changes an import statement.
    """
    key = (source, mode)
    code = _compiled.get(key)
    if code is None:
        code = _compiled[key] = compile(source, filename, mode, dont_inherit=True)
    return code


# The multiplexer is forked from this process when the strategy first runs, after this
# module is loaded, so it scans and responds with this `compile`; nothing else in
# module_finder or mitogen.master calls it.
ansible_mitogen.module_finder.compile = compile_once
mitogen.master.compile = compile_once


_listing: dict[str, list[str]] = {}


def collection_dirs() -> list[str]:
    """The installed collections' directories, listed once per run.

    Before it runs a collection's module, Mitogen's planner lists every installed
    collection (ansible-core's `list_collection_dirs`, a walk over the ~100 collections of
    the `ansible` package) to put them on the module's import path. It remembers that per
    module in the worker process, but a worker lives for one task, so every task of a
    collection's module (community.docker, community.mysql, ansible.posix...) walked them
    again: about 3 s of worker CPU in a lab no-op. The collections a run can import are
    fixed when it starts (ansible-core's collection loader reads its paths then);
    `ProjectStrategyMixin.run` lists them in the controller before the first worker forks.
    """
    if "dirs" not in _listing:  # a site with no collection lists once too
        _listing["dirs"] = [
            path.decode("utf-8") for path in ansible.collections.list.list_collection_dirs()
        ]
    return _listing["dirs"]


def load_collections_once(invocation) -> None:
    """What Mitogen's planner does for a collection's module (`_load_collections`): every
    installed collection's directory on the module's import path, from `collection_dirs`."""
    invocation._extra_sys_paths.update(collection_dirs())


ansible_mitogen.planner._load_collections = load_collections_once


class ProjectStrategyMixin(_project.ProjectStrategyMixin):
    """dlcluster_linear's additions, and the collections listed before the first worker
    forks (`collection_dirs`)."""

    def run(self, iterator, play_context, *args, **kwargs):
        collection_dirs()  # in this process, so that every forked worker has the list
        return super().run(iterator, play_context, *args, **kwargs)


class StrategyModule(
    ProjectStrategyMixin,
    ansible_mitogen.strategy.StrategyMixin,
    ansible.plugins.strategy.linear.StrategyModule,
):
    pass
