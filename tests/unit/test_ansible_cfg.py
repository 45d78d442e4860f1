"""The project's ansible.cfg, as a run meets it."""

from __future__ import annotations

import json

from playbook import local_host, run_playbook

PLAYBOOK = """
- name: Write a configuration, then fail before the end of the play
  hosts: server
  gather_facts: false
  tasks:
    - name: Write the configuration file
      ansible.builtin.copy:
        content: "settings\\n"
        dest: "{{ config }}"
        mode: "0644"
      notify: Restart the service
    - name: Fail, as a later task of the same play may
      ansible.builtin.fail:
        msg: a later task failed
  handlers:
    - name: Restart the service
      ansible.builtin.copy:
        content: "restarted\\n"
        dest: "{{ restarted }}"
        mode: "0644"
"""


def test_a_failed_run_still_restarts_what_it_reconfigured(tmp_path):
    """force_handlers: the handler notified before the failure runs. Without it the file
    stays written and the service on its old settings, and the next run, which finds the
    file as intended, would never restart it."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAYBOOK)
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(json.dumps({"all": {"hosts": {"server": local_host()}}}))
    variables = {"config": str(tmp_path / "app.conf"), "restarted": str(tmp_path / "restarted")}
    result = run_playbook(inventory, playbook, variables)
    assert result.returncode != 0 and "a later task failed" in result.stdout, result.stdout
    assert (tmp_path / "app.conf").read_text() == "settings\n"
    assert (tmp_path / "restarted").read_text() == "restarted\n", result.stdout[-2000:]
