#!/usr/bin/env python3
"""Write the validation report: Markdown tables per check, a throughput bar chart, and
the servers' series during the benchmark (benchmark.png, from Prometheus).

Runs on the control host with Ansible's own Python (matplotlib is in requirements.txt):
    validate_report.py results.json OUTPUT_DIR
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

TITLES = {
    "mtu": "Data network: full-MTU reachability",
    "mpi": "MPI across the NGC containers",
    "gpus": "GPUs",
    "infiniband": "InfiniBand HCA ports (ibstat, ibv_devinfo)",
    "nccl": "NCCL all-reduce across the servers (nccl-tests)",
    "slurm": "Slurm: partitions, nodes, GPUs and a test job",
    "apptainer": "Apptainer on the servers",
    "iperf3": "Network throughput (iperf3)",
    "iperf2": "Network throughput from the Isilon nodes (iperf 2, seed 000 Appendix D)",
    "fio": "Storage: the papers' fio job",
    "reader": "Storage: reader per mount",
    "sizing": "Sizing guidance (the papers' tables)",
    "benchmark": "The papers' benchmark launch, next to the paper's figure",
    "benchmark_series": "The servers during the benchmark (Prometheus)",
    "inter_switch": "Inter-switch links during the benchmark (packet counters before and after)",
    "portal": "The data scientist portal in a browser (seed 004 §5)",
}


def markdown(data: dict) -> str:
    by_check = defaultdict(list)
    for record in data["results"]:
        by_check[record["check"]].append(record)
    counts = defaultdict(int)
    for record in data["results"]:
        counts[record["status"]] += 1
    lines = [
        f"# Validation report: {data['cluster']}",
        "",
        "Result: "
        + ", ".join(f"{counts[s]} {s}" for s in ("pass", "fail", "skipped", "info") if counts[s]),
        "",
    ]
    if (Path(sys.argv[2]) / "throughput.png").exists():
        lines += ["![throughput per pair and mount](throughput.png)", ""]
    for check, records in by_check.items():
        lines += [f"## {TITLES.get(check, check)}", ""]
        lines += [
            "| host | target | value | threshold | status | note |",
            "|---|---|---|---|---|---|",
        ]
        for r in records:
            value = "" if r.get("value") is None else f"{r['value']} {r.get('unit', '')}".strip()
            threshold = "" if r.get("threshold") is None else str(r["threshold"])
            status = {"fail": "**FAIL**"}.get(r["status"], r["status"])
            note = (r.get("reason") or "").replace("|", "/")
            lines.append(
                f"| {r['host']} | {r['target']} | {value} | {threshold} | {status} | {note} |"
            )
        lines.append("")
        if check == "benchmark_series" and (Path(sys.argv[2]) / "benchmark.png").exists():
            lines += ["![the servers during the benchmark](benchmark.png)", ""]
        # Screenshots a check took, one per record, in order: linked relative to the report
        # where they lie under it (the proof's records name them by their full path).
        for r in records:
            if r.get("screenshot"):
                lines += [f"![{r['target']}]({_link(r['screenshot'])})", ""]
    return "\n".join(lines)


def _link(path: str) -> str:
    """A file's path as the report links it: relative to the report's folder when the
    file lies under it, else as given."""
    report_dir = Path(sys.argv[2]).resolve()
    try:
        return str(Path(path).resolve().relative_to(report_dir))
    except ValueError:
        return path


# One panel per unit, so network (Gbit/s) and storage (MB/s) bars never share an axis;
# checks whose unit is not listed here are not plotted.
PANELS = {
    "Gbit/s": "Network throughput per pair (Gbit/s)",
    "MB/s": "Storage throughput per mount (MB/s)",
    "images/s": "Training throughput per run (images/s)",
}


def panels(data: dict) -> dict[str, list[dict]]:
    """The numeric results of each plotted unit, in report order."""
    grouped: dict[str, list[dict]] = {unit: [] for unit in PANELS}
    for record in data["results"]:
        if record.get("unit") in PANELS and isinstance(record.get("value"), int | float):
            grouped[record["unit"]].append(record)
    return {unit: rows for unit, rows in grouped.items() if rows}


def plot(data: dict, out: Path) -> bool:
    grouped = panels(data)
    if not grouped:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    widest = max(len(rows) for rows in grouped.values())
    fig, axes = plt.subplots(
        len(grouped), 1, figsize=(max(6, widest * 1.1), 4.2 * len(grouped)), squeeze=False
    )
    for ax, (unit, rows) in zip(axes[:, 0], grouped.items(), strict=True):
        labels = [f"{r['check']}\n{r['host']}\n{r['target']}" for r in rows]
        colors = ["#c0392b" if r["status"] == "fail" else "#2e86c1" for r in rows]
        ax.bar(range(len(rows)), [r["value"] for r in rows], color=colors)
        for index, record in enumerate(rows):  # each bar's own threshold, as a black tick
            if isinstance(record.get("threshold"), int | float):
                ax.hlines(record["threshold"], index - 0.4, index + 0.4, colors="black")
        ax.set_xticks(range(len(rows)), labels, fontsize=6, rotation=60, ha="right")
        ax.set_ylabel(unit)
        ax.set_title(PANELS[unit])
    fig.suptitle(f"{data['cluster']}: red bars are below their threshold (black tick)")
    fig.tight_layout()
    fig.savefig(out / "throughput.png", dpi=110)
    plt.close(fig)
    return True


def plot_series(data: dict, out: Path) -> bool:
    """benchmark.png: one panel per series of the benchmark's window (GPU, CPU, memory,
    network), a line per server, time in seconds from the window's start."""
    records = [r for r in data["results"] if r["check"] == "benchmark_series" and r.get("series")]
    if not records:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = min(p[0] for r in records for points in r["series"].values() for p in points[:1])
    fig, axes = plt.subplots(len(records), 1, figsize=(9, 2.6 * len(records)), squeeze=False)
    for ax, record in zip(axes[:, 0], records, strict=True):
        for instance, points in sorted(record["series"].items()):
            ax.plot([p[0] - start for p in points], [p[1] for p in points], label=instance)
        ax.set_title(record["target"], fontsize=9)
        ax.set_ylabel(record.get("unit", ""))
        ax.legend(fontsize=6, loc="upper left")
    axes[-1, 0].set_xlabel("seconds from a minute before the first run")
    fig.suptitle(f"{data['cluster']}: the servers during the benchmark")
    fig.tight_layout()
    fig.savefig(out / "benchmark.png", dpi=100)
    plt.close(fig)
    return True


def main() -> int:
    data = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    plot(data, out)
    plot_series(data, out)
    (out / "report.md").write_text(markdown(data) + "\n")
    print(out / "report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
