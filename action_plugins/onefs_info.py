"""Controller side of onefs_info (library/onefs_info.py documents it).

The OneFS API is read from the control host (the onefs_tiering role delegates to
localhost), where a module costs far more than its few GETs: the module and its
module_utils zipped for the run (AnsiballZ), then a new Python that compiles them from
that zip before the first request (together ~0.7 s, the GETs ~0.06 s, on the lab). So
where the task runs on the control host itself (a local connection, no become, no task
`environment`), this plugin reads the cluster in its own process with the module's own
code (module_utils/onefs.py: OneFSClient, read_info) and answers as the module does,
errors included (msg, status, code). Anywhere else it runs the module.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from ansible.plugins.action import ActionBase

# the project's module_utils, beside action_plugins (ansible.cfg: module_utils), which
# Ansible serves to modules only: loaded here by path, under a name of this plugin's own
_CLIENT = Path(__file__).resolve().parent.parent / "module_utils" / "onefs.py"
_client: ModuleType | None = None


def client_code() -> ModuleType:
    """module_utils/onefs.py, loaded once per process."""
    global _client
    if _client is None:
        spec = importlib.util.spec_from_file_location("dlcluster_onefs_client", _CLIENT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _client = module
    return _client


class ActionModule(ActionBase):
    TRANSFERS_FILES = False

    def _on_controller(self) -> bool:
        """Whether the task runs on the control host as its own user and environment."""
        return (
            getattr(self._connection, "transport", None) == "local"
            and not self._play_context.become
            # unset, the keyword reads [{}]
            and not any(self._task.environment or [])
        )

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        if not self._on_controller():
            result.update(self._execute_module(task_vars=task_vars))
            return result
        onefs = client_code()
        _validation, params = self.validate_argument_spec(argument_spec=onefs.info_argument_spec())
        try:
            answer = onefs.converse(
                params, lambda client: onefs.read_info(client, params["gather_subset"])
            )
        except onefs.OneFSError as err:
            result.update(failed=True, msg=str(err), status=err.status, code=err.code)
            return result
        result.update(answer)
        return result
