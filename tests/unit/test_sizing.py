"""Storage sizing (filter_plugins/validate_sizing.py) against the papers' worked examples."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "filter_plugins" / "validate_sizing.py"
_SPEC = importlib.util.spec_from_file_location("sizing", _PATH)
sizing = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sizing)


def test_80_gpus_resnet50_training_need_7200_mbps_and_2_9_f800_nodes():
    # DSS 8440 paper: "80 * 90 = 7200 MB/sec which can be handled by 2.9 Isilon F800 nodes"
    result = sizing.storage_sizing(80, "resnet50_training")
    assert result["required_mbps"] == 7200
    assert result["nodes"]["F800"]["exact"] == pytest.approx(2.96, abs=0.01)
    assert int(result["nodes"]["F800"]["exact"] * 10) / 10 == 2.9
    assert result["nodes"]["F800"]["minimum"] == 3


def test_72_gpus_inception_v4_need_21600_mbps_and_eight_f800_nodes():
    # both papers: "72 * 300 = 21,600 MB/sec which can be handled by eight Isilon nodes"
    result = sizing.storage_sizing(72, "inception4_training_large")
    assert result["required_mbps"] == 21600
    assert result["nodes"]["F800"] == {"exact": 8.0, "minimum": 8, "gpus_per_node": 9}
    assert result["nodes"]["H500"]["minimum"] == 36


def test_dgx_a100_one_f800_node_per_eight_gpus():
    # DGX A100 paper: four DGX A100 (32 GPUs) served by one F800 chassis of four nodes
    result = sizing.storage_sizing(32, "a100_mlperf_resnet50")
    assert result["nodes"]["F800"]["minimum"] == 4


def test_inference_table_row():
    result = sizing.storage_sizing(20, "resnet50_inference")
    assert result["required_mbps"] == 3200
    assert result["nodes"]["F800"]["minimum"] == 1
    assert result["nodes"]["H500"]["minimum"] == 4


@pytest.mark.parametrize(("gpus", "workload"), [(-1, "resnet50_training"), (8, "bert")])
def test_bad_input_is_refused(gpus, workload):
    with pytest.raises(Exception, match=r"GPU count|unknown workload"):
        sizing.storage_sizing(gpus, workload)
