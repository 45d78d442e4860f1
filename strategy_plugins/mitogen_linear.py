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
"""

from __future__ import annotations

import ansible.plugins.strategy.linear
import ansible_mitogen.loaders  # first: it refuses an Ansible release it cannot drive
import ansible_mitogen.strategy
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
"""


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


class StrategyModule(
    ansible_mitogen.strategy.StrategyMixin, ansible.plugins.strategy.linear.StrategyModule
):
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
