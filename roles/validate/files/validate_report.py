#!/usr/bin/env python3
"""Write the validation report: Markdown tables per check and a throughput bar chart.

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
    "iperf3": "Network throughput (iperf3)",
    "fio": "Storage: the papers' fio job",
    "reader": "Storage: reader per mount",
    "sizing": "Sizing guidance (the papers' tables)",
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
    return "\n".join(lines)


def plot(data: dict, out: Path) -> bool:
    rows = [
        r
        for r in data["results"]
        if r["check"] in ("iperf3", "reader", "fio") and isinstance(r.get("value"), (int, float))
    ]
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['check']}\n{r['host']}\n{r['target']}" for r in rows]
    values = [r["value"] for r in rows]
    colors = ["#c0392b" if r["status"] == "fail" else "#2e86c1" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 1.1), 4.5))
    ax.bar(range(len(rows)), values, color=colors)
    ax.set_xticks(range(len(rows)), labels, fontsize=6, rotation=60, ha="right")
    ax.set_ylabel("MB/s (storage), Gbit/s (iperf3)")
    ax.set_title(f"Throughput per pair and mount: {data['cluster']} (red: below threshold)")
    fig.tight_layout()
    fig.savefig(out / "throughput.png", dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    data = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    plot(data, out)
    (out / "report.md").write_text(markdown(data) + "\n")
    print(out / "report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
