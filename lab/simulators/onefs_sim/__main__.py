"""Command line of the OneFS simulator.

    python3 -m onefs_sim serve --listen 0.0.0.0:8080 --cert PEM --key PEM \
        --state /ifs/.ifsvar/onefs_sim/state.json --ifs-root /ifs \
        --cluster-config lab-cluster.json --lnn 1 --users-file /etc/onefs-sim/users
    python3 -m onefs_sim isi get -D /ifs/data/file

`serve --stats-interval S` (default 5): how often the node samples its statistics
(statistics.py) into stats/node<LNN>.json beside the state.

The isi form reads ONEFS_SIM_STATE, ONEFS_SIM_IFS_ROOT and ONEFS_SIM_CLUSTER_CONFIG.
The cluster config names the OneFS release (lab-cluster.json: 9.10.0.0, API 21;
lab-cluster-9.1.json: 9.1.0.0, API 11) and how long jobs run ("job_engine":
base_seconds + seconds_per_file per file visited); ONEFS_SIM_JOB_SECONDS and
ONEFS_SIM_JOB_SECONDS_PER_FILE override the latter in either form.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import api, isi, model, statistics


def main(argv: list[str]) -> int:
    if argv[:1] == ["isi"]:
        store = model.Store(
            os.environ.get("ONEFS_SIM_STATE", "/ifs/.ifsvar/onefs_sim/state.json"),
            os.environ.get(
                "ONEFS_SIM_CLUSTER_CONFIG",
                os.path.join(os.path.dirname(__file__), "lab-cluster.json"),
            ),
        )
        return isi.main(argv[1:], store, os.environ.get("ONEFS_SIM_IFS_ROOT", "/ifs"))
    parser = argparse.ArgumentParser(prog="onefs_sim")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the Platform API")
    serve.add_argument("--listen", default="0.0.0.0:8080")
    serve.add_argument("--cert")
    serve.add_argument("--key")
    serve.add_argument("--state", required=True)
    serve.add_argument("--ifs-root", required=True)
    serve.add_argument("--cluster-config", required=True)
    serve.add_argument("--lnn", type=int, default=1)
    serve.add_argument("--users-file", required=True)
    serve.add_argument(
        "--stats-interval", type=float, default=statistics.DEFAULT_INTERVAL,
        help="seconds between this node's statistics samples (0: none)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    host, _, port = args.listen.rpartition(":")
    store = model.Store(args.state, args.cluster_config)
    with store.transaction(write=True):
        pass  # create the state from the cluster config on first start
    server = api.serve(
        (host, int(port)), store, api.read_users(args.users_file), args.ifs_root, args.lnn,
        args.cert, args.key, args.stats_interval or None,
    )  # fmt: skip
    release = store.config["onefs_release"]
    print(
        f"onefs_sim: node {args.lnn} serving the Platform API of OneFS {release} on {args.listen}",
        flush=True,
    )
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
