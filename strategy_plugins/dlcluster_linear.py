"""The linear strategy with the project's controller-side savings, without Mitogen.

For the plays that run on the control host alone (the early phase's checks and plans,
the OneFS API play): Mitogen's interpreters buy them nothing, and starting them would cost
a run of one layer (`--tags onefs`) their start-up. mitogen_linear and mitogen_free, which
ansible.cfg selects for every other play, add the same three savings to Mitogen's:

A task whose `when` is false is skipped without a worker process. Ansible's linear
strategy forks a worker per host and task and lets the worker evaluate `when`; a task that
every server skips cost as much as a trivial one that runs (about 0.05 s per host on 2
cores), and a re-run that has nothing to do is mostly such tasks. Here the controller
evaluates the conditional the way the worker would (ansible-core's
`TaskExecutor._execute_internal`: the host's variables with the play context's, the
task's inherited and own conditions in order) and, when it is false, hands the same
skipped result to the results queue the workers write to, so callbacks, `register` and
the recap see what they would have seen. Everything else goes to a worker as before: a
task with a loop (its condition is per item), with `delegate_to` (evaluated against the
delegated host), a condition that is true, one whose evaluation fails or warns (the
worker reports it as usual), and any task without a condition.

A role dependency that its own condition skips on a host counts as run there for the
rest of the play (`mark_dependency_run`): ansible-core runs a dependency once per play,
but repeated one whose tasks all skipped before every role that lists it (cluster_host,
the servers' read, a skip per role and host).

A host's variables are not worked out for the meta tasks ansible-core adds on its own:
`role_complete` after every role, `flush_handlers` after every section of a play and the
`noop`s that `force_handlers` (ansible.cfg) adds. Linear's loop computes every host's
variables for every task before it looks at the action, although these use none
(ansible-core's `_execute_meta` reads no variable for an implicit `role_complete`, nor for
a `flush_handlers` or `noop` without a condition); they are tagged `always`, so even a
play that a `--tags` run empties paid for them, per host and per role.
"""

from __future__ import annotations

import ansible.plugins.strategy.linear
from ansible import constants as C
from ansible._internal import _display_utils
from ansible._internal._templating._engine import TemplateEngine
from ansible.executor.task_result import _RawTaskResult
from ansible.utils.sentinel import Sentinel

DOCUMENTATION = """
name: dlcluster_linear
short_description: the linear strategy, with false conditions decided on the controller
description:
  - Task execution as ansible-core's linear strategy, without Mitogen.
  - A task whose conditional is false for a host is skipped by the controller, without a
    worker process, with the result a worker would have returned; tasks with a loop or
    C(delegate_to), and conditionals that fail or warn, go to a worker as usual.
  - A role dependency that its own condition skips on a host counts as run there for the
    rest of the play.
  - Ansible's implicit meta tasks get no host variables worked out.
"""


def skipped_result(task, task_vars, play_context):
    """The result a worker returns for `task` when its conditional is false, and whether
    the task's own condition (not one it inherits) was the false one; None when the task
    must go to a worker (no conditional, a loop, a delegated host, a true conditional, or
    an evaluation that fails or warns)."""
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
        # `task.when` is the inherited conditions (the blocks', the importing role's, the
        # dependency's) followed by the task's own; ansible-core evaluates them in that
        # order and stops at the first false one, so evaluating the two parts in turn
        # reports the same false condition.
        inherited = task._get_parent_attribute("when", omit=True) or []
        own = getattr(task, "_when", Sentinel)
        own = [] if own is Sentinel else own if isinstance(own, list) else [own]
        false_condition: dict = {}
        own_false = False
        with _display_utils.DeferredWarningContext(variables=variables) as warnings:
            if task._resolve_conditional(inherited, variables, result_context=false_condition):
                if task._resolve_conditional(own, variables, result_context=false_condition):
                    return None
                own_false = True
        if warnings.get_warnings() or warnings.get_deprecation_warnings():
            return None
        result = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}
        result.update(false_condition)
        task.update_result_no_log(templar, result)
        return result, own_false
    except Exception:  # the worker evaluates it again and reports the error as usual
        return None


def mark_dependency_run(play, role, host_name: str) -> None:
    """Count the role dependency `role` as run on `host_name` for the rest of `play`.

    Ansible runs a role dependency once per play, before the first role that lists it;
    the `role_complete` that ends it marks it done only where one of its tasks ran, so a
    dependency whose tasks all skipped is evaluated again before every later role that
    lists it. Called when a dependency's task is skipped by its own condition (its
    inherited conditions were true), which says the dependency has nothing to do on that
    host, as a task that ran would have: the project's one dependency with tasks,
    cluster_host, skips on conditions that stay false for the rest of a play (the server
    was read, the play is offline, the host is no server). A dependency skipped by the
    condition of the role import that brought it is not marked: the next role may need
    it. This is the mark ansible-core's results loop sets for a task that ran."""
    play._get_cached_role(role)._had_task_run[host_name] = True


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
    """What the project's strategies (this one, mitogen_linear and mitogen_free) add to
    ansible-core's: the controller's skip of a false condition, a dependency that its own
    condition skips counted as run, no variables for implicit meta tasks; the module's
    docstring says why."""

    def run(self, iterator, play_context, *args, **kwargs):
        self._project_play = iterator._play
        variable_manager = self._variable_manager
        self._variable_manager = VariablesWithoutImplicitMetas(variable_manager)
        try:
            return super().run(iterator, play_context, *args, **kwargs)
        finally:
            self._variable_manager = variable_manager

    def _queue_task(self, host, task, task_vars, play_context):
        skipped = skipped_result(task, task_vars, play_context)
        if skipped is None:
            return super()._queue_task(host, task, task_vars, play_context)
        result, own_condition_false = skipped
        if own_condition_false and task._role is not None and task._role.get_parents():
            mark_dependency_run(self._project_play, task._role, host.name)
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


class StrategyModule(ProjectStrategyMixin, ansible.plugins.strategy.linear.StrategyModule):
    pass
