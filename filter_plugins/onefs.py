"""OneFS objects worked out from the inventory's short forms (the onefs_tiering role)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # unit tests without ansible on the path
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]


def onefs_policy_pattern(policy: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file_matching_pattern of a file pool policy item of onefs_tiering_policies.

    An item gives either the API's own `file_matching_pattern`, or `idle_days`: the
    papers' "not accessed for N days", which is one criterion on the access time
    (`accessed is_older_than N days`). None when it gives neither (a policy that only
    changes its actions, or one being removed).
    """
    if policy.get("file_matching_pattern") is not None:
        return dict(policy["file_matching_pattern"])
    if policy.get("idle_days") is None:
        return None
    days = policy["idle_days"]
    if isinstance(days, bool) or not str(days).strip().isdigit() or int(days) < 1:
        raise AnsibleFilterError(
            f"onefs_tiering_policies: policy {policy.get('name')!r} has idle_days {days!r}; "
            "it must be a whole number of days, 1 or more"
        )
    criterion = {
        "type": "accessed",
        "condition": "is_older_than",
        "relative_datetime_count": {"time_value": int(days), "time_unit": "days"},
    }
    return {"or_criteria": [{"and_criteria": [criterion]}]}


class FilterModule:
    """OneFS short forms."""

    def filters(self) -> dict[str, Any]:
        return {"onefs_policy_pattern": onefs_policy_pattern}
