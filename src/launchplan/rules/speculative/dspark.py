"""DSPARK speculation: gamma from the DSpark checkpoint, its devices and defaults."""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.models.draft_blocks import dspark_gamma
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    draft_config_of,
    running_requests_default,
)


@rule(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("device", "attn_dp_size", "enable_dp_lm_head", "moe_a2a_backend",
                  "attn_cp_size", "speculative_moe_a2a_backend", "pp_size",
                  "disaggregation_mode", "speculative_draft_model_path", "model_path",
                  "revision", "speculative_num_steps", "speculative_eagle_topk",
                  "speculative_dspark_block_size", "speculative_num_draft_tokens",
                  "max_running_requests"),
    writes=("speculative_draft_model_path", "speculative_draft_model_revision",
            "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
            "max_running_requests"),
    facts=("model.has_dspark_keys", "model.config", "draft.config"),
    sglang="_handle_dspark",
    triggers={"speculative_algorithm": ("DSPARK",)},
)
def dspark_defaults(v: View) -> Declare | Refuse | None:
    """DSpark drafts gamma tokens in one pass and verifies gamma + 1: steps and top-k are 1.

    When: the algorithm is ``DSPARK``.
    Effect: ``speculative_num_steps`` and ``speculative_eagle_topk`` = 1;
        ``speculative_num_draft_tokens`` = gamma + 1, gamma being
        ``--speculative-dspark-block-size``, else the draft config's when SGLang's parse of it
        succeeds (``facts.models.draft_blocks``), else 7 unless draft tokens are given; a
        target carrying ``dspark_*`` keys is its own draft (draft path and revision set to the
        target's); unset ``max_running_requests`` = 48. Refuses devices other than
        CUDA/NPU/XPU; with attention DP no DP LM head, an A2A backend other than
        none/megamoe/mori, a non-static ragged verify for DP MoE, CP, or a mismatched draft A2A
        backend; pp > 1 off a PD prefill server; no draft; draft tokens other than gamma + 1.
    Why: the DSpark draft emits its whole block in one forward pass (``_handle_dspark``,
        arg_groups/speculative_hook.py).
    Assumes: a draft shipped as a ``dspark/`` subfolder of the target checkpoint is not looked for
        (launchplan reads no file system on the resolution path): give its path explicitly.
        ``SGLANG_RAGGED_VERIFY_MODE`` unset means static (SGLang 0.5.23's environ.py
        default); any other value, a valid mode or not, is refused here as SGLang refuses it.
    """
    device = str(v.device)
    npu = device.startswith("npu")
    if not device.startswith(("cuda", "npu", "xpu")):
        return Refuse("DSpark speculative decoding runs on CUDA, NPU or XPU only")
    if v.attn_dp_size > 1:
        if not v.enable_dp_lm_head:
            return Refuse("DSpark with attention DP needs --enable-dp-lm-head")
        if not npu and v.moe_a2a_backend not in ("none", "megamoe", "mori"):
            return Refuse("DSpark with attention DP supports moe_a2a_backend none, megamoe or "
                          f"mori, not {v.moe_a2a_backend}")
        if not npu and (v.moe_a2a_backend != "none" or v.record.env_flag(
                "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION")):
            if str(v.env.get("SGLANG_RAGGED_VERIFY_MODE", "static")) != "static":
                return Refuse("DSpark DP MoE or prefill coordination needs "
                              "SGLANG_RAGGED_VERIFY_MODE=static")
        if v.attn_cp_size > 1:
            return Refuse("DSpark with attention DP does not support context parallelism")
        if (not npu and v.speculative_moe_a2a_backend is not None
                and v.speculative_moe_a2a_backend != v.moe_a2a_backend):
            return Refuse("DSpark with attention DP needs --speculative-moe-a2a-backend to "
                          f"match moe_a2a_backend {v.moe_a2a_backend}")
    if v.pp_size != 1 and v.disaggregation_mode != "prefill":
        return Refuse("DSpark with pipeline parallelism runs only on a PD prefill server")
    out: dict[str, Any] = {}
    notes = []
    draft_config = draft_config_of(v)
    if v.speculative_draft_model_path is None:
        if not v.model.has_dspark_keys:
            return Refuse("DSpark speculative decoding needs --speculative-draft-model-path")
        out["speculative_draft_model_path"] = v.model_path
        out["speculative_draft_model_revision"] = v.revision
        draft_config = v.model.config
        notes.append("the DSpark draft is bundled in the target checkpoint")
    for field in ("speculative_num_steps", "speculative_eagle_topk"):
        value = v[field]
        if value is None or int(value) != 1:
            out[field] = 1
    tokens = v.speculative_num_draft_tokens
    gamma: int | None
    if v.speculative_dspark_block_size is not None:
        gamma = int(v.speculative_dspark_block_size)
        if gamma <= 0:
            return Refuse(f"--speculative-dspark-block-size must be positive, got {gamma}")
    else:
        gamma = dspark_gamma(draft_config, v.record.raw.release)
        if gamma is None and tokens is None:
            gamma = 7
            notes.append("DSpark gamma unknown: 7")
    if gamma is not None:
        window = gamma + 1
        if tokens is not None and int(tokens) != window:
            return Refuse(f"DSpark verifies gamma + 1 = {window} tokens; "
                          f"--speculative-num-draft-tokens is {tokens}")
        tokens = out["speculative_num_draft_tokens"] = window
    if int(tokens) < 2:
        return Refuse(f"DSpark needs at least 2 draft tokens (gamma + 1), got {tokens}")
    out.update(running_requests_default(v))
    if "max_running_requests" in out:
        notes.append(RUNNING_NOTE)
    return Declare(out, "; ".join(notes) or None)
