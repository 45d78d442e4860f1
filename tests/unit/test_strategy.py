"""The project's strategy (strategy_plugins/mitogen_linear.py) skips a task whose
condition is false without a worker process, and with the result a worker would return."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playbook import BIN, ROOT

PLAYBOOK = """
- name: Conditions the controller or a worker evaluates
  hosts: all
  gather_facts: false
  tasks:
    - name: A condition false on one host and true on the other
      ansible.builtin.debug:
        msg: runs
      when: flag
      register: mixed
    - name: A block's and the task's conditions
      when: flag or true
      block:
        - name: In the block, the last condition false on one host
          ansible.builtin.debug:
            msg: runs
          when:
            - inventory_hostname is defined
            - not flag
          register: nested
    - name: A condition on a variable the play context adds
      ansible.builtin.debug:
        msg: "{{ ansible_timeout }}"
      when: ansible_timeout is defined
      register: context
    - name: A condition on an undefined variable fails as usual
      ansible.builtin.debug:
        msg: never
      when: not_defined_anywhere
      register: undefined
      ignore_errors: true
    - name: A loop's condition, per item
      ansible.builtin.debug:
        msg: "{{ item }}"
      loop: [1, 2, 3]
      when: item > 1 and flag
      register: looped
    - name: A delegated task's condition
      ansible.builtin.debug:
        msg: delegated
      delegate_to: "{{ inventory_hostname }}"
      when: flag
      register: delegated
    - name: A skipped include
      ansible.builtin.include_tasks: never.yml
      when: flag and false
    - name: A skipped task that hides its result
      ansible.builtin.debug:
        msg: secret
      when: not flag
      no_log: true
      register: hidden
    - name: Record the results
      ansible.builtin.copy:
        content: "{{ {'mixed': mixed, 'nested': nested, 'context': context,
                      'undefined': undefined, 'looped': looped, 'delegated': delegated,
                      'hidden': hidden} | to_nice_json }}\\n"
        dest: "{{ out_dir }}/{{ inventory_hostname }}.json"
        mode: "0644"
"""

# Per task, the hosts that go to a worker: those whose condition is true, and every host
# of a task with a loop, a delegated host or a condition that fails.
WORKERS = {
    "A condition false on one host and true on the other": {"b"},
    "In the block, the last condition false on one host": {"a"},
    "A condition on a variable the play context adds": {"a", "b"},
    "A condition on an undefined variable fails as usual": {"a", "b"},
    "A loop's condition, per item": {"a", "b"},
    "A delegated task's condition": {"a", "b"},
    "A skipped include": set(),
    "A skipped task that hides its result": {"a"},
    "Record the results": {"a", "b"},
}


def run(tmp_path: Path, strategy: str | None, debug: bool = False) -> tuple[dict, str]:
    out = tmp_path / (strategy or "project")
    out.mkdir()
    inventory = tmp_path / "inventory.json"
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    inventory.write_text(
        json.dumps(
            {"all": {"hosts": {"a": {**local, "flag": False}, "b": {**local, "flag": True}}}}
        )
    )
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAYBOOK)
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    env.pop("ANSIBLE_STRATEGY", None)
    if strategy:
        env["ANSIBLE_STRATEGY"] = strategy
    if debug:
        env["ANSIBLE_DEBUG"] = "1"
    command = [str(BIN / "ansible-playbook"), "-i", str(inventory), str(playbook)]
    command += ["-e", json.dumps({"out_dir": str(out)})]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = {host: json.loads((out / f"{host}.json").read_text()) for host in ("a", "b")}
    return results, done.stdout


@pytest.fixture(scope="module")
def project_run(tmp_path_factory) -> tuple[dict, str]:
    """One run under the project's strategy, with ansible-core's debug log (which changes
    no result), for both tests below."""
    return run(tmp_path_factory.mktemp("project"), None, debug=True)


def test_a_false_condition_gives_the_result_a_worker_gives(project_run, tmp_path):
    """Registered results are those of ansible-core's own linear strategy, host by host:
    the skip reason, the condition that was false, per-item skips, a hidden result."""
    project, _ = project_run
    core, _ = run(tmp_path, "linear")
    assert project == core
    assert project["a"]["mixed"] == {
        "changed": False,
        "false_condition": "flag",
        "skip_reason": "Conditional result was False",
        "skipped": True,
    }
    assert project["b"]["nested"]["false_condition"] == "not flag"
    assert project["b"]["hidden"]["skipped"] is True
    assert project["a"]["context"]["msg"] == 10
    assert project["a"]["undefined"]["failed"] is True
    assert "not_defined_anywhere" in project["a"]["undefined"]["msg"]


def test_a_false_condition_starts_no_worker(project_run):
    """Only the hosts whose task must run (or be evaluated per item, per delegated host, or
    fail) are queued to a worker; ansible-core's debug log names each one."""
    _, log = project_run
    queued: dict[str, set[str]] = {}
    task = None
    for line in log.splitlines():
        if header := re.match(r"TASK \[(.*)\] \*", line):
            task = header.group(1)
            queued[task] = set()
        elif task and (entry := re.search(r"entering _queue_task\(\) for (\w+)/", line)):
            queued[task].add(entry.group(1))
    assert queued == WORKERS
