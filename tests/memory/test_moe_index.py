"""A compressed-tensors WNA16 MoE's index buffers, where SGLang leaves them on the GPU.

SGLang 0.5.23's ``CompressedTensorsWNA16MoE.create_weights`` allocates, per routed-expert
stack, ``w13_weight_g_idx`` and ``w13_g_idx_sort_indices`` (int32, one per input column of
w13: the hidden size) and ``w2_weight_g_idx`` and ``w2_g_idx_sort_indices`` (one per input
column of w2: the MoE-TP slice of the intermediate size). The Marlin path replaces them with
empty tensors after loading; the Triton path (``CompressedTensorsWNA16TritonMoE``: ROCm,
``--moe-runner-backend triton``, Blackwell's auto for symmetric int4 by 32 or 128) keeps
them. Kimi-K2.5 (INT4 experts by 32): 384 experts, hidden 7168, intermediate 2048, 60 MoE
layers.
"""

from __future__ import annotations

from launchplan.memory.weights import weight_bytes, weights_per_gpu
from launchplan.planner import resolve

KIMI = "moonshotai/Kimi-K2.5"
EXPERTS, HIDDEN, INTER, MOE_LAYERS = 384, 7168, 2048, 60


def index_bytes(argv: list[str], gpu: str) -> int:
    result = resolve(argv, gpu=gpu, model_path=KIMI)
    plan = weights_per_gpu(result)
    assert weight_bytes(result)[0] == plan.bytes_per_gpu  # both sums count them alike
    return plan.breakdown.get("moe_index", 0)


def test_rocm_keeps_the_index_buffers_w13_whole_w2_split():
    """tp 8 on an MI355X: every expert on every GPU, w13's index over the whole hidden size,
    w2's over the GPU's eighth of the intermediate size."""
    per_layer = EXPERTS * (2 * HIDDEN + 2 * INTER // 8) * 4
    assert index_bytes(["--tp-size", "8"], "mi355x") == MOE_LAYERS * per_layer


def test_expert_parallel_keeps_the_local_experts_buffers():
    per_layer = EXPERTS // 8 * (2 * HIDDEN + 2 * INTER) * 4
    assert index_bytes(["--tp-size", "8", "--ep-size", "8"], "mi355x") == \
        MOE_LAYERS * per_layer


def test_marlin_and_mxint4_paths_free_them():
    """An H100's Marlin path empties them after loading, and a B200 under flashinfer_trtllm
    loads the group-32 INT4 experts with the MXINT4 method; asking for the Triton runner on
    the H100 keeps them."""
    assert index_bytes(["--tp-size", "8"], "h100") == 0
    assert index_bytes(["--tp-size", "8"], "b200") == 0
    triton = index_bytes(["--tp-size", "8", "--moe-runner-backend", "triton"], "h100")
    assert triton == MOE_LAYERS * EXPERTS * (2 * HIDDEN + 2 * INTER // 8) * 4


def test_index_buffers_are_not_part_of_the_checkpoint():
    """Made at load: the checkpoint's count and size are the same whichever path loads it,
    and the GPU's bytes differ by the buffers alone."""
    rocm = weights_per_gpu(resolve(["--tp-size", "8"], gpu="mi355x", model_path=KIMI))
    marlin = weights_per_gpu(resolve(["--tp-size", "8"], gpu="h100", model_path=KIMI))
    assert (rocm.checkpoint_params, rocm.checkpoint_bytes) == \
        (marlin.checkpoint_params, marlin.checkpoint_bytes)
    assert rocm.bytes_per_gpu - marlin.bytes_per_gpu == rocm.breakdown["moe_index"]
