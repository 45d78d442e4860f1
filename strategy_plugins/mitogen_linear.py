"""The linear strategy run through Mitogen (PyPI `mitogen`, pinned in requirements.txt).

Mitogen keeps one Python interpreter per host for the whole run and sends modules over
it, instead of starting a new interpreter over SSH for every task; on the lab that makes
a no-op site.yml about a third faster (docs/benchmarks.md). ansible.cfg selects it; to
run without it, set ANSIBLE_STRATEGY=linear.

It also skips a task whose `when` is false without a worker process. Ansible's linear
strategy forks a worker per host and task and lets the worker evaluate `when`; a task that
every server skips cost as much as a trivial one that runs (about 0.05 s per host on 2
cores), and a re-run that has nothing to do is mostly such tasks. Here the controller
evaluates the conditional the way the worker would (ansible-core's
`TaskExecutor._execute_internal`: the host's variables with the play context's, the
task's own and inherited conditions in order) and, when it is false, hands the same
skipped result to the results queue the workers write to, so callbacks, `register` and
the recap see what they would have seen. Everything else goes to a worker as before: a
task with a loop (its condition is per item), with `delegate_to` (evaluated against the
delegated host), a condition that is true, one whose evaluation fails or warns (the
worker reports it as usual), and any task without a condition.

And it does not work out a host's variables for the meta tasks ansible-core adds on its
own: `role_complete` after every role, `flush_handlers` after every section of a play and
the `noop`s that `force_handlers` (ansible.cfg) adds. Linear's loop computes every host's
variables for every task before it looks at the action, although these use none
(ansible-core's `_execute_meta` reads no variable for an implicit `role_complete`, nor for
a `flush_handlers` or `noop` without a condition); they are tagged `always`, so even a
play that a `--tags` run empties paid for them, per host and per role.

Loading it also makes Mitogen compile each file it sends once per run, instead of once per
module that imports it and again to send it (`compile_once`), and list the installed
collections once per run instead of once per task of a collection's module
(`collection_dirs`).
"""

from __future__ import annotations

import ansible.collections.list
import ansible.plugins.strategy.linear
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.module_finder
import ansible_mitogen.planner
import ansible_mitogen.strategy
import mitogen.master
from ansible import constants as C
from ansible._internal import _display_utils
from ansible._internal._templating._engine import TemplateEngine
from ansible.executor.task_result import _RawTaskResult

DOCUMENTATION = """
name: mitogen_linear
short_description: the linear strategy, with Mitogen connections
description:
  - Task execution as the linear strategy, over Mitogen's persistent per-host interpreters.
  - A task whose conditional is false for a host is skipped by the controller, without a
    worker process, with the result a worker would have returned; tasks with a loop or
    C(delegate_to), and conditionals that fail or warn, go to a worker as usual.
  - Ansible's implicit meta tasks get no host variables worked out; Mitogen compiles each
    file it sends once (for its import scan and its module responder alike) and lists the
    installed collections once per run.
"""


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


def skipped_result(task, task_vars, play_context):
    """The result a worker returns for `task` when its conditional is false, or None when
    the task must go to a worker (no conditional, a loop, a delegated host, a true
    conditional, or an evaluation that fails or warns)."""
    if not task.when or task.loop is not None or task.loop_with or task.delegate_to:
        return None
    try:
        variables = dict(task_vars)
        variables["ansible_search_path"] = task.get_search_path()
        templar = TemplateEngine(loader=task._loader, variables=variables)
        # As the worker: the play context with the task's and the host's overrides adds
        # the connection's magic variables before the conditional is evaluated.
        context = play_context.set_task_and_variable_override(
            task=task, variables=variables, templar=templar
        )
        context.post_validate(templar=templar)
        context.update_vars(variables)
        false_condition: dict = {}
        with _display_utils.DeferredWarningContext(variables=variables) as warnings:
            if task._resolve_conditional(task.when, variables, result_context=false_condition):
                return None
        if warnings.get_warnings() or warnings.get_deprecation_warnings():
            return None
        result = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}
        result.update(false_condition)
        task.update_result_no_log(templar, result)
        return result
    except Exception:  # the worker evaluates it again and reports the error as usual
        return None


def is_implicit_meta(task) -> bool:
    """Whether `task` is a meta task ansible-core added that reads no variable: the
    `role_complete` ending a role, a `flush_handlers` ending a section, or the `noop` that
    `force_handlers` pads a section with (neither of the last two has a condition)."""
    if not task.implicit or task.action not in C._ACTION_META:
        return False
    meta = task._get_meta()
    return meta == "role_complete" or (meta in ("flush_handlers", "noop") and not task.when)


class VariablesWithoutImplicitMetas:
    """The run's variable manager, except that a host's variables for an implicit meta task
    are an empty mapping: the strategy's loop asks for them, the meta uses none."""

    def __init__(self, variable_manager):
        self._variable_manager = variable_manager

    def __getattr__(self, name):
        return getattr(self._variable_manager, name)

    def get_vars(self, *args, **kwargs):
        task = kwargs.get("task")
        if task is not None and is_implicit_meta(task):
            return {}
        return self._variable_manager.get_vars(*args, **kwargs)


class ProjectStrategyMixin:
    """What the project's strategies (this one and mitogen_free) add to ansible-core's: the
    controller's skip of a false condition, no variables for implicit meta tasks, the
    collections listed before the first worker forks; the module's docstring says why."""

    def run(self, iterator, play_context, *args, **kwargs):
        collection_dirs()  # in this process, so that every forked worker has the list
        variable_manager = self._variable_manager
        self._variable_manager = VariablesWithoutImplicitMetas(variable_manager)
        try:
            return super().run(iterator, play_context, *args, **kwargs)
        finally:
            self._variable_manager = variable_manager

    def _queue_task(self, host, task, task_vars, play_context):
        result = skipped_result(task, task_vars, play_context)
        if result is None:
            return super()._queue_task(host, task, task_vars, play_context)
        # The results thread finds the task of a result in this cache, as for a worker's.
        self._queued_task_cache[(host.name, task._uuid)] = {
            "host": host,
            "task": task,
            "task_vars": task_vars,
            "play_context": play_context,
        }
        self._tqm.send_callback("v2_runner_on_start", host, task)
        self._final_q.send_task_result(
            _RawTaskResult(host=host, task=task, return_data=result, task_fields=task.dump_attrs())
        )
        self._pending_results += 1
        return None


class StrategyModule(
    ProjectStrategyMixin,
    ansible_mitogen.strategy.StrategyMixin,
    ansible.plugins.strategy.linear.StrategyModule,
):
    pass
