"""Controller side of the host_state module (library/host_state.py): renders the files
given by `template` and reads those given by `source` from the role, exactly as the
template and copy modules would write them, so that the module on the host compares
their content."""

from __future__ import annotations

import os
from typing import Any

from ansible._internal._templating import _template_vars
from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.template import trust_as_template


class ActionModule(ActionBase):
    TRANSFERS_FILES = False

    def _rendered(self, entry: dict[str, Any], task_vars: dict[str, Any]) -> dict[str, Any]:
        """The entry with its template rendered as ansible.builtin.template's action renders
        `src` for `dest` with its defaults: the role's templates/ found the same way, the
        same search path for includes, the task's variables plus the template_* ones and
        ansible_managed, trim_blocks. Like that action it layers them on a shallow copy of
        the task's variables (the template lookup deep-copies all of them for every file,
        which cost more than the rendering)."""
        template = entry.pop("template")
        source = self._find_needle("templates", template)
        searchpath = []
        for path in [
            *task_vars.get("ansible_search_path", []),
            self._loader._basedir,
            os.path.dirname(source),
        ]:
            searchpath += [os.path.join(path, "templates"), path]
        variables = task_vars.copy()
        variables.update(
            _template_vars.generate_ansible_template_vars(
                path=template,
                fullpath=source,
                dest_path=entry["path"],
                include_ansible_managed="ansible_managed" not in variables,
            )
        )
        variables.update(entry.pop("template_vars", None) or {})
        templar = self._templar.copy_with_new_env(
            searchpath=searchpath, available_variables=variables
        )
        content = templar.template(
            trust_as_template(self._loader.get_text_file_contents(source)),
            escape_backslashes=False,
            overrides={"trim_blocks": True, "lstrip_blocks": False, "newline_sequence": "\n"},
        )
        entry["content"] = "" if content is None else content
        return entry

    def _sourced(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """A file of the role's files/ as one entry; a directory as copy copies one (a
        trailing slash: its contents into `path`), one entry per file below it."""
        source = entry.pop("source")
        found = self._find_needle("files", source)
        if not os.path.isdir(found):
            with open(found, encoding="utf-8") as handle:
                return [{**entry, "content": handle.read()}]
        base = entry["path"].rstrip("/")
        if not source.endswith("/"):
            base = f"{base}/{os.path.basename(found.rstrip('/'))}"
        entries = []
        for folder, _dirs, names in sorted(os.walk(found)):
            for name in sorted(names):
                full = os.path.join(folder, name)
                with open(full, encoding="utf-8") as handle:
                    content = handle.read()
                relative = os.path.relpath(full, found)
                entries.append({**entry, "path": f"{base}/{relative}", "content": content})
        return entries

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        files: list[dict[str, Any]] = []
        for entry in args.get("files") or []:
            entry = dict(entry)
            if entry.get("template") is not None and entry.get("source") is not None:
                raise AnsibleActionFail(f"{entry.get('path')}: give template or source, not both")
            if entry.get("template") is not None:
                files.append(self._rendered(entry, task_vars))
            elif entry.get("source") is not None:
                files += self._sourced(entry)
            else:
                entry.pop("template", None)
                entry.pop("source", None)
                files.append(entry)
        args["files"] = files
        result.update(
            self._execute_module(module_name="host_state", module_args=args, task_vars=task_vars)
        )
        return result
