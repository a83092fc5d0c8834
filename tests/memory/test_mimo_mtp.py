"""MiMo's dense MTP draft (SGLang's ``mimo_mtp.py``) counted with the target.

``--speculative-algorithm EAGLE`` without a draft path loads ``MiMoMTP`` from the target's
checkpoint: one Qwen2 decoder layer, two input norms, the 2h -> h projection, a final norm,
and its own embedding and head (held until ``init_lm_head`` swaps in the target's, after
the target's pool is sized).
"""

from __future__ import annotations

from pathlib import Path

from launchplan.facts.targets import get_target
from launchplan.memory.plan import memory_plan
from launchplan.planner import resolve

MIMO = Path(__file__).resolve().parents[1] / "parity" / "models" / "mimo-7b-rl"
SPEC = ["--trust-remote-code", "--speculative-algorithm", "EAGLE", "--speculative-num-steps",
        "1", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "2"]


def test_mimo_mtp_draft_is_a_decoder_layer_with_its_own_embedding_and_head():
    plan = memory_plan(resolve(SPEC, gpu=get_target("h100"), model_path=str(MIMO)))
    assert plan is not None
    h, inter, vocab, kv = 4096, 11008, 151680, 8 * 128
    layer = h * (h + 2 * kv) + (h + 2 * kv) + h * h + 3 * h * inter + 2 * h  # qkv+bias, o, mlp
    draft = layer + 2 * h + 2 * h * h + h + 2 * vocab * h  # norms, input_proj, norm, copies
    assert plan.draft_weights_bytes == 2 * draft


def test_without_speculation_mimo_loads_no_draft():
    plan = memory_plan(resolve(["--trust-remote-code"], gpu=get_target("h100"),
                               model_path=str(MIMO)))
    assert plan is not None and plan.draft_weights_bytes == 0
