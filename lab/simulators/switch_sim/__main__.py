"""Command line of the switch simulator.

    python3 -m switch_sim --platform os10|eos|cumulus|mlnxos --listen 0.0.0.0:22 \
        --host-key /var/lib/switch-sim/host_key --state /var/lib/switch-sim/state.json \
        --users-file /run/secrets/switch-users [--hostname NAME] [--faults FILE] \
        [--cabling FILE] [--initial-config FILE] \
        [--api-listen 0.0.0.0:443 [--api-cert FILE --api-key FILE]] [--linux-host]

--api-listen serves the platform's HTTP API on the same switch state as the CLI (EOS:
Arista eAPI, over TLS with --api-cert/--api-key; MLNX-OS: the JSON API, in plain HTTP as
`web http enable` serves it, or over TLS; Cumulus Linux 5.x: NVUE's REST API under
/nvue_v1, over TLS, port 8765 on a real switch; a 4.x Cumulus switch has no API here and
the simulator refuses to start with one).

--cabling names a JSON file {"ports": [1, 2, 21, ...]}: the front-panel ports with a
cable; without it no port has one and every port is down, as on a switch out of the box.

--initial-config names a file of configuration lines applied once, on the first start
(no state file yet), and saved to startup: what an admin types at the console before the
switch is reachable over SSH (its management users and their authorization).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .https import APIServer
from .server import PLATFORMS, Switch, load_host_key, platform_model, read_users

# platform -> (module, function making its HTTP API's request handler from the switch's
# state, session class and users)
APIS = {
    "eos": ("eapi", "eapi_handler"),
    "mlnxos": ("mlnxos_json", "json_api_handler"),
    "cumulus": ("cumulus_nvue_api", "nvue_api_handler"),
}


def serve_api(switch: Switch, platform: str, listen: str, cert: str | None, key: str | None) -> int:
    """Start the platform's HTTP API in the background; returns the port it listens on.
    SystemExit where the platform (or this switch's release of it) has none."""
    if platform not in APIS:
        raise SystemExit(f"switch_sim: {platform} has no HTTP API (only {', '.join(APIS)})")
    module_name, function = APIS[platform]
    module = importlib.import_module(f"{__package__}.{module_name}")
    handler = getattr(module, function)(switch.state, switch.session_cls, switch.users)
    host, _, port = listen.rpartition(":")
    server = APIServer(handler, host, int(port), cert, key)
    server.start()
    return server.port


def serve_linux_host(switch: Switch, args: argparse.Namespace) -> int:
    """The Cumulus switch as a Linux host: the model behind the commands, sshd in front."""
    if args.platform != "cumulus":
        raise SystemExit(f"switch_sim: --linux-host is for cumulus, not {args.platform}")
    from .cumulus_host import LinuxHost

    host = LinuxHost(switch.state, switch.session_cls, switch.users)
    host.sync()
    host.provision_accounts()
    host.install_tools()
    host.serve()
    if args.api_listen:
        api_port = serve_api(switch, args.platform, args.api_listen, args.api_cert, args.api_key)
        scheme = "https" if args.api_cert else "http"
        print(f"switch_sim: cumulus API ({scheme}) on port {api_port}", flush=True)
    sshd = host.start_sshd(args.host_key, args.listen)
    print(
        f"switch_sim: cumulus {switch.state.running['hostname']} as a Linux host,"
        f" sshd on {args.listen}",
        flush=True,
    )
    return sshd.wait()


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
    parser.add_argument("--api-listen")
    parser.add_argument("--api-cert")
    parser.add_argument("--api-key")
    parser.add_argument("--linux-host", action="store_true")
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
    if args.linux_host:
        return serve_linux_host(switch, args)
    host, _, port = args.listen.rpartition(":")
    bound = switch.listen(host, int(port))
    print(f"switch_sim: {args.platform} {hostname} listening on {host}:{bound}", flush=True)
    if args.api_listen:
        api_port = serve_api(switch, args.platform, args.api_listen, args.api_cert, args.api_key)
        scheme = "https" if args.api_cert else "http"
        print(f"switch_sim: {args.platform} API ({scheme}) on port {api_port}", flush=True)
    switch.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
