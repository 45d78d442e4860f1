"""The rdma role's proof (tasks/verify.yml): each HCA port as ibstat and ibv_devinfo see it.

A DGX A100 has eight single-port ConnectX-6 HCAs for its compute fabric, each to be
Active (a subnet manager has brought it up: a LID of its own and the SM's LID, non-zero),
LinkUp, InfiniBand link layer and HDR (rate 200), as DeepOps' NHC checks them
(`check_hw_ib 200 mlx5_N:1`). Outputs as rdma-core v44 prints them (linux-rdma/rdma-core
v44.0: infiniband-diags/ibstat.c, libibverbs/examples/devinfo.c; read from the source, not
run on hardware). Pure functions, unit-tested; the records are proof records as the
validate role's report reads them (roles/validate/README.md, "Proof records").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# `CA 'mlx5_0'` (node types "CA", "Switch", "Router", "iWARP RNIC", "???" in ibstat.c)
_IBSTAT_CA = re.compile(r"^(?:CA|Switch|Router|iWARP RNIC|\?\?\?) '(?P<name>[^']+)'$")
_IBSTAT_PORT = re.compile(r"^Port (?P<port>\d+):$")
# `Rate: 200`, `Rate: 2.5` (1x SDR) or `Rate: 40 (FDR10)`
_RATE = re.compile(r"^(?P<rate>[0-9]+(?:\.[0-9]+)?)")
_NO_DEVICE = ("Failed to get IB devices list", "No IB devices found")


def _record(check: str, host: str, target: str, **fields: Any) -> dict[str, Any]:
    return {
        "check": check,
        "host": host,
        "target": target,
        "value": None,
        "unit": "",
        "threshold": None,
        "status": "info",
        "reason": "",
        **fields,
    }


def parse_ibv_devinfo(text: str) -> dict[str, dict[int, dict[str, str]]]:
    """`ibv_devinfo` -> {hca: {port: {state, active_mtu, sm_lid, port_lid, link_layer}}}.

    devinfo.c prints `hca_id:\\t<name>` at the margin, then `\\t\\tport:\\t<n>` and the
    port's `key:\\t\\t\\tvalue` lines; values keep their code (`PORT_ACTIVE (4)`,
    `4096 (5)`). Anything else (the device's own fields, warnings) is ignored."""
    hcas: dict[str, dict[int, dict[str, str]]] = {}
    hca: dict[int, dict[str, str]] | None = None
    port: dict[str, str] | None = None
    for line in text.splitlines():
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        value = value.strip()
        if key == "hca_id" and not line[:1].isspace():
            hca, port = hcas.setdefault(value, {}), None
        elif key == "port" and hca is not None and value.isdigit():
            port = hca.setdefault(int(value), {})
        elif port is not None and key in (
            "state",
            "active_mtu",
            "sm_lid",
            "port_lid",
            "link_layer",
            "phys_state",
        ):
            port[key] = value
    return hcas


def parse_ibstat(text: str) -> dict[str, dict[int, dict[str, str]]]:
    """`ibstat` -> {ca: {port: {state, physical_state, rate, base_lid, sm_lid, link_layer}}}.

    ibstat.c prints `CA 'mlx5_0'`, the CA's fields, then per port `\\tPort 1:` and
    `\\t\\tState: Active`, `Physical state: LinkUp`, `Rate: 200`, `Base lid: 28`,
    `SM lid: 1`, `Link layer: InfiniBand` (keys lower-cased, spaces as `_`)."""
    cas: dict[str, dict[int, dict[str, str]]] = {}
    ca: dict[int, dict[str, str]] | None = None
    port: dict[str, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        header = _IBSTAT_CA.match(stripped)
        if header and not line[:1].isspace():
            ca, port = cas.setdefault(header["name"], {}), None
            continue
        numbered = _IBSTAT_PORT.match(stripped)
        if numbered and ca is not None:
            port = ca.setdefault(int(numbered["port"]), {})
            continue
        key, sep, value = stripped.partition(":")
        if sep and port is not None:
            port[key.strip().lower().replace(" ", "_")] = value.strip()
    return cas


def rdma_infiniband_expected(hcas: Sequence[Any] | None) -> list[dict[str, Any]]:
    """The HCA ports to check, as {name, port}: items are dicts with `name` and an
    optional `port` (default 1; other keys, such as a site's netdev or address, are
    left out) or `mlx5_0:1` strings as NCCL_IB_HCA writes them."""
    expected = []
    for item in hcas or []:
        if isinstance(item, Mapping):
            name, port = item.get("name"), item.get("port", 1)
        else:
            name, _, port = str(item).partition(":")
        expected.append({"name": str(name), "port": int(port or 1)})
    return expected


def _number(value: str | None) -> float | None:
    match = _RATE.match(value or "")
    return float(match["rate"]) if match else None


def _plain(number: float) -> float | int:
    """200.0 as 200, 2.5 as 2.5: rates read as ibstat prints them."""
    return int(number) if float(number).is_integer() else number


def _lid(value: str | None) -> int | None:
    try:
        return int(str(value).strip(), 0)
    except ValueError:
        return None


def _first_line(result: Mapping[str, Any]) -> str:
    for key in ("stderr", "stdout", "msg"):
        lines = [line.strip() for line in str(result.get(key) or "").splitlines() if line.strip()]
        lines = [line for line in lines if not line.startswith("Warning: RLIMIT_MEMLOCK")]
        if lines:
            return lines[0]
    return f"exit {result.get('rc')}"


def _no_device(devinfo: Mapping[str, Any]) -> str:
    """What ibv_devinfo said when the host has no RDMA device at all, else ''."""
    text = f"{devinfo.get('stderr') or ''}\n{devinfo.get('stdout') or ''}"
    for line in text.splitlines():
        if line.strip().startswith(_NO_DEVICE):
            return line.strip()
    return ""


def _port_problems(
    devinfo: Mapping[str, str] | None, ibstat: Mapping[str, str] | None, min_rate: float
) -> list[str]:
    """Why one present port is not an HDR InfiniBand port brought up by a subnet manager."""
    problems: list[str] = []
    devinfo, ibstat = devinfo or {}, ibstat or {}
    state = ibstat.get("state") or devinfo.get("state", "?")
    if state not in ("Active",) and not state.startswith("PORT_ACTIVE"):
        problems.append(f"state {state}, not Active")
    if not ibstat:
        problems.append("ibstat does not show this port: physical state and rate unknown")
    else:
        physical = ibstat.get("physical_state", "?")
        if physical != "LinkUp":
            problems.append(f"physical state {physical}, not LinkUp")
        rate = _number(ibstat.get("rate"))
        if rate is None or rate < float(min_rate):
            problems.append(f"rate {ibstat.get('rate', '?')}, {min_rate:g} expected")
    layer = ibstat.get("link_layer") or devinfo.get("link_layer", "?")
    if layer != "InfiniBand":
        problems.append(f"link layer {layer}, not InfiniBand")
    sm_lid = _lid(ibstat.get("sm_lid", devinfo.get("sm_lid")))
    if not sm_lid:
        problems.append("SM lid 0: no subnet manager has swept this port")
    base_lid = _lid(ibstat.get("base_lid", devinfo.get("port_lid")))
    if not base_lid:
        problems.append("base lid 0: no LID assigned")
    return problems


def _port_summary(devinfo: Mapping[str, str] | None, ibstat: Mapping[str, str] | None) -> str:
    devinfo, ibstat = devinfo or {}, ibstat or {}
    state = ibstat.get("state", devinfo.get("state", "?"))
    layer = ibstat.get("link_layer", devinfo.get("link_layer", "?"))
    mtu = devinfo.get("active_mtu", "?").split(" ")[0]
    lid = ibstat.get("base_lid", devinfo.get("port_lid", "?"))
    sm_lid = ibstat.get("sm_lid", devinfo.get("sm_lid", "?"))
    physical = ibstat.get("physical_state", "?")
    return f"{state}, {physical}, {layer}, MTU {mtu}, base lid {lid}, SM lid {sm_lid}"


def rdma_infiniband_records(
    devinfo: Mapping[str, Any],
    ibstat: Mapping[str, Any],
    host: str,
    expected: Sequence[Any] | None,
    min_rate: float,
) -> list[dict[str, Any]]:
    """One record per HCA port to check, from the registered `ibv_devinfo` and `ibstat`.

    No RDMA device at all (ibv_devinfo exits 255 with `Failed to get IB devices list: ...`
    or `No IB devices found`, ibstat prints nothing: rdma-core v44.0's devinfo.c and
    ibstat.c): one record with that reason, skipped where no HCA is listed, failed where
    rdma_verify_hcas lists some (the server should have them). Otherwise every
    expected port (rdma_verify_hcas), or every InfiniBand-link-layer port found
    when none is listed; an expected port that is not there fails."""
    if devinfo.get("skipped") or ibstat.get("skipped"):
        return [
            _record(
                "infiniband", host, "HCA ports", status="skipped", reason="not run in check mode"
            )
        ]
    min_rate = _plain(float(min_rate))
    wanted = rdma_infiniband_expected(expected)
    devinfo_ports = parse_ibv_devinfo(str(devinfo.get("stdout") or ""))
    ibstat_ports = parse_ibstat(str(ibstat.get("stdout") or ""))
    no_device = _no_device(devinfo)
    if no_device and not ibstat_ports:
        reason = f"no RDMA device on this host (ibv_devinfo: {no_device})"
        if wanted:
            # HCAs the inventory says this server has, and none is seen: a card, its
            # driver or the RDMA modules are missing, which is a fault, not an absence
            reason += f"; {len(wanted)} HCA port(s) listed in rdma_verify_hcas"
            return [_record("infiniband", host, "HCA ports", status="failed", reason=reason)]
        return [_record("infiniband", host, "HCA ports", status="skipped", reason=reason)]
    if not devinfo_ports and not ibstat_ports:
        why = _first_line(devinfo)
        return [
            _record(
                "infiniband",
                host,
                "HCA ports",
                status="fail",
                reason=f"ibv_devinfo failed (exit {devinfo.get('rc')}): {why}",
            )
        ]
    found = {
        (name, port)
        for source in (devinfo_ports, ibstat_ports)
        for name, ports in source.items()
        for port in ports
    }

    def layer(key: tuple[str, int]) -> str:
        return ibstat_ports.get(key[0], {}).get(key[1], {}).get("link_layer") or (
            devinfo_ports.get(key[0], {}).get(key[1], {}).get("link_layer", "")
        )

    if wanted:
        targets = [(item["name"], item["port"]) for item in wanted]
    else:
        targets = sorted((key for key in found if layer(key) == "InfiniBand"), key=_natural)
        if not targets:
            others = ", ".join(f"{n}:{p} ({layer((n, p)) or '?'})" for n, p in sorted(found))
            return [
                _record(
                    "infiniband",
                    host,
                    "HCA ports",
                    status="skipped",
                    reason=f"no InfiniBand port; RDMA ports found: {others}",
                )
            ]
    records = []
    for name, port in targets:
        target = f"{name} port {port}"
        if (name, port) not in found:
            present = ", ".join(f"{n}:{p}" for n, p in sorted(found, key=_natural))
            records.append(
                _record(
                    "infiniband",
                    host,
                    target,
                    threshold=min_rate,
                    status="fail",
                    reason=f"not found on this host (RDMA ports: {present})",
                )
            )
            continue
        port_devinfo = devinfo_ports.get(name, {}).get(port)
        port_ibstat = ibstat_ports.get(name, {}).get(port)
        problems = _port_problems(port_devinfo, port_ibstat, min_rate)
        if port_ibstat is None and ibstat.get("rc") not in (0, None):
            problems.append(f"ibstat failed: {_first_line(ibstat)}")
        rate = _number((port_ibstat or {}).get("rate"))
        records.append(
            _record(
                "infiniband",
                host,
                target,
                value=None if rate is None else _plain(rate),
                unit="Gb/s link rate",
                threshold=min_rate,
                status="fail" if problems else "pass",
                reason="; ".join(problems) or _port_summary(port_devinfo, port_ibstat),
            )
        )
    return records


def _natural(key: tuple[str, int]) -> tuple[str, int, int]:
    """mlx5_2 before mlx5_10."""
    name, port = key
    digits = re.search(r"(\d+)$", name)
    return (name[: digits.start()] if digits else name, int(digits[1]) if digits else -1, port)


class FilterModule:
    """The rdma role's proof: its InfiniBand ports."""

    def filters(self) -> dict[str, Any]:
        return {
            "rdma_infiniband_expected": rdma_infiniband_expected,
            "rdma_infiniband_records": rdma_infiniband_records,
        }
