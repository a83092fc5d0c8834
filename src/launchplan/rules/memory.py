"""GPU memory sizing: capacity tiers, CUDA-graph capture sizes and ``mem_fraction_static``.

SGLang sizes everything from the GPU's memory (the smallest visible GPU, in MiB): bigger
GPUs are usually faster, so they get larger prefill chunks and decode graphs. The static
fraction is then whatever is left after an estimate of activations and graph buffers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.engine.declarations import Declare, Refuse, arithmetic_refusal
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.facts.vision import (
    absent_vision_size,
    builds_default_vision,
    loader_vision_config,
    vision_encoder_size,
)
from launchplan.rules.graph_config import (
    DECODE,
    PREFILL,
    cpu_sizes,
    decode_sizes,
    is_locked,
    prefill_sizes,
)
from launchplan.rules.model_overrides.qwen3_vl import large_hopper_qwen3_vl
from launchplan.rules.parallel import attn_dp_enabled, dp_attention_switch_0_5_21
from launchplan.rules.size_lists import count_of, described_note, is_described, largest

# (MiB below which the tier applies, chunked_prefill_size, decode max_bs at tp < 4, at tp >= 4)
CAPACITY_TIERS: tuple[tuple[float, int, int, int], ...] = (
    (20 * 1024, 2048, 8, 8),
    (35 * 1024, 4096, 48, 160),
    (60 * 1024, 4096, 32, 160),
    (90 * 1024, 8192, 256, 512),
    (160 * 1024, 8192, 256, 512),
    (float("inf"), 16384, 512, 512),
)
UNKNOWN_CAPACITY = (4096, 160)  # chunk and decode max_bs when the memory is unknown
PP_PREFILL_GRAPH_MAX_TOKENS = 8192
MLA_PREFILL_GRAPH_MAX_TOKENS = 8192
MLA_PREFILL_GRAPH_MAX_BS_0_5_22 = 2048  # 0.5.21-0.5.22: a flat MLA prefill capture limit


def tier_of(memory_mib: float | None, tp_size: int) -> tuple[int, int]:
    """(chunked_prefill_size, decode max_bs) for a GPU of this size."""
    if memory_mib is None:
        return UNKNOWN_CAPACITY
    for limit, chunk, small_tp, large_tp in CAPACITY_TIERS:
        if memory_mib < limit:
            return chunk, (small_tp if tp_size < 4 else large_tp)
    raise AssertionError("the last tier is unbounded")


@rule(
    phase=Phase.MEMORY,
    reads=("chunked_prefill_size", "tp_size"),
    writes=("chunked_prefill_size",),
    facts=("target.memory_mib",),
    sglang="handle_gpu_memory_settings (chunked_prefill_size)",
)
def chunked_prefill_default(v: View) -> dict | None:
    """An unset chunked_prefill_size follows the GPU's memory tier (2k … 16k tokens).

    When: ``chunked_prefill_size`` is unset.
    Effect: declares ``chunked_prefill_size`` from ``CAPACITY_TIERS`` (4096 when the GPU's
        memory is unknown).
    Why: bigger GPUs are usually faster, so SGLang gives them larger prefill chunks
        (``handle_gpu_memory_settings``, chunked_prefill_size).
    Assumes: the smallest visible GPU has the target profile's memory.
    """
    if v.chunked_prefill_size is not None:
        return None
    return {"chunked_prefill_size": tier_of(v.target.memory_mib, v.tp_size)[0]}


_SIZING_READS = ("cuda_graph_config", "tp_size", "max_running_requests", "device",
                 "disable_cuda_graph_padding", "speculative_algorithm", "torch_compile_max_bs",
                 "chunked_prefill_size", "pp_size", "max_total_tokens", "model_path",
                 # is_locked reads the convenience flags of the sizes it tests
                 "cuda_graph_bs_prefill", "cuda_graph_bs_decode", "cuda_graph_max_bs_decode")
_SIZING_WRITES = ("cuda_graph_config", "torch_compile_max_bs")
_SIZING_FACTS = ("target.memory_mib", "model.is_mla", "target.is_sm90", "model.model_type",
                 "model.is_multimodal")
#: Qwen3-VL's profiled Hopper serving keeps decode in graphs up to this many running requests.
QWEN3_VL_GRAPH_RUNNING_LIMIT = 512


@rule(
    phase=Phase.MEMORY,
    reads=_SIZING_READS,
    writes=_SIZING_WRITES,
    facts=_SIZING_FACTS,
    sglang="handle_gpu_memory_settings (graph sizing)",
)
def cuda_graph_sizing(v: View) -> dict | Declare | Refuse | None:
    """Fill the capture sizes: decode max_bs by memory tier, then the bucket lists.

    When: whenever its promises hold (it fills only unset sizes).
    Effect: an unset decode max_bs comes from the memory tier, capped by an explicit
        max_running_requests; a multimodal Qwen3-VL on a Hopper with 60 GiB or more raises a
        decode max_bs the user did not size up to an explicit max_running_requests of at
        most 512 (SGLang's profiled serving); given decode sizes set max_bs to their
        maximum, even over an explicit max_bs (on CPU, ``torch_compile_max_bs`` instead,
        refused unless positive). Prefill max_bs defaults to
        the chunk (MLA: at most 8192; opt-in PP breakable graphs: 8192; at most
        max_total_tokens; Llama-2 paths: 4096). A list longer than ``size_lists.LIMIT`` is
        described, not built, with a note. Sizes SGLang cannot generate or take the maximum of
        (a float or text max_bs, an empty or mixed list) are refused.
    Why: SGLang sizes graphs from the GPU's memory (``handle_gpu_memory_settings``, graph
        sizing).
    Assumes: the smallest visible GPU has the target profile's memory.
    """
    return _sized(v, None, True)


@rule(
    name="cuda_graph_sizing",
    variant="0.5.22",
    phase=Phase.MEMORY,
    reads=_SIZING_READS,
    writes=_SIZING_WRITES,
    facts=_SIZING_FACTS,
    sglang="handle_gpu_memory_settings (graph sizing, 0.5.22)",
)
def cuda_graph_sizing_0_5_22(v: View) -> dict | Declare | Refuse | None:
    """As in 0.5.23, but an MLA model's prefill graph captures up to 2048 tokens.

    When: as the 0.5.23 rule.
    Effect: as the 0.5.23 rule, with an MLA prefill max_bs of 2048 whatever the chunk.
    Why: 0.5.23 raised the MLA limit to the chunk, at most 8192
        (``handle_gpu_memory_settings``, 0.5.22).
    Assumes: the smallest visible GPU has the target profile's memory.
    """
    return _sized(v, MLA_PREFILL_GRAPH_MAX_BS_0_5_22, True)


@rule(
    name="cuda_graph_sizing",
    variant="0.5.21",
    phase=Phase.MEMORY,
    reads=_SIZING_READS,
    writes=_SIZING_WRITES,
    facts=_SIZING_FACTS,
    sglang="handle_gpu_memory_settings (graph sizing, 0.5.21)",
)
def cuda_graph_sizing_0_5_21(v: View) -> dict | Declare | Refuse | None:
    """As in 0.5.22 (MLA prefill graph up to 2048 tokens), without the max_running_requests cap.

    When: as the 0.5.23 rule.
    Effect: as the 0.5.22 rule, but the tier's decode max_bs is not capped by an explicit
        max_running_requests.
    Why: 0.5.22 added that cap (``handle_gpu_memory_settings``, 0.5.21).
    Assumes: the smallest visible GPU has the target profile's memory.
    """
    return _sized(v, MLA_PREFILL_GRAPH_MAX_BS_0_5_22, False)


def _sized(v: View, mla_prefill_max_bs: int | None, cap_at_running: bool
           ) -> dict | Declare | Refuse | None:
    """The sizing, refused where SGLang's own arithmetic fails, and a described list said."""
    try:
        out = _graph_sizing(v, mla_prefill_max_bs, cap_at_running)
    except (TypeError, ValueError, ArithmeticError) as exc:
        return arithmetic_refusal("CUDA-graph capture sizes", exc)
    if v.device == "cpu" and out and not out["torch_compile_max_bs"] > 0:
        # the CPU graph is a torch.compile one: its sizes stop at this limit
        return Refuse(f"--device cpu: the CPU graph's batch limit is "
                      f"{out['torch_compile_max_bs']} (--torch-compile-max-bs, else the decode "
                      f"graph's max_bs or largest size); it must be positive")
    config = out.get("cuda_graph_config") if out else None
    notes = [described_note(phase, config[phase]["bs"]) for phase in (DECODE, PREFILL)
             if config and is_described(config[phase]["bs"])]
    return Declare(out, "; ".join(notes)) if notes else out


def _graph_sizing(v: View, mla_prefill_max_bs: int | None, cap_at_running: bool) -> dict | None:
    """The sizing itself; ``mla_prefill_max_bs`` None is 0.5.23's min(8192, chunk)."""
    config = v.cuda_graph_config
    decode = dict(config[DECODE])
    prefill = dict(config[PREFILL])
    out: dict[str, Any] = {}
    if decode["max_bs"] is None:
        decode["max_bs"] = tier_of(v.target.memory_mib, v.tp_size)[1]
        cap = v.max_running_requests
        if cap_at_running and cap is not None and decode["max_bs"] > cap:
            decode["max_bs"] = cap
    running = v.max_running_requests
    if (running is not None and running <= QWEN3_VL_GRAPH_RUNNING_LIMIT
            and decode["max_bs"] is not None and decode["max_bs"] < running
            and large_hopper_qwen3_vl(v) and not is_locked(v, DECODE, "max_bs")
            and not is_locked(v, DECODE, "bs")):
        decode["max_bs"] = running  # up to the running limit, unless the user sized the graph
    if v.device != "cpu":
        if decode["bs"] is None:
            decode["bs"] = decode_sizes(decode["max_bs"],
                                        speculative=v.speculative_algorithm is not None,
                                        no_padding=v.disable_cuda_graph_padding)
        else:
            decode["max_bs"] = largest(decode["bs"])
    else:
        compile_max = largest(decode["bs"]) if decode["bs"] is not None else (
            v.torch_compile_max_bs or decode["max_bs"])
        out["torch_compile_max_bs"] = compile_max
        if decode["bs"] is None:
            decode["bs"] = cpu_sizes(compile_max)
        decode["max_bs"] = compile_max
    if prefill["max_bs"] is None:
        chunk = v.chunked_prefill_size
        if not v.model.is_mla:
            max_bs = chunk
        elif mla_prefill_max_bs is None:
            max_bs = min(MLA_PREFILL_GRAPH_MAX_TOKENS, chunk)
        else:
            max_bs = mla_prefill_max_bs
        if (v.pp_size > 1 and prefill["backend"] == "breakable"
                and not is_locked(v, PREFILL, "bs") and max_bs > PP_PREFILL_GRAPH_MAX_TOKENS):
            max_bs = PP_PREFILL_GRAPH_MAX_TOKENS
        if v.max_total_tokens is not None:
            max_bs = min(max_bs, v.max_total_tokens)
        if "llama-2" in str(v.model_path).lower():
            max_bs = min(max_bs, 4096)
        prefill["max_bs"] = max_bs
    if prefill["bs"] is None:
        prefill["bs"] = prefill_sizes(prefill["max_bs"])
    if decode != config[DECODE] or prefill != config[PREFILL]:
        out["cuda_graph_config"] = {DECODE: decode, PREFILL: prefill}
    return out or None


def graph_reserve_mib(v: Any, attn_dp: Callable[[Any], bool] = attn_dp_enabled) -> float:
    """MiB kept free for captured graphs: decode buffers, attention DP padding, prefill.

    ``attn_dp`` is how the release tests attention DP: wider than 1 or an elastic EP scale-up
    joiner (``attn_dp_enabled``), or 0.5.21's switch (``dp_attention_switch_0_5_21``).
    """
    config = v.cuda_graph_config
    decode, prefill = config[DECODE], config[PREFILL]
    role = v.disaggregation_mode
    reserve = 0.0
    if role != "prefill" and decode["backend"] != "disabled":
        reserve += decode["max_bs"] * 2
    if attn_dp(v) and role != "prefill":
        reserve += decode["max_bs"] * v.attn_dp_size * 3
        if decode["max_bs"] > 300:
            reserve += decode["max_bs"] * v.attn_dp_size * 1.5
    if role != "decode" and prefill["backend"] != "disabled":
        reserve += 1536 if v.model.is_mla else count_of(prefill["bs"]) * 8
        if prefill["backend"] == "breakable" and v.moe_a2a_backend == "deepep":
            reserve += 1024
    return reserve


# Architectures whose reference launcher turns post-capture KV sizing on when the environment
# leaves SGLANG_ENABLE_POST_CAPTURE_KV_SIZING unset (SGLang's apply_muse_spark_env_defaults).
POST_CAPTURE_BY_DEFAULT = frozenset({"MuseSparkForConditionalGeneration"})
_POST_CAPTURE_ENV = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"
#: Set to any text, it hands KV allocation to Mooncake's pool and rules post-capture sizing out.
MOONCAKE_POOL_ENV = "SGLANG_MOONCAKE_CUSTOM_MEM_POOL"


def post_capture_switch(v: Any) -> bool:
    """The post-capture switch: the environment's value, else on for Muse Spark only."""
    if _POST_CAPTURE_ENV in v.record.env:
        return v.record.env_flag(_POST_CAPTURE_ENV)
    return v.model.arch0 in POST_CAPTURE_BY_DEFAULT


# Speculative algorithms whose draft pools the unified pool's post-capture solver budgets
# again (SGLang's eagle, standalone and DFLASH-family algorithms)
_SEPARATE_DRAFT_POOLS = frozenset({"EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "DFLASH",
                                   "DSPARK"})


def post_capture_sizing_planned(v: Any, *, unified_resizes: bool = True) -> bool:
    """Whether SGLang will size the KV pool after capture (opt-in by environment variable).

    ``unified_resizes`` False (0.5.21): the unified pool is never sized after capture; later
    releases resize its hybrid-SWA byte pool when no separate draft pool is budgeted."""
    if v.enable_kv_cache_sharding or not post_capture_switch(v):
        return False
    if (v.device != "cuda" or v.dcp_size != 1 or v.model.is_mla
            or v.prefill_only_disable_kv_cache or v.enable_memory_saver):
        return False
    if environment.given(v.env, MOONCAKE_POOL_ENV):
        return False  # SGLang does not size after capture with a custom Mooncake pool
    if (v.disaggregation_transfer_backend == "mooncake"
            and environment.value(v.env, "MOONCAKE_PROTOCOL").lower() == "efa"):
        return False  # Mooncake over EFA cannot register the resizable (VMM) allocation
    if v.enable_unified_memory and (
            not unified_resizes or not v.model.is_hybrid_swa or v.model.is_hybrid_linear
            or v.speculative_algorithm in _SEPARATE_DRAFT_POOLS):
        return False  # only a hybrid-SWA unified pool without draft pools resizes
    config = v.cuda_graph_config
    if v.disaggregation_mode != "prefill" and config[DECODE]["backend"] == "disabled":
        return False
    if v.disaggregation_mode != "decode":
        prefill = config[PREFILL]
        if (prefill["backend"] == "disabled" or v.chunked_prefill_size <= 0
                or v.chunked_prefill_size > (largest(prefill["bs"]) if prefill["bs"] else 0)):
            return False
    return not v.model.arch0.startswith(("DeepseekV4", "MiniMaxM3Sparse"))


_MEM_FRACTION = dict(
    phase=Phase.MEMORY,
    reads=("mem_fraction_static", "cuda_graph_config", "chunked_prefill_size",
           "max_prefill_tokens", "max_running_requests", "speculative_num_draft_tokens",
           "tp_size", "pp_size", "attn_dp_size", "ep_join_mode", "disaggregation_mode",
           "moe_a2a_backend", "language_only", "language_model_only", "enable_multimodal",
           "model_impl", "device", "dcp_size",
           "enable_kv_cache_sharding", "prefill_only_disable_kv_cache",
           "enable_memory_saver", "enable_unified_memory", "disaggregation_transfer_backend",
           "speculative_algorithm"),
    writes=("mem_fraction_static",),
    facts=("target.memory_mib", "model.is_mla", "model.is_multimodal", "model.model_type",
           "model.config", "model.arch0", "model.is_hybrid_swa", "model.is_hybrid_linear"),
)


@rule(**_MEM_FRACTION, sglang="handle_gpu_memory_settings (mem_fraction_static)")
def mem_fraction_default(v: View) -> dict | Refuse | None:
    """An unset mem_fraction_static is what remains after activations and graph buffers.

    When: ``mem_fraction_static`` is unset.
    Effect: declares ``mem_fraction_static`` = (memory - reserve) / memory, rounded to 3
        places (0.95 with unknown memory); reserve = 512 MiB + 1.5 MiB per activation token
        (the chunk, at least 2048) + 1 GiB per 8 GPUs of TP x PP + the graph reserve, at least
        10 GiB on GPUs over 60 GiB, plus 2 GiB for DeepEP decode buffers (a smaller reserve
        when post-capture KV sizing is planned). Multimodal models then get the VLM
        adjustment. Sizes too large for a float are refused (SGLang's formula overflows).
    Why: the static pool gets what the other buffers leave (``handle_gpu_memory_settings``,
        mem_fraction_static); vision encoders need headroom growing with their size.
    Assumes: the smallest visible GPU has the target profile's memory;
        SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, SGLANG_MOONCAKE_CUSTOM_MEM_POOL and
        MOONCAKE_PROTOCOL (either of which can rule post-capture sizing out) are unset unless
        the environment given sets them.
    """
    return _fraction_or_refusal(v, attn_dp_enabled)


@rule(name="mem_fraction_default", variant="0.5.21",
      **{**_MEM_FRACTION, "reads": _MEM_FRACTION["reads"] + ("enable_dp_attention",)},
      sglang="handle_gpu_memory_settings (mem_fraction_static, 0.5.21)")
def mem_fraction_default_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: the same estimate, its attention-DP padding keyed on 0.5.21's switch.

    When: as ``mem_fraction_default``.
    Effect: as ``mem_fraction_default``, except that the graph reserve's attention-DP padding
        (decode max_bs x groups x 3, x 1.5 more above 300) is counted whenever
        ``--enable-dp-attention`` is on, one group included, and not for a scale-up joiner
        without it; and a unified pool is never planned for post-capture sizing.
    Why: 0.5.21's ``reserve_for_graph_mb`` tests ``enable_dp_attention``, which it clears with
        one group only later, in ``handle_data_parallelism``; its
        ``post_capture_kv_sizing_planned`` rules unified memory out (0.5.22 resizes a
        hybrid-SWA unified pool).
    Assumes: as ``mem_fraction_default``.
    """
    return _fraction_or_refusal(v, dp_attention_switch_0_5_21, unified_resizes=False)


def _fraction_or_refusal(v: View, attn_dp: Callable[[Any], bool], *,
                         unified_resizes: bool = True) -> dict | Refuse | None:
    if v.mem_fraction_static is not None:
        return None
    try:
        return _default_fraction(v, attn_dp, unified_resizes)
    except ArithmeticError as exc:  # sizes beyond a float: SGLang's formula overflows too
        return arithmetic_refusal("the mem_fraction_static reserve", exc)


def _default_fraction(v: View, attn_dp: Callable[[Any], bool], unified_resizes: bool) -> dict:
    memory = v.target.memory_mib
    if memory is None:
        return {"mem_fraction_static": 0.95}
    config = v.cuda_graph_config
    planned = post_capture_sizing_planned(v, unified_resizes=unified_resizes)
    if planned:
        reserve = 1536 + v.tp_size * v.pp_size / 8 * 1024
    else:
        if v.disaggregation_mode == "decode":
            running = v.max_running_requests or config[DECODE]["max_bs"] or 1
            tokens = max(running * (v.speculative_num_draft_tokens or 1), 2048)
        elif v.chunked_prefill_size > 0:
            tokens = max(v.chunked_prefill_size, 2048)
        else:
            tokens = max(v.max_prefill_tokens, 2048)
        reserve = 512 + tokens * 1.5 + v.tp_size * v.pp_size / 8 * 1024
        reserve += graph_reserve_mib(v, attn_dp)
        if memory > 60 * 1024:
            reserve = max(reserve, 10 * 1024)
        if (v.disaggregation_mode != "prefill" and config[DECODE]["backend"] != "disabled"
                and v.moe_a2a_backend == "deepep"):
            reserve += 2 * 1024
    fraction = round((memory - reserve) / memory, 3)
    model = v.model
    multimodal = model.multimodal(v.enable_multimodal, language_model_only=v.language_model_only,
                                  model_impl=v.model_impl)
    if multimodal and not v.language_only and v.disaggregation_mode != "decode":
        fraction = _vlm_adjusted(fraction, model, planned, memory)
    return {"mem_fraction_static": fraction}


def _vlm_adjusted(fraction: float, model: Any, post_capture: bool, memory: float) -> float:
    """Vision encoders need headroom that grows with their size (relative to a ViT-L/14).

    Without a ``vision_config`` (in config.json, built by its class, or set by SGLang's config
    reader: ``facts.vision.LOADER_VISION_CONFIGS``, which replaces the file's) nothing
    changes. The encoder's size is read as SGLang's ``getattr`` finds it on transformers'
    config object (``facts.vision``): through the class's attribute map and defaults, or 24
    layers x 1024 when the vision config stays a plain dict.
    """
    if post_capture:
        return fraction - 8 * 1024 / memory
    injected = loader_vision_config(getattr(model, "arch0", None))
    vision = model.config.get("vision_config")
    if injected is not None:  # SGLang's config reader sets it, whatever the file holds
        layers, hidden = injected["num_hidden_layers"], injected["hidden_size"]
    elif vision is None and not builds_default_vision(model.model_type):
        return fraction  # no vision config at all (most classes build their default)
    else:
        layers, hidden = absent_vision_size(model.model_type) if vision is None \
            else vision_encoder_size(model.model_type, vision)
    ratio = (layers * hidden**2) / (24 * 1024**2)
    factor = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return fraction * (0.95 * factor)  # SGLang's grouping: 0.95 x factor first (to the last bit)
