"""Every further target (``facts/data/targets.json``) plans every bundled model end to end.

``check``'s default space walks the simulated targets only, so this is where the further
targets meet every model: resolution, the preflight verdict and the memory plan, at tp 1 and
across the node, must each answer (a plan, SGLang's refusal or bad input) and never crash.
What SGLang answers on these GPUs is the parity suite ``targets`` (tests/parity).
"""

from __future__ import annotations

import pytest

from launchplan.checks.preflight import preflight
from launchplan.errors import InputError, Refusal
from launchplan.facts.models import bundled_models
from launchplan.facts.targets import CATALOG, SIMULATED
from launchplan.memory.plan import memory_plan
from launchplan.planner import resolve

FURTHER = [name for name in CATALOG if name not in SIMULATED]
VERDICTS = {"starts", "fails-at-start", "runtime-error", "refused"}


@pytest.mark.parametrize("gpu", FURTHER)
def test_every_bundled_model_plans_on_the_target(gpu):
    target = CATALOG[gpu]
    planned = 0
    for model in bundled_models():
        node = [["--tp-size", str(target.gpu_count)]] if target.gpu_count > 1 else []
        for argv in ([], *node):
            try:
                result = resolve(argv, gpu=gpu, model_path=model)
            except (Refusal, InputError):
                continue
            assert result.record.target is target
            assert preflight(result).verdict in VERDICTS
            plan = memory_plan(result)
            assert plan is not None and plan.gpu_bytes == target.memory_mib << 20
            planned += 1
    assert planned >= len(bundled_models())


def test_small_cards_take_sglangs_small_memory_tier():
    """24 GB cards take the 4k chunk and a 48-request decode graph, 48 GB ones a 32-request
    graph (160 from tp 4), the 96 GB parts the large defaults."""
    def graph(gpu: str, tp: int = 1) -> tuple[int, int]:
        result = resolve(["--tp-size", str(tp)], gpu=gpu, model_path="llama-3.1-8b")
        return (result.value("chunked_prefill_size"),
                result.value("cuda_graph_config")["decode"]["max_bs"])

    assert graph("rtx4090") == graph("a10g") == graph("l4") == (4096, 48)
    assert graph("l40s") == graph("a100-40gb") == (4096, 32)
    assert graph("l40s", tp=4) == (4096, 160)
    assert graph("h20") == graph("rtx-pro-6000") == (8192, 256)
