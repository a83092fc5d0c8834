"""LayerNorm sequence parallelism (SGLang's ``handle_layernorm_sp``, after speculative decoding).

``--enable-layernorm-sp`` shards the sequence over the TP group around the norms; only the
architectures whose layers mark the sequence-sharded region take it, and the TP group must hold
one sequence (no attention DP, no pipeline stages).
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment
from launchplan.rules.graph_config import PREFILL, with_phase
from launchplan.rules.mega_moe import TOKENS_ENV
from launchplan.rules.moe import NVFP4_DISPATCH_ENV, nvfp4_dispatch
from launchplan.rules.parallel import attn_dp_enabled

MUSE_SPARK = "MuseSparkForConditionalGeneration"
# SGLang 0.5.23 layers/layernorm_sp.py: the architectures with a sequence-sharded region
SUPPORTED = frozenset({MUSE_SPARK, "Qwen3ForCausalLM"})


@rule(
    phase=Phase.SPECULATIVE,
    reads=("enable_layernorm_sp", "enable_megamoe_for_layernorm_sp", "tp_size", "ep_size",
           "quantization", "moe_a2a_backend", "moe_runner_backend", "attn_dp_size",
           "ep_join_mode", "speculative_algorithm", "pp_size", "flashinfer_a2a_dispatch_type",
           "enable_mixed_chunk", "chunked_prefill_size", "max_prefill_tokens",
           "cuda_graph_config"),
    writes=("cuda_graph_config",),
    facts=("model.arch0",),
    sglang="handle_layernorm_sp (validate_layernorm_sp)",
    triggers=("enable_layernorm_sp", "enable_megamoe_for_layernorm_sp"),
)
def layernorm_sp_checks(v: View) -> Declare | Refuse | None:
    """LayerNorm SP needs a supporting architecture and one sequence per TP group.

    When: ``--enable-layernorm-sp`` (or ``--enable-megamoe-for-layernorm-sp``) is given.
    Effect: refuses the MegaMoE variant without LayerNorm SP or off Muse Spark; an
        architecture other than Muse Spark or Qwen3ForCausalLM; TP 1; on Muse Spark, a
        TP/EP other than 4/4 or 8/8, and (without the MegaMoE variant) weights other than
        modelopt_fp4, an A2A backend other than flashinfer or a runner other than
        flashinfer_trtllm; attention DP; speculative decoding other than Muse Spark DFLASH;
        PP above 1; then, on Muse Spark without the MegaMoE variant, NVFP4 A2A dispatch
        (SGLANG_MOE_NVFP4_DISPATCH on, or unset with no dispatch type given: SGLang turns
        it on for modelopt_fp4 under FlashInfer A2A); with it, mixed chunks, a prefill budget
        (the chunk, else ``max_prefill_tokens``) or MegaMoE capacity that is not positive, a
        per-rank share of the budget above the capacity, and under a breakable prefill graph
        chunked prefill off or a largest capture size below the chunk
        (``_megamoe_sp_problem``); else it declares the prefill CUDA graph breakable if it
        was, disabled otherwise.
    Why: the sequence is sharded across the whole TP group, which under attention DP holds
        different sequences and under PP starts on the first stage only
        (``validate_layernorm_sp``); Muse Spark's SP sizes its A2A workspace for BF16
        activations (``handle_layernorm_sp``).
    Assumes: SGLANG_MOE_NVFP4_DISPATCH is unset and
        SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK 8192 unless the environment given
        sets them.
    """
    arch = v.model.arch0
    megamoe = bool(v.get("enable_megamoe_for_layernorm_sp"))
    if not v.enable_layernorm_sp:
        if megamoe:
            return Refuse("--enable-megamoe-for-layernorm-sp needs --enable-layernorm-sp")
        return None
    if megamoe and arch != MUSE_SPARK:
        return Refuse("--enable-megamoe-for-layernorm-sp is for Muse Spark only")
    if arch not in SUPPORTED:
        return Refuse(f"--enable-layernorm-sp supports {', '.join(sorted(SUPPORTED))} only; "
                      f"this model is {arch}")
    if v.tp_size <= 1:
        return Refuse("--enable-layernorm-sp needs --tp-size above 1: one rank has no "
                      "sequence to shard")
    if arch == MUSE_SPARK:
        if (v.tp_size, v.ep_size) not in ((4, 4), (8, 8)):
            return Refuse("Muse Spark --enable-layernorm-sp needs TP4/EP4 or TP8/EP8; got "
                          f"TP{v.tp_size}/EP{v.ep_size}")
        if v.quantization != "modelopt_fp4" and not (v.quantization is None and megamoe):
            return Refuse("Muse Spark --enable-layernorm-sp needs NVFP4 weights "
                          "(--quantization modelopt_fp4), or BF16 with "
                          "--enable-megamoe-for-layernorm-sp")
        if megamoe:
            if v.moe_a2a_backend not in ("none", "flashinfer"):
                return Refuse("Muse MegaMoE prefill needs --moe-a2a-backend none or flashinfer")
        elif v.moe_a2a_backend != "flashinfer":
            return Refuse("Muse Spark --enable-layernorm-sp needs --moe-a2a-backend flashinfer")
        if v.moe_runner_backend != "flashinfer_trtllm":
            return Refuse("Muse Spark --enable-layernorm-sp needs --moe-runner-backend "
                          "flashinfer_trtllm")
    if attn_dp_enabled(v):
        return Refuse("--enable-layernorm-sp does not work with attention DP: the TP group "
                      "would hold different sequences")
    algorithm = v.speculative_algorithm
    if algorithm is not None and not (arch == MUSE_SPARK and algorithm == "DFLASH"):
        return Refuse("--enable-layernorm-sp speculates only with Muse Spark DFLASH; got "
                      f"{algorithm}")
    if v.pp_size > 1:
        return Refuse("--enable-layernorm-sp does not work with pipeline parallelism")
    if arch == MUSE_SPARK and megamoe:
        problem = _megamoe_sp_problem(v)
        if problem:
            return Refuse(problem)
        config = v.cuda_graph_config
        backend = "breakable" if config[PREFILL]["backend"] == "breakable" else "disabled"
        return Declare({"cuda_graph_config": with_phase(config, PREFILL, backend=backend)},
                       f"Muse MegaMoE SP prefill: prefill CUDA graph {backend} (it warms every "
                       "captured size first; other graph backends run eagerly)")
    if arch == MUSE_SPARK and nvfp4_dispatch(v):
        return Refuse(f"Muse Spark --enable-layernorm-sp needs {NVFP4_DISPATCH_ENV}=0: its "
                      "FlashInfer A2A carries BF16 activations (unset, SGLang turns NVFP4 "
                      "dispatch on for modelopt_fp4)")
    return None


def _megamoe_sp_problem(v: View) -> str | None:
    """Muse Spark's MegaMoE prefill shares one symmetric buffer sized per rank, filled by
    SP prefill only; a breakable prefill graph must have captured every chunk it replays."""
    if v.enable_mixed_chunk:
        return ("--enable-megamoe-for-layernorm-sp does not work with --enable-mixed-chunk: "
                "mixed batches skip the SP prefill")
    chunk = v.chunked_prefill_size
    budget = chunk if chunk > 0 else v.max_prefill_tokens
    capacity = environment.value(v.env, TOKENS_ENV)
    if capacity <= 0 or budget <= 0:
        return (f"Muse MegaMoE needs a positive prefill budget ({budget}) and {TOKENS_ENV} "
                f"({capacity})")
    per_rank = -(-budget // v.tp_size)
    if per_rank > capacity:
        return (f"Muse MegaMoE needs {per_rank} tokens per rank, above {TOKENS_ENV} "
                f"{capacity}: raise it or lower --chunked-prefill-size")
    prefill = v.cuda_graph_config[PREFILL]
    if prefill["backend"] == "breakable":
        if chunk <= 0:
            return ("Muse MegaMoE under a breakable prefill CUDA graph needs chunked prefill "
                    "(a positive --chunked-prefill-size bounds its SP workspace)")
        sizes = prefill.get("bs")
        if not sizes or max(sizes) < chunk:
            return ("Muse MegaMoE under a breakable prefill CUDA graph needs the largest "
                    f"prefill capture size to cover --chunked-prefill-size {chunk}")
    return None


# SGLang 0.5.21/0.5.22 layers/layernorm_sp.py: Qwen3 alone, and no Muse Spark paths
SUPPORTED_BEFORE_0_5_23 = frozenset({"Qwen3ForCausalLM"})


def _checks_before_0_5_23(v: View, *, pipeline: bool) -> Refuse | None:
    if not v.enable_layernorm_sp:
        return None
    arch = v.model.arch0
    if arch not in SUPPORTED_BEFORE_0_5_23:
        return Refuse("--enable-layernorm-sp supports Qwen3ForCausalLM only in this release; "
                      f"this model is {arch}")
    if v.tp_size <= 1:
        return Refuse("--enable-layernorm-sp needs --tp-size above 1: one rank has no "
                      "sequence to shard")
    if v.attn_dp_size > 1 or (pipeline and v.ep_join_mode == "scale"):
        return Refuse("--enable-layernorm-sp does not work with attention DP: the TP group "
                      "would hold different sequences")
    if v.speculative_algorithm is not None:
        return Refuse("--enable-layernorm-sp does not work with speculative decoding: the "
                      "captured hidden states would be sequence-sharded")
    if pipeline and v.pp_size > 1:
        return Refuse("--enable-layernorm-sp does not work with pipeline parallelism")
    return None


@rule(
    name="layernorm_sp_checks", variant="0.5.22",
    phase=Phase.SPECULATIVE,
    reads=("enable_layernorm_sp", "tp_size", "attn_dp_size", "ep_join_mode",
           "speculative_algorithm", "pp_size"),
    facts=("model.arch0",),
    sglang="handle_layernorm_sp (0.5.22 validate_layernorm_sp)",
    triggers=("enable_layernorm_sp",),
)
def layernorm_sp_checks_0_5_22(v: View) -> Refuse | None:
    """0.5.22: LayerNorm SP on Qwen3 only, over one sequence per TP group.

    When: ``--enable-layernorm-sp`` is given.
    Effect: refuses an architecture other than Qwen3ForCausalLM, TP 1, attention DP (or an
        elastic-EP scale joiner), any speculative decoding, and PP above 1.
    Why: as in 0.5.23, the sequence is sharded across the whole TP group; 0.5.22's list of
        architectures with a sequence-sharded region holds Qwen3 alone.
    Assumes: nothing.
    """
    return _checks_before_0_5_23(v, pipeline=True)


@rule(
    name="layernorm_sp_checks", variant="0.5.21",
    phase=Phase.SPECULATIVE,
    reads=("enable_layernorm_sp", "tp_size", "attn_dp_size", "speculative_algorithm"),
    facts=("model.arch0",),
    sglang="handle_layernorm_sp (0.5.21 validate_layernorm_sp)",
    triggers=("enable_layernorm_sp",),
)
def layernorm_sp_checks_0_5_21(v: View) -> Refuse | None:
    """0.5.21: LayerNorm SP on Qwen3 only, without attention DP or speculation.

    When: ``--enable-layernorm-sp`` is given.
    Effect: refuses an architecture other than Qwen3ForCausalLM, TP 1, attention DP and any
        speculative decoding (0.5.21 has no pipeline or elastic-EP check here).
    Why: as in 0.5.22; 0.5.21 reads attention DP from its own switch, which launchplan holds
        as ``attn_dp_size``.
    Assumes: 0.5.21's ``--enable-dp-attention`` with one group counts as no attention DP.
    """
    return _checks_before_0_5_23(v, pipeline=False)
