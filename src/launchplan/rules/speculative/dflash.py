"""DFLASH speculation: block-size defaults and the draft attention backend."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts.models.draft_blocks import dflash_block_size
from launchplan.rules.attention import BACKEND_FIELDS, effective_backends
from launchplan.rules.speculative.common import (
    ALGO,
    RUNNING_NOTE,
    attn_dp_enabled,
    draft_config_of,
    running_requests_default,
    text_config_of,
)

# Backends SGLang accepts as a separate draft attention backend (DRAFT_ATTENTION_BACKEND_CHOICES).
DRAFT_BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")


_DEFAULTS = dict(
    phase=Phase.SPECULATIVE,
    reads=ALGO + ("device", "attn_dp_size", "ep_join_mode", "enable_dp_lm_head",
                  "attn_cp_size", "pp_size", "speculative_draft_model_path",
                  "speculative_num_steps", "speculative_eagle_topk",
                  "speculative_dflash_block_size", "speculative_num_draft_tokens",
                  "speculative_draft_window_size", "max_running_requests", "model_path"),
    writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
            "max_running_requests"),
    # the target's own config when the draft path is the model path (draft_config_of)
    facts=("draft.config", "model.config"),
    triggers={"speculative_algorithm": ("DFLASH",)},
)


@rule(**_DEFAULTS, sglang="_handle_dflash")
def dflash_defaults(v: View) -> Declare | Refuse | None:
    """DFLASH drafts a whole block in one pass: steps and top-k are 1, tokens the block size.

    When: the algorithm is ``DFLASH``.
    Effect: ``speculative_num_steps`` and ``speculative_eagle_topk`` = 1 (noting a different
        given value); ``speculative_num_draft_tokens`` = ``--speculative-dflash-block-size``, else
        the draft config's ``dflash_config.block_size`` (or top-level ``block_size``) when
        SGLang's parse of the whole draft config succeeds (``facts.models.draft_blocks``), else 16;
        unset ``max_running_requests`` = 48. Refuses devices other than CUDA/NPU/XPU; with
        attention DP off CUDA/NPU, no DP LM head, CP or DP prefill coordination; pp > 1; no
        draft model; a non-positive block or one that differs from the draft tokens; a draft
        window smaller than the block.
    Why: the draft emits the whole block in one forward pass; with attention DP the greedy
        projection borrows the target's LM head (``_handle_dflash``,
        arg_groups/speculative_hook.py).
    Assumes: ``SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`` is off unless the given environment
        sets it.
    """
    return _dflash(v, dp_attention_on_cuda=True)


@rule(name="dflash_defaults", variant="0.5.22", **_DEFAULTS,
      sglang="_handle_dflash (0.5.21-0.5.22)")
def dflash_defaults_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``dflash_defaults``; attention DP runs DFLASH on NPUs only.

    When: the algorithm is ``DFLASH``.
    Effect: as ``dflash_defaults``, but attention DP is refused on every device but an NPU.
    Why: DFLASH with attention DP on CUDA (borrowing the target's DP LM head) came in 0.5.23
        (``_handle_dflash`` in 0.5.22 validates it on NPU only).
    Assumes: as ``dflash_defaults``.
    """
    return _dflash(v, dp_attention_on_cuda=False)


def _dflash(v: View, *, dp_attention_on_cuda: bool) -> Declare | Refuse | None:
    device = str(v.device)
    if not (device.startswith("cuda") or device in ("npu", "xpu")):
        return Refuse(f"DFLASH speculative decoding is not supported on device {device}")
    if not dp_attention_on_cuda and attn_dp_enabled(v) and device != "npu":
        return Refuse("DFLASH with attention DP runs on NPUs only in this release")
    if attn_dp_enabled(v) and device != "npu":
        if not device.startswith("cuda"):
            return Refuse("DFLASH with attention DP needs CUDA or NPU")
        if not v.enable_dp_lm_head:
            return Refuse("DFLASH with attention DP needs --enable-dp-lm-head")
        if v.attn_cp_size != 1:
            return Refuse("DFLASH with attention DP does not support context parallelism")
        if v.record.env_flag("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"):
            return Refuse("DFLASH with attention DP needs "
                          "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION off")
    if v.pp_size != 1:
        return Refuse("DFLASH speculative decoding supports pp_size 1 only")
    if v.speculative_draft_model_path is None:
        return Refuse("DFLASH speculative decoding needs --speculative-draft-model-path")
    out: dict[str, int] = {}
    notes = []
    for field in ("speculative_num_steps", "speculative_eagle_topk"):
        value = v[field]
        if value is None or int(value) != 1:
            out[field] = 1
            if value is not None:
                notes.append(f"DFLASH uses {field} 1, not {value}")
    tokens = v.speculative_num_draft_tokens
    block = v.speculative_dflash_block_size
    if block is not None:
        if int(block) <= 0:
            return Refuse(f"--speculative-dflash-block-size must be positive, got {block}")
        if tokens is not None and int(tokens) != int(block):
            return Refuse(f"--speculative-num-draft-tokens {tokens} and "
                          f"--speculative-dflash-block-size {block} must match for DFLASH")
        tokens = out["speculative_num_draft_tokens"] = int(block)
    if tokens is None:
        inferred = dflash_block_size(draft_config_of(v))
        if inferred is None:
            inferred = 16
            notes.append("DFLASH block size unknown: 16 draft tokens")
        tokens = out["speculative_num_draft_tokens"] = inferred
    window = v.speculative_draft_window_size
    if window is not None and window < int(tokens):
        return Refuse(f"--speculative-draft-window-size {window} must be at least the DFLASH "
                      f"block size {tokens}")
    out.update(running_requests_default(v))
    if "max_running_requests" in out:
        notes.append(RUNNING_NOTE)
    return Declare(out, "; ".join(notes) or None)


_DFLASH_DRAFT = dict(
    phase=Phase.SPECULATIVE,
    reads=ALGO + BACKEND_FIELDS + ("speculative_draft_attention_backend", "device",
                                   "speculative_draft_model_path", "model_path"),
    writes=("speculative_draft_attention_backend",),
    facts=("target.is_hip", "target.is_sm100", "draft.config"),
    triggers={"speculative_algorithm": ("DFLASH",)},
)


@rule(sglang="_resolve_dflash_draft_attention_backend", **_DFLASH_DRAFT)
def dflash_draft_backend(v: View) -> Declare | None:
    """The DFLASH draft runs one attention backend: the given one, else the target's prefill.

    When: the algorithm is ``DFLASH``.
    Effect: ``speculative_draft_attention_backend`` = the given draft backend, else the target's
        prefill backend; one outside SGLang's draft backends falls back to flashinfer (triton on
        ROCm/XPU), with a note; trtllm_mha is kept only for drafts whose layers are all
        sliding-window or that are explicitly causal, otherwise the fallback is used, fa4 on SM10x.
    Why: trtllm_mha's kernels have no bidirectional block mask
        (``_resolve_dflash_draft_attention_backend``, arg_groups/speculative_hook.py).
    Assumes: nothing.
    """
    return _dflash_draft(v, sm100_fa4=True)


@rule(name="dflash_draft_backend", variant="0.5.22",
      sglang="_resolve_dflash_draft_attention_backend (0.5.21-0.5.22)", **_DFLASH_DRAFT)
def dflash_draft_backend_0_5_22(v: View) -> Declare | None:
    """As in 0.5.23, but a draft trtllm_mha cannot run falls back to flashinfer on SM10x too.

    When: the algorithm is ``DFLASH`` (this variant serves the 0.5.21-0.5.22 releases).
    Effect: as ``dflash_draft_backend``, except that the fallback for a trtllm_mha the draft
        cannot run is flashinfer (triton on ROCm/XPU) on SM10x as well.
    Why: 0.5.23 added the FA4 path on SM10x; earlier ``_resolve_dflash_draft_attention_backend``
        had only the generic fallback.
    Assumes: nothing.
    """
    return _dflash_draft(v, sm100_fa4=False)


def _dflash_draft(v: View, sm100_fa4: bool) -> Declare | None:
    fallback = "triton" if v.target.is_hip or v.device == "xpu" else "flashinfer"
    backend = v.speculative_draft_attention_backend or effective_backends(v)[0]
    note = None
    if backend is None:
        backend = fallback
    elif backend not in DRAFT_BACKENDS:
        note = f"the DFLASH draft cannot run {backend}; it uses {fallback}"
        backend = fallback
    elif backend == "trtllm_mha":
        config = draft_config_of(v) or {}
        text = text_config_of(config)
        layer_types = text.get("layer_types", config.get("layer_types"))
        layers = text.get("num_hidden_layers")
        all_sliding = bool(layer_types) and len(layer_types) == layers and set(
            layer_types) == {"sliding_attention"}
        if not (all_sliding or text.get("is_causal") is True):
            if sm100_fa4 and v.target.is_sm100:
                fallback = "fa4"
            note = (f"the DFLASH draft is not all sliding-window or causal, so trtllm_mha "
                    f"cannot run it; it uses {fallback}")
            backend = fallback
    return Declare({"speculative_draft_attention_backend": backend}, note)
