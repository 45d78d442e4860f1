"""List semantics of PAPI collections: sort, dir, limit, resume tokens and total.

The docstrings of the api/*_api.py methods of isilon-sdk 0.7.0 (PyPI isilon-sdk; see the
package docstring): `limit` returns at most that many items and a `resume` token for the
rest; the token carries the query it continues ("resume cannot be used with other
options": the options the token was made with apply, others given beside it are ignored,
as Dell's own clients send them together: dellemc.powerscale's info module); `sort` names
a field, `dir` is ASC or DESC (dellemc.powerscale's job_info); `total` counts every item
that matched.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from . import model

MAX_LIMIT = 2**32 - 1


def _token(query: dict[str, str], offset: int) -> str:
    raw = json.dumps({"q": query, "o": offset}, sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _untoken(token: str) -> tuple[dict[str, str], int]:
    try:
        data = json.loads(base64.urlsafe_b64decode(token.encode()))
        return dict(data["q"]), int(data["o"])
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise model.bad_request(f"Invalid resume token {token!r}", "resume") from None


def options(query: dict[str, list[str]]) -> tuple[dict[str, str], int]:
    """(the query's single-valued options, offset): a resume token's or the request's."""
    flat = {k: v[0] for k, v in query.items() if v}
    if "resume" in flat:
        if len(flat["resume"]) > 8192:
            raise model.bad_request("resume is longer than 8192", "resume")
        return _untoken(flat["resume"])
    return flat, 0


def page(
    items: list[dict[str, Any]],
    opts: dict[str, str],
    offset: int,
    key: str,
    default_sort: str | None = "id",
    max_limit: int = MAX_LIMIT,
) -> dict[str, Any]:
    """{key: items of this page, total, resume}: sorted, limited, with a token for more."""
    sort = opts.get("sort", default_sort)
    direction = opts.get("dir", "ASC")
    if direction not in ("ASC", "DESC"):
        raise model.bad_request(f"dir must be ASC or DESC, got {direction!r}", "dir")
    if sort is not None:
        if items and not any(sort in item for item in items):
            raise model.bad_request(f"Cannot sort by unknown field {sort!r}", "sort")
        items = sorted(
            items,
            key=lambda item: (item.get(sort) is None, _sortable(item.get(sort))),
            reverse=direction == "DESC",
        )
    limit = None
    if "limit" in opts:
        try:
            limit = int(opts["limit"])
        except ValueError:
            raise model.bad_request(
                f"limit must be an integer, got {opts['limit']!r}", "limit"
            ) from None
        if not 1 <= limit <= max_limit:
            raise model.bad_request(f"limit must be from 1 to {max_limit}", "limit")
    total = len(items)
    end = total if limit is None else offset + limit
    body: dict[str, Any] = {key: items[offset:end], "total": total}
    body["resume"] = _token(opts, end) if end < total else None
    return body


def _sortable(value: Any) -> Any:
    """Values of mixed type sort as text; lists by their first element."""
    if isinstance(value, list):
        value = value[0] if value else ""
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))
