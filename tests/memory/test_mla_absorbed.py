"""MLA's absorbed ``w_kc``/``w_vc``: the copies of ``kv_b_proj`` SGLang keeps on the GPU.

SGLang 0.5.23's ``post_load_weights`` (``models/deepseek_common/deepseek_weight_loader.py``)
splits every MLA layer's ``kv_b_proj`` into ``w_kc`` and ``w_vc`` and stores each as a
contiguous copy beside the projection, which stays for the prefill path; this runs inside
loading, so a log's "mem usage" holds them. Their dtype follows the projection's storage and
the platform: a block-FP8 projection (128 x 128) is dequantized to bf16 on CUDA (unless
``SGLANG_USE_DEEPGEMM_BMM`` on Hopper keeps the FP8 blocks), re-quantized per tensor to FP8
elsewhere (ROCm) and for per-tensor or per-channel FP8; a bf16 projection is copied as is.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import load_model
from launchplan.memory.weights import checkpoint_size, weight_bytes, weights_per_gpu
from launchplan.planner import resolve

#: DeepSeek-V3's MLA: 128 heads of 128 (nope) + 128 (v) from a 512-wide latent, 61 layers
HEADS, NOPE_V, RANK, LAYERS = 128, 256, 512, 61


def absorbed(argv: list[str], gpu: str, model: str = "deepseek-v3",
             env: dict[str, str] | None = None) -> int:
    result = resolve(argv, gpu=gpu, model_path=model, env=env or {})
    return weights_per_gpu(result).breakdown.get("mla_absorbed", 0)


def test_block_fp8_projection_is_absorbed_in_bf16_on_cuda():
    """DeepSeek-V3 (block FP8) at tp 8 on an H100: 16 heads a GPU, two bytes an element."""
    assert absorbed(["--tp-size", "8"], "h100") == LAYERS * HEADS // 8 * NOPE_V * RANK * 2


def test_attention_dp_absorbs_every_head_on_every_gpu():
    """Attention DP 8 at tp 8 leaves an attention-TP group of one: all 128 heads' copies."""
    got = absorbed(["--tp-size", "8", "--dp-size", "8", "--enable-dp-attention"], "b200")
    assert got == LAYERS * HEADS * NOPE_V * RANK * 2


def test_rocm_and_deepgemm_bmm_keep_fp8_copies():
    """On ROCm the block-FP8 projection is re-quantized per tensor (one byte an element, the
    block scales' few bytes aside); on Hopper ``SGLANG_USE_DEEPGEMM_BMM`` keeps the FP8
    blocks; a Blackwell GPU ignores that variable (DeepGEMM's BMM path is Hopper's)."""
    one_byte = LAYERS * HEADS // 8 * NOPE_V * RANK
    assert absorbed(["--tp-size", "8"], "mi300x") == pytest.approx(one_byte, rel=1e-3)
    bmm = {"SGLANG_USE_DEEPGEMM_BMM": "1"}
    assert absorbed(["--tp-size", "8"], "h100", env=bmm) == pytest.approx(one_byte, rel=1e-3)
    assert absorbed(["--tp-size", "8"], "b200", env=bmm) == 2 * one_byte


def test_absorbed_copies_are_not_part_of_the_checkpoint():
    """Made at load, not stored: the published checkpoint size is unchanged by them, and a
    model without MLA has none."""
    params, size = checkpoint_size(load_model("deepseek-v3"))
    # the count the published 688.59 GB is checked against (test_weights), MTP layer included
    assert (params, size) == (684_489_845_504, 688_574_839_360)
    assert absorbed(["--tp-size", "2"], "h100", model="qwen3-32b") == 0


def test_an_mtp_draft_absorbs_its_own_layer():
    """The NextN layer is post-loaded too (``post_load_weights(is_nextn=True)``): with
    DeepGEMM's BMM the draft's one layer of copies is FP8, half its bf16 bytes, as the
    target's 61 layers are (both sums: ``weights_per_gpu`` and the plan's ``weight_bytes``)."""
    argv = ["--tp-size", "8", "--speculative-algorithm", "EAGLE"]
    bf16 = resolve(argv, gpu="h100", model_path="deepseek-v3")
    fp8 = resolve(argv, gpu="h100", model_path="deepseek-v3",
                  env={"SGLANG_USE_DEEPGEMM_BMM": "1"})
    one_layer = HEADS // 8 * NOPE_V * RANK  # bytes of one layer's FP8 copies on a GPU
    for sizes in (weights_per_gpu, weight_bytes):
        a, b = sizes(bf16), sizes(fp8)
        a = (a.bytes_per_gpu, a.draft_bytes_per_gpu) if hasattr(a, "bytes_per_gpu") else a[:2]
        b = (b.bytes_per_gpu, b.draft_bytes_per_gpu) if hasattr(b, "bytes_per_gpu") else b[:2]
        assert a[0] - b[0] == pytest.approx(LAYERS * one_layer, rel=1e-3)
        assert a[1] - b[1] == pytest.approx(one_layer, rel=1e-3)
