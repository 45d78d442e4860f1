"""The monitoring role's decisions: what preflight refuses, the plan (which host is the
monitoring server, the hosts it watches and what Prometheus scrapes on each), the files
host_state compares.

Pure functions, unit-tested (tests/unit/test_monitoring.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

# Each exporter: the scrape job's name, the port variable, and which hosts run it.
JOBS = ("node", "gpu", "slurm")
# The variable that holds each scrape job's port, in prometheus.yml's order: the
# monitoring host's own Prometheus and Alertmanager, the watched hosts' exporters, then
# dlcluster's OneFS exporter beside Prometheus.
PORTS = {
    "prometheus": "monitoring_prometheus_port",
    "alertmanager": "monitoring_alertmanager_port",
    "node": "monitoring_node_exporter_port",
    "gpu": "monitoring_gpu_exporter_port",
    "slurm": "monitoring_slurm_exporter_port",
    "onefs": "monitoring_onefs_exporter_port",
}


def _host_port(address: str) -> str:
    """An address as a `host:port` target takes it: an IPv6 address in brackets (the
    Prometheus documentation, Configuration, placeholder `<host>`: "a valid string
    consisting of a hostname or IP followed by an optional port number";
    https://prometheus.io/docs/prometheus/latest/configuration/configuration/)."""
    return f"[{address}]" if ":" in address else address


def monitoring_listen_of(host_vars: Mapping[str, Any]) -> str:
    """The address a host's exporters listen on, as the role's default gives it: its own
    monitoring_listen_address, else its cluster_data_address."""
    return str(
        host_vars.get("monitoring_listen_address") or host_vars.get("cluster_data_address") or ""
    )


def monitoring_problems(settings: Mapping[str, Any]) -> list[str]:
    """The monitoring settings a run could not use: refused in preflight, before any
    change. `settings`: monitoring_hosts, slurm_host, inventory_hosts,
    scrape_interval, retention_days, receivers, smtp_smarthost, smtp_from,
    listen_addresses ({watched host: address}), onefs_addresses, onefs_user,
    onefs_password_set."""
    problems: list[str] = []
    inventory = set(settings.get("inventory_hosts") or [])
    slurm_host = settings.get("slurm_host")
    if slurm_host and slurm_host not in inventory:
        problems.append(
            f"monitoring: monitoring_slurm_host {slurm_host!r} is not a host of the inventory"
            " (the Slurm controller's host, whose exporter Prometheus scrapes)"
        )
    if not settings.get("monitoring_hosts"):
        return problems  # no monitoring group: the layer is skipped, nothing else is used
    for host, address in sorted((settings.get("listen_addresses") or {}).items()):
        try:
            ipaddress.ip_address(str(address))
        except ValueError:
            problems.append(
                f"monitoring: {host} has no address to listen on ({address!r}): set"
                " monitoring_listen_address or cluster_data_address"
            )
    try:
        interval = int(settings.get("scrape_interval"))
        retention = int(settings.get("retention_days")) * 86400
    except (TypeError, ValueError):
        pass  # the role contract names a value that is not a number
    else:
        if interval > retention:
            problems.append(
                f"monitoring: monitoring_scrape_interval {interval} s is longer than the"
                f" retention ({settings.get('retention_days')} days): nothing would be kept"
                " between two scrapes"
            )
    problems += _onefs_problems(settings)
    names = []
    for receiver in settings.get("receivers") or []:
        name = receiver.get("name")
        names.append(name)
        if not receiver.get("email") and not receiver.get("webhook_url"):
            problems.append(
                f"monitoring: alert receiver {name!r} has no address (email or webhook_url):"
                " its alerts would go nowhere"
            )
        if receiver.get("email") and not (
            settings.get("smtp_smarthost") and settings.get("smtp_from")
        ):
            problems.append(
                f"monitoring: alert receiver {name!r} sends email, but monitoring_smtp_smarthost"
                " or monitoring_smtp_from is empty"
            )
    for name in sorted({n for n in names if names.count(n) > 1}, key=str):
        problems.append(f"monitoring: alert receiver {name!r} is listed twice")
    return problems


def _onefs_problems(settings: Mapping[str, Any]) -> list[str]:
    """A watched Isilon cluster needs an account to read with (each address's form and the
    threshold's bounds are the role contract's: preflight_contracts.py)."""
    if settings.get("onefs_addresses") and not (
        settings.get("onefs_user") and settings.get("onefs_password_set")
    ):
        return [
            "monitoring: the Isilon cluster is watched (monitoring_onefs_addresses) but"
            " monitoring_onefs_user or monitoring_onefs_password is empty"
        ]
    return []


def monitoring_targets(
    watched: Sequence[str],
    hostvars: Mapping[str, Mapping[str, Any]],
    gpu_hosts: Sequence[str],
    slurm_host: str,
    ports: Mapping[str, Any],
) -> dict[str, list[dict[str, str]]]:
    """Prometheus' scrape targets by job: `node` on every watched host, `gpu` on the GPU
    servers among them, `slurm` on the Slurm host; each `{instance, address}`, the
    instance named as the inventory names the host."""
    targets: dict[str, list[dict[str, str]]] = {job: [] for job in JOBS}
    for host in watched:
        literal = _host_port(monitoring_listen_of(hostvars[host]))
        jobs = ["node"] + (["gpu"] if host in gpu_hosts else [])
        jobs += ["slurm"] if host == slurm_host else []
        for job in jobs:
            targets[job].append({"instance": host, "address": f"{literal}:{int(ports[job])}"})
    return targets


def monitoring_watched(
    groups: Mapping[str, Sequence[str]], server_groups: Sequence[str], monitoring_group: str
) -> list[str]:
    """The watched hosts, in inventory order, each once: the hosts of the server groups
    (a group the inventory lacks has none), then the monitoring group's."""
    hosts = [host for group in server_groups for host in groups.get(group) or []]
    hosts += list(groups.get(monitoring_group) or [])
    return list(dict.fromkeys(hosts))


def _setting(host_vars: Mapping[str, Any], defaults: Mapping[str, Any], name: str) -> Any:
    """A role variable as a host sees it: its inventory's value, else the role's default
    (a host's variables, Ansible's hostvars, hold no role default)."""
    return host_vars.get(name, defaults.get(name))


def monitoring_plan(
    settings: Mapping[str, Any], hostvars: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The monitoring host's view of the cluster, from the inventory alone: published as
    the fact monitoring_plan on the monitoring host (roles/monitoring/README.md, "The
    plan"), whose Prometheus, Alertmanager and OneFS exporter settings are made from it.

    settings: server (the monitoring host, '' for none), monitoring_group, groups (the
    inventory's), gpu_hosts (the GPU servers), defaults (the role's default of each
    variable read here, by name). Each host's own variables (hostvars) say where it
    listens and on which ports (monitoring_listen_address, else cluster_data_address;
    the monitoring_*_port), as its exporters do; the monitoring host's say which groups
    are watched (monitoring_server_groups), which host's Slurm is read
    (monitoring_slurm_host) and which Isilon cluster (monitoring_onefs_addresses,
    monitoring_onefs_api_port). Holds no secret: the OneFS account stays out.

    Returns server, watched (the watched hosts, in inventory order), slurm_host,
    scrape_jobs (prometheus.yml's scrape_configs in order, each job_name with its
    targets, each `{instance, address}`, the instance named as the inventory names the
    host, the Prometheus documentation's "Jobs and instances",
    https://prometheus.io/docs/concepts/jobs_instances/; a job without target is left
    out), listen (the `host:port` the monitoring host's prometheus, alertmanager
    and onefs exporter listen on, which are their targets; onefs '' where no Isilon
    cluster is watched), url (where Prometheus answers) and onefs_urls (the OneFS
    Platform API's base URLs, tried in turn).
    """
    server = str(settings.get("server") or "")
    defaults = settings.get("defaults") or {}
    if not server:
        return {
            "server": "",
            "watched": [],
            "slurm_host": "",
            "scrape_jobs": [],
            "listen": {"prometheus": "", "alertmanager": "", "onefs": ""},
            "url": "",
            "onefs_urls": [],
        }
    own = hostvars[server]
    watched = monitoring_watched(
        settings.get("groups") or {},
        _setting(own, defaults, "monitoring_server_groups") or [],
        str(settings.get("monitoring_group") or ""),
    )
    slurm_host = str(_setting(own, defaults, "monitoring_slurm_host") or "")
    gpu_hosts = list(settings.get("gpu_hosts") or [])
    targets: dict[str, list[dict[str, str]]] = {job: [] for job in PORTS}
    for host in watched:
        ports = {job: int(_setting(hostvars[host], defaults, PORTS[job])) for job in JOBS}
        for job, found in monitoring_targets(
            [host], {host: hostvars[host]}, gpu_hosts, slurm_host, ports
        ).items():
            targets[job] += found
    literal = _host_port(monitoring_listen_of(own))
    api_port = int(_setting(own, defaults, "monitoring_onefs_api_port"))
    onefs_urls = [
        f"https://{_host_port(str(address))}:{api_port}"
        for address in _setting(own, defaults, "monitoring_onefs_addresses") or []
    ]
    listen = {
        job: f"{literal}:{int(_setting(own, defaults, PORTS[job]))}"
        for job in ("prometheus", "alertmanager", "onefs")
    }
    if not onefs_urls:
        listen["onefs"] = ""
    for job in listen:
        if listen[job]:
            targets[job] = [{"instance": server, "address": listen[job]}]
    return {
        "server": server,
        "watched": watched,
        "slurm_host": slurm_host,
        "scrape_jobs": [
            {"job_name": job, "targets": found} for job, found in targets.items() if found
        ],
        "listen": listen,
        "url": f"http://{listen['prometheus']}",
        "onefs_urls": onefs_urls,
    }


def monitoring_host_state_files(files: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The role's files as host_state compares them: a template rendered, a role file
    copied, root's, with its mode; a secret (the OneFS exporter's password file) by the
    checksum of its rendering, so that its content never leaves the controller."""
    entries = []
    for item in files:
        entry: dict[str, Any] = {
            "path": item["dest"],
            "owner": "root",
            "group": "root",
            "mode": str(item.get("mode") or "0644"),
        }
        if item.get("secret"):
            entry["checksum"] = item["checksum"]
        elif "src" in item:
            entry["template"] = item["src"]
        else:
            entry["source"] = item["file"]
        entries.append(entry)
    return entries


def monitoring_host_state_services(
    files: Sequence[Mapping[str, Any]], exporter: str
) -> list[dict[str, Any]]:
    """The host's monitoring services as host_state compares them: running, enabled, and
    started after the last change of the files each reads (its own, and dlcluster's
    exporter program for dlcluster's exporters), so that a restart a run lost is found."""
    services: dict[str, list[str]] = {}
    for item in files:
        if item.get("service"):
            services.setdefault(item["service"], []).append(item["dest"])
    return [
        {
            "name": name,
            "state": "started",
            "enabled": True,
            "reads": reads + ([exporter] if name.startswith("dlcluster-") else []),
        }
        for name, reads in services.items()
    ]


class FilterModule:
    """The monitoring role's decisions."""

    def filters(self) -> dict[str, Any]:
        return {
            "monitoring_listen_of": monitoring_listen_of,
            "monitoring_problems": monitoring_problems,
            "monitoring_targets": monitoring_targets,
            "monitoring_watched": monitoring_watched,
            "monitoring_plan": monitoring_plan,
            "monitoring_host_state_files": monitoring_host_state_files,
            "monitoring_host_state_services": monitoring_host_state_services,
        }
