"""The project's strategies (strategy_plugins/dlcluster_linear.py, mitogen_linear.py,
mitogen_free.py) skip a task whose condition is false without a worker process, with the
result a worker would return, run a role dependency that its own condition skips once per
play, and work out no host's variables for ansible-core's implicit meta tasks."""

from __future__ import annotations

import importlib.util
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
  roles:
    - notifier
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
  post_tasks:
    - name: Record the results
      ansible.builtin.copy:
        content: "{{ {'mixed': mixed, 'nested': nested, 'context': context,
                      'undefined': undefined, 'looped': looped, 'delegated': delegated,
                      'hidden': hidden, 'handled': handled | default('no')} | to_nice_json }}\\n"
        dest: "{{ out_dir }}/{{ inventory_hostname }}.json"
        mode: "0644"
"""

# A role whose task notifies a handler on one host: the implicit `flush_handlers` after
# the play's tasks runs it there, before the post_tasks that record the results.
ROLE_TASKS = """
- name: Notify on one host
  ansible.builtin.debug:
    msg: notifies
  changed_when: flag
  notify: Handle it
"""
ROLE_HANDLERS = """
- name: Handle it
  ansible.builtin.set_fact:
    handled: "{{ inventory_hostname }}"
"""

# Per task, the hosts that go to a worker: those whose condition is true, and every host
# of a task with a loop, a delegated host or a condition that fails.
WORKERS = {
    "Notify on one host": {"a", "b"},
    "Handle it": {"b"},
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


def write_project(tmp_path: Path) -> Path:
    """The playbook, its role and an inventory of two local hosts; the playbook's path."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAYBOOK)
    role = tmp_path / "roles" / "notifier"
    for part, text in (("tasks", ROLE_TASKS), ("handlers", ROLE_HANDLERS)):
        (role / part).mkdir(parents=True, exist_ok=True)
        (role / part / "main.yml").write_text(text)
    return playbook


def play_two_hosts(
    tmp_path: Path,
    playbook: Path,
    flags: dict[str, bool],
    strategy: str | None,
    env: dict[str, str] | None = None,
    extra_vars: dict | None = None,
) -> str:
    """ansible-playbook with the project's ansible.cfg on the local hosts a and b (their
    `flag` from `flags`), under `strategy` (ansible.cfg's when None); its output."""
    inventory = tmp_path / "inventory.json"
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    hosts = {host: {**local, "flag": flag} for host, flag in flags.items()}
    inventory.write_text(json.dumps({"all": {"hosts": hosts}}))
    environment = {
        **os.environ,
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
    }
    environment.pop("ANSIBLE_STRATEGY", None)
    if strategy:
        environment["ANSIBLE_STRATEGY"] = strategy
    environment.update(env or {})
    command = [str(BIN / "ansible-playbook"), "-i", str(inventory), str(playbook)]
    if extra_vars:
        command += ["-e", json.dumps(extra_vars)]
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def run(tmp_path: Path, strategy: str | None, debug: bool = False) -> tuple[dict, str]:
    out = tmp_path / (strategy or "project")
    out.mkdir()
    playbook = write_project(tmp_path)
    stdout = play_two_hosts(
        tmp_path,
        playbook,
        {"a": False, "b": True},
        strategy,
        env={"ANSIBLE_DEBUG": "1"} if debug else None,
        extra_vars={"out_dir": str(out)},
    )
    results = {host: json.loads((out / f"{host}.json").read_text()) for host in ("a", "b")}
    return results, stdout


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
    # The role's handler ran where it was notified, at the flush that ends the tasks.
    assert (project["a"]["handled"], project["b"]["handled"]) == ("no", "b")


def test_the_free_strategy_gives_the_results_of_ansible_cores(tmp_path):
    """mitogen_free (the switches' play) shares the controller's skip: its registered
    results are those of ansible-core's own free strategy."""
    project, _ = run(tmp_path, "mitogen_free")
    core, _ = run(tmp_path, "free")
    assert project == core
    assert project["a"]["mixed"]["skipped"] is True
    assert (project["a"]["handled"], project["b"]["handled"]) == ("no", "b")


def test_the_strategy_without_mitogen_gives_the_results_of_ansible_cores(tmp_path):
    """dlcluster_linear (the plays on the control host) shares the controller's skip
    without Mitogen: its registered results are those of ansible-core's linear strategy."""
    project, _ = run(tmp_path, "dlcluster_linear")
    core, _ = run(tmp_path, "linear")
    assert project == core
    assert project["a"]["mixed"]["skipped"] is True
    assert (project["a"]["handled"], project["b"]["handled"]) == ("no", "b")


# Two roles list a dependency whose only task its own condition skips on host a (the
# shape of cluster_host: read each server once per run); a third role is imported under
# a condition false on host b, and a fourth, after it, lists the dependency too.
DEPENDENCY_PLAYBOOK = """
- name: A dependency that its own condition skips
  hosts: all
  gather_facts: false
  tasks:
    - name: The first role that lists it
      ansible.builtin.import_role:
        name: first
    - name: The second role that lists it
      ansible.builtin.import_role:
        name: second
- name: A dependency that the import's condition skips
  hosts: all
  gather_facts: false
  tasks:
    - name: A role imported where flag is true
      ansible.builtin.import_role:
        name: first
      when: flag
    - name: A role imported everywhere
      ansible.builtin.import_role:
        name: second
"""


def dependency_run(tmp_path: Path, strategy: str) -> list[tuple[str, str, str]]:
    """(play number, host, outcome) of every round of the dependency's task, sorted (the
    hosts of one round report in either order)."""
    roles = tmp_path / "roles"
    (roles / "dependency" / "tasks").mkdir(parents=True)
    (roles / "dependency" / "tasks" / "main.yml").write_text(
        "- name: The dependency's read\n"
        "  ansible.builtin.debug:\n    msg: reads\n"
        "  when: not flag\n"
    )
    for name in ("first", "second"):
        (roles / name / "tasks").mkdir(parents=True)
        (roles / name / "meta").mkdir()
        (roles / name / "meta" / "main.yml").write_text("dependencies:\n  - role: dependency\n")
        (roles / name / "tasks" / "main.yml").write_text(
            f"- name: The role {name}\n  ansible.builtin.debug:\n    msg: {name}\n"
        )
    playbook = tmp_path / "play.yml"
    playbook.write_text(DEPENDENCY_PLAYBOOK)
    stdout = play_two_hosts(
        tmp_path,
        playbook,
        {"a": True, "b": False},
        strategy,
        env={"ANSIBLE_ROLES_PATH": str(roles)},
    )
    rounds, play, task = [], 0, None
    for line in stdout.splitlines():
        if line.startswith("PLAY ["):
            play += 1
        elif line.startswith("TASK ["):
            task = line
        elif (
            task
            and "dependency : " in task
            and (outcome := re.match(r"(ok|skipping): \[(\w+)\]", line))
        ):
            rounds.append((str(play), outcome.group(2), outcome.group(1)))
    return sorted(rounds)


@pytest.mark.parametrize("strategy", ["dlcluster_linear", "mitogen_linear"])
def test_a_dependency_that_its_own_condition_skips_runs_once_per_play(tmp_path, strategy):
    """ansible-core's linear strategy evaluates the dependency again before the second
    role on host a, where its own condition skipped it; the project's strategies count
    that skip as the dependency's run. On host b, where it ran, both run it once. A
    dependency skipped by its importing role's condition still runs for the next role."""
    core = dependency_run(tmp_path / "core", "linear")
    assert core == [
        ("1", "a", "skipping"), ("1", "a", "skipping"), ("1", "b", "ok"),
        ("2", "a", "skipping"), ("2", "a", "skipping"),
        ("2", "b", "ok"), ("2", "b", "skipping"),
    ]  # fmt: skip
    assert dependency_run(tmp_path / "project", strategy) == [
        ("1", "a", "skipping"), ("1", "b", "ok"),
        ("2", "a", "skipping"),
        ("2", "b", "ok"), ("2", "b", "skipping"),
    ]  # fmt: skip


def test_a_false_condition_starts_no_worker(project_run):
    """Only the hosts whose task must run (or be evaluated per item, per delegated host, or
    fail) are queued to a worker; ansible-core's debug log names each one."""
    _, log = project_run
    queued: dict[str, set[str]] = {}
    task = None
    for line in log.splitlines():
        if header := re.match(r"(?:TASK|RUNNING HANDLER) \[(?:\w+ : )?(.*)\] \*", line):
            task = header.group(1)
            queued[task] = set()
        elif task and (entry := re.search(r"entering _queue_task\(\) for (\w+)/", line)):
            queued[task].add(entry.group(1))
    assert queued == WORKERS


def strategy_module(name: str = "mitogen_linear"):
    """strategy_plugins/<name>.py, imported as ansible's loader does."""
    spec = importlib.util.spec_from_file_location(
        f"{name}_under_test", ROOT / "strategy_plugins" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled_tasks(blocks) -> list:
    """Every task of a compiled play, blocks within blocks included."""
    tasks = []
    for entry in blocks:
        if hasattr(entry, "block"):
            tasks += compiled_tasks(entry.block + entry.rescue + entry.always)
        else:
            tasks.append(entry)
    return tasks


def test_implicit_meta_tasks_ask_for_no_variables(tmp_path):
    """The meta tasks ansible-core adds (role_complete, flush_handlers, force_handlers'
    noops) get no host variables worked out; every other task, a meta written in the
    playbook included, gets the variable manager's."""
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.playbook import Playbook
    from ansible.plugins.loader import init_plugin_loader
    from ansible.utils.collection_loader import AnsibleCollectionConfig
    from ansible.vars.manager import VariableManager

    if AnsibleCollectionConfig.collection_finder is None:  # as ansible-playbook does
        init_plugin_loader([])
    playbook = write_project(tmp_path)
    written = (
        "    - name: A flush written in the playbook\n      ansible.builtin.meta: flush_handlers\n"
    )
    playbook.write_text(
        playbook.read_text().replace("  post_tasks:\n", written + "  post_tasks:\n")
    )
    loader = DataLoader()
    inventory = InventoryManager(loader, sources=["a,b"])
    variables = VariableManager(loader=loader, inventory=inventory)
    play = Playbook.load(str(playbook), variable_manager=variables, loader=loader).get_plays()[0]
    play.force_handlers = True
    tasks = compiled_tasks(play.compile())
    module = strategy_module("dlcluster_linear")

    implicit = [task for task in tasks if module.is_implicit_meta(task)]
    assert {task._get_meta() for task in implicit} == {"role_complete", "flush_handlers", "noop"}
    assert all(task.implicit for task in implicit)
    written_flush = [task for task in tasks if task.name == "A flush written in the playbook"]
    assert len(written_flush) == 1 and not module.is_implicit_meta(written_flush[0])

    asked = []

    class Recording:
        def get_vars(self, **kwargs):
            asked.append(kwargs["task"])
            return {"asked": True}

    proxy = module.VariablesWithoutImplicitMetas(Recording())
    host = inventory.get_host("a")
    given = [proxy.get_vars(play=play, host=host, task=task) for task in tasks]
    assert asked == [task for task in tasks if task not in implicit]
    assert given.count({}) == len(implicit)


def test_mitogen_compiles_a_shared_module_utils_file_once(monkeypatch):
    """Mitogen's scan of what a module imports finds the same files with compile_once as
    with Python's compile, and compiles a file that several modules import only once."""
    import ansible
    import ansible_mitogen.module_finder as finder

    module = strategy_module()  # a fresh cache
    modules = Path(ansible.__file__).parent / "modules"
    search_path = (str(ROOT / "module_utils"), str(Path(ansible.__file__).parent / "module_utils"))
    names = ("command", "file", "stat")

    def scan_all() -> list:
        return [
            finder.scan(f"ansible_module_{name}", str(modules / f"{name}.py"), search_path)
            for name in names
        ]

    monkeypatch.setattr(finder, "compile", compile)  # Python's own, as Mitogen ships
    expected = scan_all()
    compiled: list[str] = []

    def counting(source, filename, mode, **kwargs):
        compiled.append(filename)
        return compile(source, filename, mode, **kwargs)

    monkeypatch.setattr(module, "compile", counting, raising=False)
    monkeypatch.setattr(finder, "compile", module.compile_once)
    assert scan_all() == expected
    files = {name for found in expected for name, _, _ in found}
    assert "ansible.module_utils.basic" in files
    # every module and every file they import, once each at most, and one compile per
    # distinct text (files with the same text, such as the empty __init__.py of several
    # packages, share one code object)
    scanned = {*files, *(f"ansible_module_{name}" for name in names)}
    texts = {Path(path).read_bytes() for found in expected for _, path, _ in found}
    texts |= {(modules / f"{name}.py").read_bytes() for name in names}
    assert len(compiled) == len(set(compiled)) and set(compiled) <= scanned
    assert len(compiled) == len(texts)
    assert {"ansible.module_utils.basic", "ansible_module_command"} <= set(compiled)
    before = len(compiled)
    assert scan_all() == expected and len(compiled) == before

    # Sending a file to a host, Mitogen's responder lists the file's own imports: the same
    # names as with Python's compile, from the code object the scan made (compiled under
    # the module's name there, under its path here).
    import mitogen.master

    assert mitogen.master.compile is module.compile_once  # installed when the plugin loads
    monkeypatch.setattr(mitogen.master, "compile", compile)
    basic = "ansible.module_utils.basic"
    related = mitogen.master.ModuleFinder().find_related_imports(basic)
    assert "ansible.module_utils.common.parameters" in related
    monkeypatch.setattr(mitogen.master, "compile", module.compile_once)
    before = len(compiled)
    assert mitogen.master.ModuleFinder().find_related_imports(basic) == related
    assert len(compiled) == before


def test_mitogen_lists_the_installed_collections_once(monkeypatch):
    """A collection's module gets every installed collection on its import path, as from
    Mitogen's own planner, from one listing per run."""
    import ansible.collections.list
    import ansible_mitogen.planner

    module = strategy_module()
    # Mitogen's invoke() calls the planner's _load_collections by that name
    assert ansible_mitogen.planner._load_collections is module.load_collections_once

    class Invocation:
        def __init__(self) -> None:
            self._extra_sys_paths: set[str] = set()

    installed = [b"/srv/collections/ansible_collections/community/docker", b"/srv/c/a/b"]
    listed = []

    def listing(*args, **kwargs):  # ansible-core's list_collection_dirs yields bytes
        listed.append(1)
        yield from installed

    monkeypatch.setattr(ansible.collections.list, "list_collection_dirs", listing)
    spec = importlib.util.find_spec("ansible_mitogen.planner")
    shipped = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shipped)  # Mitogen's planner as it ships
    mitogen = Invocation()
    shipped._load_collections(mitogen)
    assert mitogen._extra_sys_paths == {path.decode() for path in installed}

    listed.clear()
    first, second = Invocation(), Invocation()
    module.load_collections_once(first)
    module.load_collections_once(second)
    assert first._extra_sys_paths == second._extra_sys_paths == mitogen._extra_sys_paths
    assert len(listed) == 1
