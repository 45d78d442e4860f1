"""validate's inter-switch counters (seed 000 Appendix F tip 2) over a real SSH session.

roles/validate/tasks/inter_switch.yml, as the benchmark check runs it before and after the
papers' runs, against the EOS simulator (lab/simulators/switch_sim) in this process on an
ephemeral port, configured like the lab's 7060 (the port-channel on 31-32). A lab switch
forwards nothing, so the test plays the run's traffic through the simulator's fault file
between the two reads. The lab's benchmark (tests/lab/test_validate.py) reads its own 7060
container the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playbook import ROOT, local_host, run_playbook
from sim_lab import SimLab

PLAYBOOK = ROOT / "tests" / "unit" / "playbooks" / "inter_switch.yml"
PASSWORD = "lab-switch-pw"
PORTS = ["Ethernet31/1", "Ethernet32/1"]


class Site:
    """The simulated 7060 with its port-channel, a server and an inventory naming the
    switch's inter-switch ports."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.lab = SimLab(tmp_path, "eos", password=PASSWORD, hostname="lab-7060",
                          cabled=[1, 2, 31, 32])  # fmt: skip
        with self.lab.connect() as conn:
            conn.enable()
            conn.send_config_set([
                "interface Ethernet31/1", "channel-group 10 mode active",
                "interface Ethernet32/1", "channel-group 10 mode active",
            ])  # fmt: skip
        self.records = tmp_path / "records.json"

    def inventory(self, ports: list[str], **switch_vars) -> Path:
        switch = local_host(**{
            "switches_platform": "arista_eos",
            "switches_host": "127.0.0.1",
            "switches_port": self.lab.port,
            "switches_host_key_checking": False,
            "cluster_switch_username": "admin",
            "cluster_switch_password": PASSWORD,
            "switches_inter_switch_ports": ports,
            **switch_vars,
        })  # fmt: skip
        server = local_host()
        path = self.tmp_path / "inventory.yml"
        path.write_text(json.dumps({"all": {"children": {
            "switches": {"hosts": {"lab-7060": switch}},
            "compute": {"hosts": {"lab-compute-1": server, "lab-compute-2": server}},
        }}}))  # fmt: skip
        return path

    def run(self, traffic: dict, ports: list[str] = PORTS, **extra) -> tuple[int, str, list]:
        """Read, play `traffic` on the switch, read again: exit code, output, records."""
        switch_vars = extra.pop("switch_vars", {})
        variables = {
            "traffic": traffic,
            "faults_file": str(self.lab.faults),
            "records_file": str(self.records),
            **extra,
        }
        result = run_playbook(self.inventory(ports, **switch_vars), PLAYBOOK, variables)
        output = " ".join((result.stdout + result.stderr).split())
        records = json.loads(self.records.read_text()) if self.records.exists() else []
        return result.returncode, output, records


@pytest.fixture
def site(tmp_path):
    site = Site(tmp_path)
    site.lab.faults.write_text("{}")
    yield site
    site.lab.stop()


def _by_port(records: list) -> dict:
    assert {r["check"] for r in records} == {"inter_switch"}, records
    assert {r["host"] for r in records} == {"lab-7060"}, records
    return {r["target"]: r for r in records}


def test_a_run_that_keeps_off_the_inter_switch_links_records_nothing_crossing(site):
    rc, output, records = site.run({})
    assert rc == 0, output
    found = _by_port(records)
    assert list(found) == PORTS  # one record per port, once for the play's servers
    for record in found.values():
        assert record["value"] == 0 and record["status"] == "info", record
        assert record["unit"] == "packets during the runs" and record["threshold"] is None


def test_traffic_on_an_inter_switch_port_is_counted_and_fails_above_the_maximum(site):
    traffic = {"interface_counters": {
        "Ethernet31/1": {"inUcastPkts": 250000, "outUcastPkts": 240000, "inMulticastPkts": 10},
    }}  # fmt: skip
    rc, output, records = site.run(
        traffic,
        validate_thresholds={"inter_switch_packets_max": 1000},
        ports=[*PORTS, "Port-Channel10"],
    )
    assert rc == 0, output  # the role records; its report step fails the run on a failed record
    found = _by_port(records)
    assert found["Ethernet31/1"]["value"] == 490010
    assert found["Ethernet31/1"]["status"] == "fail" and found["Ethernet31/1"]["threshold"] == 1000
    assert found["Ethernet31/1"]["reason"].startswith("in 250010, out 240000")
    assert found["Ethernet32/1"]["value"] == 0 and found["Ethernet32/1"]["status"] == "pass"
    assert found["Port-Channel10"]["value"] == 490010  # the channel counts its members


def test_a_switch_that_cannot_be_read_fails_its_ports_with_the_reason(site):
    rc, output, records = site.run({}, switch_vars={"cluster_switch_password": "wrong"})
    assert rc == 0, output
    found = _by_port(records)
    for record in found.values():
        assert record["status"] == "fail", record
        assert record["reason"].startswith("counters not read: cannot open a session"), record


def test_a_port_the_switch_does_not_have_is_named(site):
    rc, output, records = site.run({}, ports=["Ethernet31/1", "Port-Channel99"])
    assert rc == 0, output
    found = _by_port(records)
    assert "the switch has no interface Port-Channel99" in found["Port-Channel99"]["reason"]
