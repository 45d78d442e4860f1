"""Command line of the switch simulator.

    python3 -m switch_sim --platform os10|eos|cumulus|mlnxos --listen 0.0.0.0:22 \
        --host-key /var/lib/switch-sim/host_key --state /var/lib/switch-sim/state.json \
        --users-file /run/secrets/switch-users [--hostname NAME] [--faults FILE] \
        [--cabling FILE] [--initial-config FILE]

--cabling names a JSON file {"ports": [1, 2, 21, ...]}: the front-panel ports with a
cable; without it no port has one and every port is down, as on a switch out of the box.

--initial-config names a file of configuration lines applied once, on the first start
(no state file yet), and saved to startup: what an admin types at the console before the
switch is reachable over SSH (its management users and their authorization).
"""

from __future__ import annotations

import argparse
import sys

from .server import PLATFORMS, Switch, load_host_key, platform_model, read_users


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="switch_sim")
    parser.add_argument("--platform", choices=sorted(PLATFORMS), required=True)
    parser.add_argument("--listen", default="0.0.0.0:22")
    parser.add_argument("--host-key", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--users-file", required=True)
    parser.add_argument("--hostname")
    parser.add_argument("--faults")
    parser.add_argument("--cabling")
    parser.add_argument("--initial-config")
    args = parser.parse_args(argv)
    hostname = args.hostname or platform_model(args.platform)[1].DEFAULT_HOSTNAME
    switch = Switch(
        args.platform,
        args.state,
        read_users(args.users_file),
        load_host_key(args.host_key),
        hostname,
        args.faults,
        args.cabling,
        initial_config_path=args.initial_config,
    )
    host, _, port = args.listen.rpartition(":")
    bound = switch.listen(host, int(port))
    print(f"switch_sim: {args.platform} {hostname} listening on {host}:{bound}", flush=True)
    switch.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
