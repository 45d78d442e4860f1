"""Storage sizing from the papers' tables: how much Isilon throughput a GPU cluster needs.

The DSS 8440 and DGX-1 papers measured MB/s per V100 GPU for three workloads and how
many GPUs one Isilon node serves (F800 all-flash, H500 hybrid); the DGX A100 paper
measured one F800 node per eight A100 GPUs (MLPerf ResNet-50: four F800 nodes served
18,924 MB/s to four DGX A100, about 591 MB/s per GPU). Node counts come from the
GPUs-per-node ratios, exactly as the papers' worked examples do.
"""

from __future__ import annotations

import math
from typing import Any

try:
    from ansible.errors import AnsibleFilterError
except ImportError:  # pragma: no cover - usable without Ansible too
    AnsibleFilterError = ValueError  # type: ignore[misc,assignment]

WORKLOADS: dict[str, dict[str, Any]] = {
    "resnet50_training": {
        "description": "Training, small images, ResNet-50 (V100)",
        "mbps_per_gpu": 90,
        "gpus_per_node": {"F800": 27, "H500": 7},
    },
    "resnet50_inference": {
        "description": "Inference, small images, ResNet-50 (V100)",
        "mbps_per_gpu": 160,
        "gpus_per_node": {"F800": 20, "H500": 5},
    },
    "inception4_training_large": {
        "description": "Training, large images, Inception-v4 (V100)",
        "mbps_per_gpu": 300,
        "gpus_per_node": {"F800": 9, "H500": 2},
    },
    "a100_mlperf_resnet50": {
        "description": "MLPerf ResNet-50 training (A100, DGX A100 paper)",
        "mbps_per_gpu": 591,
        "gpus_per_node": {"F800": 8},
    },
}


def storage_sizing(gpus: int, workload: str = "resnet50_training") -> dict[str, Any]:
    """Throughput needed by `gpus` GPUs running `workload`, and the Isilon nodes serving it.

    Returns {workload, description, gpus, mbps_per_gpu, required_mbps, nodes: {F800:
    {exact, minimum}, H500: ...}}; `exact` is the papers' figure (2.96 for 80 ResNet-50
    GPUs, which the DSS 8440 paper quotes as 2.9), `minimum` the whole nodes to buy.
    """
    if workload not in WORKLOADS:
        raise AnsibleFilterError(
            f"unknown workload {workload!r}; known: {', '.join(sorted(WORKLOADS))}"
        )
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
        raise AnsibleFilterError(f"the GPU count must be a whole number >= 0, got {gpus!r}")
    table = WORKLOADS[workload]
    nodes = {
        model: {
            "exact": round(gpus / per_node, 2),
            "minimum": math.ceil(gpus / per_node) if gpus else 0,
            "gpus_per_node": per_node,
        }
        for model, per_node in table["gpus_per_node"].items()
    }
    return {
        "workload": workload,
        "description": table["description"],
        "gpus": gpus,
        "mbps_per_gpu": table["mbps_per_gpu"],
        "required_mbps": gpus * table["mbps_per_gpu"],
        "nodes": nodes,
    }


class FilterModule:
    """Storage sizing."""

    def filters(self) -> dict[str, Any]:
        return {"storage_sizing": storage_sizing}
