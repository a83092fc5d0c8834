"""Launch-shape requirements: what SGLang only finds out once processes start.

SGLang 0.5.23's resolution accepts a tensor-parallel size that does not divide the heads, or
more GPUs than the host has; the launch then dies in a scheduler process (device ordinal,
model construction, memory-pool sizing). These rows say so before anyone rents the GPUs.
Each names the SGLang code that fails, and when.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from launchplan.checks.predicates import ALWAYS, Plan, Requirement, Severity, Values, cond
from launchplan.facts import environment
from launchplan.facts.memo import per_object
from launchplan.facts.model_classes import (
    backend_compatible,
    everywhere,
    lacks_plan,
    registered,
    releases,
    transformers_pin,
)
from launchplan.facts.models.class_traits import pp_refusal
from launchplan.facts.models.draft_blocks import dspark_settings
from launchplan.facts.models.hf_classes import (
    first_reading_transformers,
    pinned_config_types,
    read_by_every_release,
)
from launchplan.facts.models.snapshots import restructured
from launchplan.facts.quantization import quantization_verdict
from launchplan.facts.vision import vision_class
from launchplan.input.hisparse_config import hisparse_settings
from launchplan.numbers import finite

START = Severity.FAILS_AT_START
DEGRADED = Severity.DEGRADED
SRT = "sglang/srt/"
LINEAR = SRT + "layers/linear.py (divide() asserts an even split)"

#: Models whose attention layers split heads over the whole TP group, even under attention
#: DP (``models/llama.py``, ``models/qwen2.py``); others split over the attention-TP group.
FULL_TP_ATTENTION = frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"})
#: Config keys that hold the number of routed experts, in SGLang's families.
EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")


def _int(value: Any, default: int = 1) -> int:
    return value if type(value) is int else default  # not a bool, nor a float


def _text(p: Values) -> Mapping[str, Any]:
    cfg = getattr(p.model, "text_config", None)
    return cfg if isinstance(cfg, Mapping) else {}


def _positive(p: Values, name: str) -> int:
    """A parallel size as SGLang uses it, or 0 when it is not a positive integer."""
    value = _int(p[name], 1)
    return value if value >= 1 else 0


# --- GPUs --------------------------------------------------------------------------------------


def gpus_used(p: Values) -> tuple[int, int]:
    """(highest GPU index a rank binds on this node, + 1; GPUs per replica on this node).

    Without attention DP, ``dp_size`` replicas of tp x pp ranks each take their own GPUs
    (``data_parallel_controller.py``); attention DP lives inside the tp x pp group. Ranks of
    one replica bind ``base_gpu_id + pp_rank_on_node * tp_on_node + tp_rank * gpu_id_step``
    (``engine.py``); replicas shift by tp x pp x gpu_id_step.
    """
    tp, pp, nnodes, dp = p["tp_size"], p["pp_size"], p["nnodes"], p["dp_size"]
    attn_dp, step, base = p["attn_dp_size"], p["gpu_id_step"], p["base_gpu_id"]
    # ``_positive``, ``_int`` and the floors inline: the memory plan asks on every launch
    tp = (tp if tp >= 1 else 0) if type(tp) is int else 1
    pp = (pp if pp >= 1 else 0) if type(pp) is int else 1
    nnodes = nnodes if type(nnodes) is int and nnodes > 1 else 1
    dp = dp if type(dp) is int and dp > 1 else 1
    replicas = dp if (attn_dp if type(attn_dp) is int else 1) <= 1 else 1
    step = step if type(step) is int and step > 1 else 1
    base = base if type(base) is int and base > 0 else 0
    pp_node = pp // nnodes if pp // nnodes > 1 else 1
    spread = nnodes // pp if pp > 1 else nnodes  # nodes a pipeline stage spans
    tp_node = tp // spread if spread > 1 else tp
    if tp_node < 1:
        tp_node = 1
    top = base + (replicas - 1) * tp * pp * step + (pp_node - 1) * tp_node + (tp_node - 1) * step
    return top + 1, tp_node * pp_node * replicas


def _context_ok(p: Values) -> bool:
    context = p.model.context_len
    return not isinstance(context, int) or context >= 2


def _gpus_fit(p: Values) -> bool:
    return gpus_used(p)[0] <= p.target.gpu_count


def _gpus_detail(p: Values) -> str:
    top, count = gpus_used(p)
    shape = f"tp {p['tp_size']} x pp {p['pp_size']}"
    if _int(p["dp_size"], 1) > 1 and _int(p["attn_dp_size"], 1) <= 1:
        shape += f" x dp {p['dp_size']} replicas"
    if _int(p["nnodes"], 1) > 1:
        shape += f" over {p['nnodes']} nodes"
    need = f"{count} GPUs" if top == count else f"GPU index {top - 1}"
    return (f"{shape} needs {need} on this node; {p.target.name} has "
            f"{p.target.gpu_count}")


# --- attention heads ---------------------------------------------------------------------------


def attention_tp(p: Values) -> int:
    """The TP width attention heads are split over, as the model's attention layer does it."""
    tp = _positive(p, "tp_size") or 1
    if p.model.arch0 in FULL_TP_ATTENTION:
        return tp
    return max(1, tp // max(1, _int(p["attn_dp_size"], 1)) // max(1, _int(p["attn_cp_size"], 1)))


# The split rows below hold on ``--device cpu`` whatever the TP size: there SGLang's model
# runner pads the model to the TP size (query and KV heads, every MLP and expert
# intermediate width: ``configs/update_config.py`` adjust_config_with_unaligned_cpu_tp,
# called by ``ModelRunner`` when the device is the CPU). The experts' count over EP is not
# padded.


def _heads_split(p: Values) -> bool:
    heads = p.model.num_attention_heads
    if not heads or p["device"] == "cpu":
        return True  # padded on the CPU (see above)
    attn_tp = attention_tp(p)
    if heads % attn_tp:
        return False
    if p.model.is_mla:
        return True  # MLA has no KV heads to split
    kv = p.model.total_num_kv_heads
    if not kv:
        return True
    return kv % attn_tp == 0 if kv >= attn_tp else attn_tp % kv == 0


def _heads_detail(p: Values) -> str:
    m, attn_tp = p.model, attention_tp(p)
    if m.num_attention_heads % attn_tp:
        return (f"{m.num_attention_heads} attention heads do not split over attention TP "
                f"{attn_tp}")
    kv = m.total_num_kv_heads
    if kv >= attn_tp:
        return f"{kv} KV heads do not split over attention TP {attn_tp}"
    return (f"attention TP {attn_tp} is not a multiple of the {kv} KV heads, so they cannot "
            "be replicated evenly")


# --- MoE and dense MLP -------------------------------------------------------------------------


def experts(p: Values) -> int:
    return _mlp_facts(p.model)[0]


def routed_experts(model: Any) -> int:
    """Routed experts per MoE layer in a model's text config (0: no MoE layers)."""
    return _mlp_facts(model)[0]


@per_object
def _mlp_facts(model: Any) -> tuple[int, int, int, bool]:
    """(routed experts, MoE intermediate size, dense intermediate size, has a dense MLP) of
    a model's text config: per-model facts, read once, not once per plan."""
    cfg = getattr(model, "text_config", None)
    text: Mapping[str, Any] = cfg if isinstance(cfg, Mapping) else {}
    n = next((v for k in EXPERT_KEYS if type(v := text.get(k)) is int and v > 0), 0)
    moe = text.get("moe_intermediate_size") or text.get("intermediate_size")
    dense = text.get("intermediate_size")
    return (n, moe if isinstance(moe, int) and moe > 0 else 0,
            dense if type(dense) is int and dense > 0 else 0, _has_dense_mlp(model, text))


def moe_tp(p: Values) -> int:
    """SGLang's MoE TP width: tp // ep // moe_dp (0 when ep or moe_dp exceed tp)."""
    tp = _positive(p, "tp_size") or 1
    return tp // max(1, _int(p["ep_size"], 1)) // max(1, _int(p["moe_dp_size"], 1))


def _moe_intermediate(p: Values) -> int:
    return _mlp_facts(p.model)[1]


def _redundant(p: Values) -> int:
    """``--ep-num-redundant-experts``: replicas an MoE layer builds beside the routed
    experts (SGLang's MoE families size their expert layer as routed + redundant, and the
    EP ranks split that physical count)."""
    r = p["ep_num_redundant_experts"]
    return r if type(r) is int and r > 0 else 0


def _moe_split(p: Values) -> bool:
    n, ep, width = experts(p), max(1, _int(p["ep_size"], 1)), moe_tp(p)
    if width < 1:
        return False
    inter = _moe_intermediate(p)  # (padded on the CPU)
    return (n + _redundant(p)) % ep == 0 and (
        not inter or inter % width == 0 or p["device"] == "cpu")


def _moe_detail(p: Values) -> str:
    n, ep, width = experts(p), max(1, _int(p["ep_size"], 1)), moe_tp(p)
    if width < 1:
        return (f"ep_size {ep} is wider than tp_size {p['tp_size']}: the MoE TP width "
                "tp // ep // moe_dp is 0")
    if (n + (r := _redundant(p))) % ep:
        extra = f" + {r} redundant" if r else ""
        return f"{n} routed{extra} experts do not split over ep_size {ep}"
    return (f"moe_intermediate_size {_moe_intermediate(p)} does not split over the MoE TP "
            f"width {width} (tp // ep // moe_dp)")


def _has_dense_mlp(m: Any, text: Mapping[str, Any]) -> bool:
    if not any(isinstance(text.get(k), int) and text.get(k) for k in EXPERT_KEYS):
        return True
    return bool(text.get("first_k_dense_replace")) or bool(text.get("mlp_only_layers"))


def _dense_width(p: Values) -> int:
    if p["moe_dense_tp_size"] == 1 and experts(p):
        return 1  # DeepSeek-style dense layers replicated
    return _positive(p, "tp_size") or 1


def _dense_split(p: Values) -> bool:
    _, _, inter, dense = _mlp_facts(p.model)
    if not inter or not dense or p["device"] == "cpu":
        return True  # padded on the CPU
    return inter % _dense_width(p) == 0


# --- values ------------------------------------------------------------------------------------


def _fraction_ok(p: Values) -> bool:
    value = p["mem_fraction_static"]
    if value is None:
        return True
    return finite(value) and 0 < value < 1


def _draft_context_ok(p: Values) -> bool:
    draft = p.draft
    if draft is None or p["speculative_algorithm"] is None:
        return True
    if environment.longer_context_allowed(p.env):
        return True
    return draft.derived_context_len >= p.model.context_len


def _device_ok(p: Values) -> bool:
    return p["device"] in (None, "cuda", "cpu")


def _page_ok(p: Values) -> bool:
    page = p["page_size"]
    return page is None or (isinstance(page, int) and page >= 1)


def _memory(p: Values) -> Any:
    if not isinstance(p, Plan):
        return None
    return _memory_plan()(p.result)


@cache
def _memory_plan() -> Any:
    """``memory.plan.memory_plan``, imported once when first asked (not with this table:
    the memory modules import it)."""
    from launchplan.memory.plan import memory_plan

    return memory_plan


def _memory_fits(p: Values) -> bool:
    plan = _memory(p)
    return plan is None or plan.fits


def _memory_detail(p: Values) -> str:
    from launchplan.memory.kv_pool import NO_CAPTURE_SIZE

    plan = _memory(p)
    if plan.problem and plan.problem.startswith(NO_CAPTURE_SIZE):
        return plan.problem  # the pool is sized; CUDA-graph capture is what stops
    gib = 1 << 30
    return (f"{plan.problem}: weights take {plan.weights_bytes / gib:.1f} GiB of the "
            f"{plan.before_load_bytes / gib:.1f} GiB free before loading, and "
            f"{plan.reserved_bytes / gib:.1f} GiB stay in reserve; SGLang stops while sizing "
            "the memory pool")


def _table_room(p: Values) -> tuple[int, int] | None:
    """(the request-to-token table's bytes, what the weights and the KV pool leave of the
    memory free before loading) when the table does not fit in it; None when it fits or
    there is no plan to tell."""
    plan = _memory(p)
    if plan is None or not plan.fits:
        return None
    table = plan.req_to_token_bytes
    if table <= plan.reserved_bytes:  # the common case: it fits in the reserve
        return None
    from launchplan.memory.plan import load_overhead_bytes

    left = (plan.before_load_bytes - plan.weights_bytes - plan.draft_weights_bytes
            - load_overhead_bytes(p.target) - plan.kv_pool_bytes)
    return None if table <= left else (table, left if left > 0 else 0)


def _table_fits(p: Values) -> bool:
    return _table_room(p) is None


def _table_detail(p: Values) -> str:
    table, left = _table_room(p) or (0, 0)
    plan = _memory(p)
    gib = 1 << 30
    return (f"the request-to-token table (an int32 row of the context length "
            f"{plan.context_len:,} and a few slots for each of {plan.max_running_requests:,} "
            f"requests and a padding row) takes "
            f"{table / gib:.2f} GiB, but the weights and the KV pool leave "
            f"{left / gib:.2f} GiB of the {plan.before_load_bytes / gib:.1f} GiB free before "
            "loading: SGLang runs out of memory building it; a shorter --context-length or "
            "fewer --max-running-requests shrinks it")


def _pool_capacity(p: Values) -> tuple[int, int] | None:
    """(the tokens a request can draw on, the context length) when SGLang compares them:
    a plan that fits, with one token pool (a hybrid SWA model's full-attention pool), not
    unified memory and not DCP's page-interleaved pool (which counts tokens otherwise)."""
    plan = _memory(p)
    if plan is None or not plan.fits or plan.context_len <= 0 \
            or p["enable_unified_memory"] or _int(p["dcp_size"], 1) > 1:
        return None
    tokens = plan.extra.get("full_max_total_num_tokens") or plan.max_total_num_tokens
    return (tokens, plan.context_len) if tokens > 0 else None


def _pool_holds_context(p: Values) -> bool:
    found = _pool_capacity(p)
    return found is None or found[0] >= found[1]


def _pool_detail(p: Values) -> str:
    tokens, context = _pool_capacity(p) or (0, 0)
    return (f"the KV pool holds {tokens:,} tokens, fewer than the context length {context:,}: "
            f"a request is capped at {tokens - 1:,} tokens, so a longer one is refused or "
            "truncated")



def _dspark_markov_rank(p: Values) -> Any:
    """The Markov rank a DSPARK draft's config gives, read where this release reads it:
    ``dspark_markov_rank``, else ``markov_rank`` in the nested DSpark settings (0.5.23 reads
    ``dflash_config``, where published drafts keep it, overlaid by ``dspark_config``;
    0.5.21-0.5.22 read ``dspark_config`` only), else in the text config or at the top level,
    else 0. None: no draft config is known."""
    draft = p.draft
    if draft is None and p["speculative_draft_model_path"] == p["model_path"]:
        draft = p.model
    config = getattr(draft, "config", None)
    if not isinstance(config, Mapping):
        return None
    if config.get("dspark_markov_rank") is not None:
        return config["dspark_markov_rank"]
    nested = dspark_settings(config, p.result.record.raw.release)
    text = config.get("text_config") if isinstance(config.get("text_config"), Mapping) \
        else config
    return nested.get("markov_rank", text.get("markov_rank", config.get("markov_rank", 0)))


def _dspark_markov_ok(p: Values) -> bool:
    rank = _dspark_markov_rank(p)
    if rank is None:
        return True
    try:
        return int(rank) > 0
    except (TypeError, ValueError, OverflowError):
        return False


def _dflash_layers(p: Values) -> tuple[list[Any], int] | None:
    """(the target layers a DFLASH-family draft's config says it reads, the target's
    layers x loops), or None where either is not known or the draft names none."""
    draft = p.draft
    config = getattr(draft, "config", None)
    if not isinstance(config, Mapping):
        return None
    nested = config.get("dflash_config")
    nested = nested if isinstance(nested, Mapping) else {}
    ids = nested.get("target_layer_ids", config.get("target_layer_ids"))
    text = _text(p)
    layers = text.get("num_hidden_layers", getattr(p.model, "num_hidden_layers", None))
    loops = text.get("num_loops", 1)
    if not isinstance(ids, (list, tuple)) or type(layers) is not int or type(loops) is not int:
        return None
    return list(ids), layers * loops


def _dflash_layers_ok(p: Values) -> bool:
    found = _dflash_layers(p)
    if found is None:
        return True
    ids, layers = found
    return all(type(i) is int and 0 <= i < layers for i in ids)


#: MTP-by-default targets (``arg_groups/speculative_hook.py`` _handle_eagle_family points the
#: draft at the target's own checkpoint) whose NextN draft loader needs
#: ``num_nextn_predict_layers`` to be 1: the loader source, and the value SGLang's config
#: object holds when the file leaves the key out (None: no such attribute, a ValueError;
#: ``_UNKNOWN``: a class default launchplan does not know, so no verdict)
_UNKNOWN = object()
_DEEPSEEK_NEXTN = "models/deepseek_common/deepseek_weight_loader.py: _initialize_nextn_conf"
NEXTN_KEY_LOADERS: Mapping[str, tuple[str, Any]] = {
    # (transformers 5's DeepseekV3Config maps num_mtp_layers, default 1, onto the key; 0.5.23
    # aliases V3.2's config to it)
    "DeepseekV3ForCausalLM": (_DEEPSEEK_NEXTN, 1),
    "DeepseekV32ForCausalLM": (_DEEPSEEK_NEXTN, 1),
    "GlmMoeDsaForCausalLM": (_DEEPSEEK_NEXTN, _UNKNOWN),
    "Glm4MoeForCausalLM": ("models/glm4_moe.py: Glm4MoeForCausalLM.load_weights", 1),
    # (transformers 5's Glm4MoeLiteConfig declares no MTP count)
    "Glm4MoeLiteForCausalLM": ("models/glm4_moe_lite.py: Glm4MoeLiteForCausalLM.load_weights",
                               None),
    # (Ling v1's remote config class declares none; Ling 2.0's remote class is not known)
    "BailingMoeForCausalLM": ("models/bailing_moe.py: BailingMoEForCausalLM.load_weights",
                              None),
    "BailingMoeV2ForCausalLM": ("models/bailing_moe.py: BailingMoEForCausalLM.load_weights",
                                _UNKNOWN),
    # (SGLang's own BailingHybridConfig defaults the key to 0)
    "BailingMoeV2_5ForCausalLM": ("models/bailing_moe_linear.py: "
                                  "BailingMoeV2_5ForCausalLM.load_weights", 0),
}
#: algorithms whose draft is the target's own MTP layers when no draft checkpoint is given
_OWN_DRAFT_ALGOS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "MTP"})


def _own_nextn_draft(p: Values) -> bool:
    """An EAGLE-family launch on an MTP-by-default target with no draft checkpoint of its
    own (SGLang points the draft at the target's path, then loads it as the NextN class)."""
    if getattr(p.model, "arch0", None) not in NEXTN_KEY_LOADERS:
        return False  # a fact, read first: other models' tables leave the row out (no value read)
    algo = p["speculative_algorithm"]
    if not isinstance(algo, str) or algo.upper() not in _OWN_DRAFT_ALGOS:
        return False
    return p["speculative_draft_model_path"] in (None, p["model_path"])


def _nextn_count(p: Values) -> Any:
    """``num_nextn_predict_layers`` as the draft loader finds it (``NEXTN_KEY_LOADERS``)."""
    text = _text(p)
    if "num_nextn_predict_layers" in text:
        return text["num_nextn_predict_layers"]
    return NEXTN_KEY_LOADERS[p.model.arch0][1]


def _nextn_count_ok(p: Values) -> bool:
    count = _nextn_count(p)
    return count is _UNKNOWN or (type(count) is int and count == 1)


def _nextn_count_detail(p: Values) -> str:
    count = _nextn_count(p)
    said = ("config.json has no num_nextn_predict_layers" if count is None
            else f"num_nextn_predict_layers reads as {count!r}")
    return (f"{p.model.arch0}'s NextN draft loader needs num_nextn_predict_layers 1 "
            f"({NEXTN_KEY_LOADERS[p.model.arch0][0]}); {said}: give a separate draft with "
            "--speculative-draft-model-path, or use --speculative-algorithm NGRAM")


def _hisparse_problem(p: Values) -> str | None:
    """Why the scheduler stops on this launch's ``--hisparse-config``, or None."""
    settings = hisparse_settings(p["hisparse_config"])
    if settings.problem is not None:
        return settings.problem
    ratio = settings.host_to_device_ratio
    if str(getattr(p.model, "arch0", "")).startswith("DeepseekV4"):
        try:
            if ratio >= 1:
                return None
        except TypeError:
            pass
        return (f"--hisparse-config: DeepSeek-V4 shrinks its ratio-4 pool by "
                f"host_to_device_ratio, which must be a number of at least 1: got {ratio!r}")
    return None


def _hisparse_detail(p: Values) -> str:
    return f"{_hisparse_problem(p)}; every scheduler stops when it builds the sparse KV pools"


def _pure_mamba2(p: Values) -> bool:
    """A plain Mamba-2 stack (Mamba-Codestral), sized by SGLang's own config class."""
    return getattr(p.model, "model_type", None) == "mamba2"


#: SGLang's transformers-format LLaVA class (``models/llava.py``
#: ``LlavaForConditionalGeneration``; Mistral 3's class builds through it) and the vision
#: config types whose transformers model class its registry holds a native SGLang class for
#: (0.5.21-0.5.23: only ``pixtral.py``'s ``PixtralVisionModel``; CLIP's and SigLIP's towers
#: have none, ``clip.py`` registers ``CLIPModel`` alone)
LLAVA_HF_CLASSES = frozenset({"LlavaForConditionalGeneration",
                              "Mistral3ForConditionalGeneration"})
NATIVE_LLAVA_TOWERS = frozenset({"pixtral"})


def _llava_hf(p: Values) -> bool:
    return getattr(p.model, "arch0", None) in LLAVA_HF_CLASSES


def _llava_tower_type(p: Values) -> str | None:
    """The vision config class transformers builds for the checkpoint's ``vision_config``
    (LlavaConfig's default, CLIP's, when the file has none)."""
    config = getattr(p.model, "config", None) or {}
    vision = config.get("vision_config") if isinstance(config, Mapping) else None
    return vision_class(getattr(p.model, "model_type", None),
                        vision if isinstance(vision, Mapping) else {})


#: SGLang's own LLaVA classes (``models/llava.py``), which load their tower by the name in
#: ``mm_vision_tower``
LLAVA_NAMED_CLASSES = frozenset({"LlavaLlamaForCausalLM", "LlavaQwenForCausalLM",
                                 "LlavaMistralForCausalLM"})


def _named_tower(p: Values) -> Any:
    config = getattr(p.model, "config", None)
    return config.get("mm_vision_tower") if isinstance(config, Mapping) else None


def _named_tower_loads(p: Values) -> bool:
    name = _named_tower(p)
    return isinstance(name, str) and ("clip" in name or "siglip" in name)


#: SGLang model classes that read RoPE settings in a form the config class a release gives
#: them does not hold, so the model cannot be built: architecture -> (the releases verified
#: so, whether the checkpoint's own config class under ``--trust-remote-code`` avoids it, the
#: mismatch). 0.5.22 and 0.5.23 pin transformers 5.19.
ROPE_CONFIG_BREAKS: dict[str, tuple[frozenset[str], bool, str]] = {
    # models/mimo_v2.py hands config.rope_scaling to get_rope as one mapping; transformers
    # 5.19's own MiMoV2FlashConfig nests the RoPE parameters per layer type (full and sliding
    # attention), which get_rope's cache key cannot hash; the published checkpoint's own
    # config class (auto_map) keeps them flat
    "MiMoV2FlashForCausalLM": (frozenset({"0.5.22", "0.5.23"}), True,
                               "transformers' own config class nests the RoPE parameters "
                               "per layer type, which the model's RoPE cache cannot take"),
    # models/longcat_flash.py tests "rope_theta" in config.rope_parameters; SGLang's own
    # LongcatFlashConfig (configs/longcat_flash.py, read whatever --trust-remote-code says)
    # keeps rope_theta and leaves rope_parameters None under transformers 5.19
    "LongcatFlashForCausalLM": (frozenset({"0.5.22", "0.5.23"}), False,
                                "SGLang's own config class leaves rope_parameters unset "
                                "(None), which the model's attention layers test for "
                                "rope_theta"),
}


def _rope_break(p: Values) -> tuple[frozenset[str], bool, str] | None:
    row = ROPE_CONFIG_BREAKS.get(getattr(p.model, "arch0", None) or "")
    return row if row is not None and p.result.record.raw.release in row[0] else None


def _rope_avoided(p: Values) -> bool:
    row = _rope_break(p)
    return row is None or (row[1] and bool(p["trust_remote_code"]))


def _rope_detail(p: Values) -> str:
    row = _rope_break(p)
    why = row[2] if row else ""
    fix = ("; with --trust-remote-code the published checkpoint's own config class (its "
           "auto_map) avoids it" if row and row[1] else "; no flag avoids it")
    return f"{p.model.arch0} on SGLang {p.result.record.raw.release}: {why}{fix}"


@per_object
def _archs(model: Any) -> tuple[str, ...]:
    """The names SGLang's loader reads, or ``()`` where none can send the checkpoint to the
    transformers backend: an EmbeddingGemma checkpoint is built as EmbeddingGemmaModel, which
    every release registers, and a shipped copy whose vendor renamed the class (``restructured``)
    says nothing of the checkpoint's."""
    if getattr(model, "is_embedding_gemma", False) \
            or restructured(getattr(model, "config_file", "")):
        return ()
    return tuple(getattr(model, "architectures", None) or ())


def _config_types(model: Any) -> set[str]:
    """The model types whose transformers config classes the backend reads its plans from."""
    return {t for t in (getattr(model, "model_type", None),
                        getattr(model, "text_model_type", None)) if t is not None}


def _planless(model: Any, release: str, split: str) -> bool:
    types = _config_types(model)
    return bool(types) and all(lacks_plan(t, release, split) for t in types)


@per_object
def _backend_safe(model: Any) -> bool:
    """Whether no release and no --model-impl can send this checkpoint down a failing
    transformers-backend path: a name every release registers, a first name whose
    transformers class takes the attention backend in every pinned version (or is not in
    transformers), and tensor- and pipeline-parallel plans in its transformers config class.
    Read from the model alone, so the row costs nothing for such checkpoints
    (``requirements._learn_table`` drops a row that held while reading no value)."""
    archs = _archs(model)
    if not archs:
        return True
    common = everywhere()
    if not any(a in common for a in archs):
        return False
    return all(backend_compatible(archs[0], release) is not False
               and not _planless(model, release, "tp") and not _planless(model, release, "pp")
               for release in releases())


def _fallback_archs(p: Values) -> tuple[str, ...]:
    """The checkpoint's architectures when the plan's SGLang release has a class of its own
    for none of them (the transformers backend then serves it), else ``()``."""
    archs = _archs(p.model)
    if not archs:
        return ()
    native = registered(p.result.record.raw.release)
    return () if any(a in native for a in archs) else archs


def _backend_refusals(p: Values) -> list[str]:
    """Why SGLang's transformers backend stops on this checkpoint, one reason per name
    (empty: it does not, or SGLang's own class serves it, or --model-impl mindspore takes
    another path). The loader's gate runs over every name when no release class exists;
    the backend's class then checks the first name's transformers class when it is built,
    whichever way it was reached (no own class, or --model-impl transformers)."""
    impl = p["model_impl"]
    archs = _archs(p.model)
    if impl == "mindspore" or not archs:
        return []
    fallback = _fallback_archs(p)
    forced = impl == "transformers"
    if not fallback and not forced:
        return []
    release = p.result.record.raw.release
    out = []
    if fallback:
        config = getattr(p.model, "config", None) or {}
        auto_map = config.get("auto_map") if isinstance(config, Mapping) else None
        remote = isinstance(auto_map, Mapping) and "AutoModel" in auto_map
        for arch in fallback:
            if arch.startswith("Transformers"):
                continue
            compatible = backend_compatible(arch, release)
            if compatible is None and not forced and not remote:
                out.append(f"{arch} is neither an SGLang class nor a transformers one, and the "
                           "config's auto_map names no AutoModel")
            elif compatible is False and impl == "auto":
                out.append(f"transformers' {arch} takes no pluggable attention backend")
        if out:
            return out
    if not archs[0].startswith("Transformers") \
            and backend_compatible(archs[0], release) is False:
        out.append(f"transformers' {archs[0]} takes no pluggable attention backend, and the "
                   "backend's model class refuses to build around it")
        return out
    for field, flag, split, what in (("tp_size", "--tp-size", "tp", "tensor"),
                                     ("pp_size", "--pp-size", "pp", "pipeline")):
        size = _int(p[field], 1)
        if size > 1 and _planless(p.model, release, split):
            out.append(f"transformers' {p.model.model_type} model has no {what}-parallel "
                       f"plan, and {flag} is {size}")
    uncounted = _experts_uncounted(p.model)
    if uncounted:
        out.append(uncounted)
    return out


#: What SGLang's model loader takes as a MoE config (``model_loader/utils.py``
#: ``_is_moe_model``): a text-config attribute above its threshold, or an architecture name
#: holding "moe" or "mixtral"
_MOE_SIGNS = (("num_local_experts", 1), ("num_experts", 1), ("num_experts_per_tok", 1),
              ("moe_intermediate_size", 0), ("n_routed_experts", 1))
#: Where the transformers backend's MoE class reads the experts' count
#: (``models/transformers.py`` MoEMixin.recursive_replace), the first one set winning
_EXPERT_COUNTS = ("num_local_experts", "num_experts", "n_routed_experts")


def _experts_uncounted(model: Any) -> str:
    """Why the transformers backend's MoE class cannot build this checkpoint: the loader
    takes it for MoE, and its text config names the experts' count under none of the names
    the class reads (Aria's ``moe_num_experts``); "" otherwise."""
    config = getattr(model, "config", None)
    if not isinstance(config, Mapping):
        return ""
    archs = [a.lower() for a in _archs(model)]
    signs = [name for name, floor in _MOE_SIGNS if (value := config.get(name)) is not None
             and (value is True or (type(value) in (int, float) and value > floor))]
    if not signs and not any("moe" in a or "mixtral" in a for a in archs):
        return ""
    if any(config.get(name) is not None for name in _EXPERT_COUNTS):
        return ""
    named = [k for k in config if "expert" in k and "per_tok" not in k
             and k not in _EXPERT_COUNTS]
    said = f" (it says {', '.join(named[:2])})" if named else ""
    return ("the backend builds it as a MoE model" + (f" ({signs[0]} is set)" if signs else "")
            + f", and its config names the experts' count under none of "
            f"{', '.join(_EXPERT_COUNTS)}{said}, which the backend's MoE class reads")


def _backend_detail(p: Values) -> str:
    release = p.result.record.raw.release
    fallback = _fallback_archs(p)
    how = (f"SGLang {release} has no class of its own for {', '.join(fallback)} and falls "
           "back to its transformers backend" if fallback else
           f"--model-impl transformers serves {p.model.arch0} through SGLang {release}'s "
           "transformers backend")
    return (f"{how} (transformers {transformers_pin(release)}, the version it pins): "
            f"{'; '.join(_backend_refusals(p))}")


def _type_read_everywhere(model: Any) -> bool:
    """Whether every release reads the checkpoint's top-level ``model_type`` under its pinned
    transformers (one set lookup: the row then holds from the model alone and drops out of
    its plans' tables). A type not even transformers 5.24 knows is the resolution's
    (``remote_code_needs_trust``): with --trust-remote-code its own code reads it."""
    return not getattr(model, "model_type_known", True) \
        or getattr(model, "model_type", None) in read_by_every_release()


def _remote_config(model: Any) -> bool:
    """The config's ``auto_map`` names an ``AutoConfig`` (transformers' remote-code test)."""
    config = getattr(model, "config", None)
    auto_map = config.get("auto_map") if isinstance(config, Mapping) else None
    return isinstance(auto_map, Mapping) and "AutoConfig" in auto_map


def _config_type_read(p: Values) -> bool:
    """The plan's release reads the top-level ``model_type``: its pinned transformers knows
    it, the release registers a class for it, or the checkpoint's own configuration code
    reads it (an ``auto_map`` AutoConfig and --trust-remote-code)."""
    types = pinned_config_types(p.result.record.raw.release)
    if types is None or p.model.model_type in types:
        return True
    return _remote_config(p.model) and bool(p["trust_remote_code"])


def _config_type_detail(p: Values) -> str:
    release = p.result.record.raw.release
    model_type = p.model.model_type
    pin = transformers_pin(release)
    newer = first_reading_transformers(model_type, release)
    if newer is None:
        fix = "a newer transformers than the pin"
    elif newer[1]:
        fix = f"transformers {newer[0]} or newer (the first minor release that knows it)"
    else:
        fix = f"a newer transformers than the pin ({newer[0]} knows it)"
    remote = (", or by --trust-remote-code with the checkpoint's configuration code (the "
              "config's auto_map names an AutoConfig)" if _remote_config(p.model) else
              "; not by --trust-remote-code, as the config's auto_map names no AutoConfig")
    return (f"model_type {model_type!r} (config.json, top level) is neither a type "
            f"transformers {pin} knows (the version SGLang {release} pins: what pip install "
            f"sglang=={release} brings) nor one SGLang {release} registers, so reading the "
            f"config stops before the model is built; avoided by {fix}{remote}")


def _quantization_served(p: Values) -> bool:
    """The final ``quantization`` passes the model config's check the scheduler runs."""
    verdict = quantization_verdict(p.model, p["quantization"], p.target)
    return verdict is None or verdict[0] is None


def _quantization_detail(p: Values) -> str:
    verdict = quantization_verdict(p.model, p["quantization"], p.target)
    refusal = verdict[0] if verdict else None
    return (f"quantization {p['quantization']!r}, chosen after resolution first checked the "
            f"checkpoint, is refused when the scheduler builds the model config on "
            f"{p.target.name}: {refusal}")


#: Per model type: (the keys its SGLang config class reads the geometry from, the keys of a
#: newer config.json schema that class does not translate). A file with keys of the second
#: kind and none of the first is read with the class's defaults in their place: the model is
#: built with another geometry than the checkpoint's, whose tensors then do not load. ZAYA1:
#: every release's ``configs/zaya.py`` ZayaConfig reads the Megatron-style
#: ``ffn_hidden_size``/``cca``; the transformers-native file (``moe_intermediate_size``,
#: ``layer_types``, ``rope_parameters``) keeps ``ffn_hidden_size`` 4096, ``rope_theta`` 1e6
#: and reads the 40 hybrid layers as 20 attention and 20 MoE ones (instantiated on 0.5.23;
#: SGLang's later unit test of the translation says such a file cannot load the checkpoint).
_UNREAD_SCHEMAS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "zaya": (("ffn_hidden_size", "cca"), ("moe_intermediate_size", "layer_types")),
}


def _schema_read(model: Any) -> bool:
    """The config.json is in a schema its model type's config class reads (``_UNREAD_SCHEMAS``)."""
    keys = _UNREAD_SCHEMAS.get(getattr(model, "model_type", None) or "")
    config = getattr(model, "config", None)
    if keys is None or not isinstance(config, Mapping):
        return True
    read, newer = keys
    return any(k in config for k in read) or not any(k in config for k in newer)


def _schema_detail(p: Values) -> str:
    read, newer = _UNREAD_SCHEMAS[p.model.model_type]
    given = [k for k in newer if k in p.model.config]
    return (f"config.json gives {', '.join(given)} (a newer schema of {p.model.model_type}) and "
            f"none of {', '.join(read)}, which SGLang {p.result.record.raw.release}'s config "
            "class reads: it keeps its defaults for them, builds another geometry than the "
            "checkpoint's, and the checkpoint's tensors do not load")


def _pp_refusing_class(p: Values) -> str | None:
    """The class SGLang builds for this launch when its constructor refuses pipeline
    parallelism (``facts/data/pp_refusing_models.json``); None otherwise. Only asked with a
    pipeline (the table is not read for the usual launch)."""
    if p["model_impl"] == "transformers":  # the transformers backend builds another class
        return None
    names = registered(p.result.record.raw.release)
    for arch in getattr(p.model, "architectures", None) or ():
        if arch in names:  # the registry builds the first name it holds
            return arch if pp_refusal(arch) is not None else None
    return None


def _pp_refusal_detail(p: Values) -> str:
    arch = _pp_refusing_class(p)
    return (f"{arch} refuses pipeline parallelism while the model is built "
            f"({pp_refusal(arch)}): --pp-size {p['pp_size']} stops every rank's scheduler; "
            "launch it with --pp-size 1 (spread the GPUs with --tp-size instead)")


LAUNCH_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "gpus-on-node", ALWAYS,
        cond("every rank's GPU index exists on the node", _gpus_fit,
             "tp_size", "pp_size", "dp_size", "nnodes", "base_gpu_id", "gpu_id_step"),
        "each scheduler rank binds its own GPU; a rank whose GPU index the node lacks dies",
        START,
        SRT + "entrypoints/engine.py: _launch_scheduler_processes and "
        "managers/data_parallel_controller.py: launch_dp_schedulers place ranks; "
        "model_executor/model_runner.py: ModelRunner.__init__ fails in set_device (no "
        "device-count check in resolution or check_server_args)",
        detail=_gpus_detail),
    Requirement(
        "parallel-sizes-positive", ALWAYS,
        cond("tp_size, pp_size and dp_size are at least 1",
             lambda p: all(_int(p[f], 1) >= 1 for f in ("tp_size", "pp_size", "dp_size")),
             "tp_size", "pp_size", "dp_size"),
        "a parallel size below 1 launches no scheduler ranks", START,
        "SGLang 0.5.23 validates none of them in resolution or check_server_args; the rank "
        "ranges in entrypoints/engine.py come out empty", verified=False),
    Requirement(
        "attention-heads-split", ALWAYS,
        cond("the attention heads (and KV heads, or their replication) split evenly over "
             "attention TP (the CPU pads them)", _heads_split, "tp_size", "attn_dp_size",
             "attn_cp_size", "device"),
        "each attention-TP rank holds a whole number of query heads and of KV heads (KV heads "
        "are replicated when fewer than the ranks)", START,
        SRT + "models/llama.py: LlamaAttention.__init__ (and qwen2, qwen3, qwen3_moe, "
        "gpt_oss, deepseek_v2 for MLA) assert; " + LINEAR + ": QKVParallelLinear",
        detail=_heads_detail),
    Requirement(
        "moe-experts-split",
        cond("an MoE model", lambda p: experts(p) > 0),
        cond("experts split over ep_size and the expert width over tp // ep // moe_dp",
             _moe_split, "ep_size", "tp_size", "moe_dp_size", "device",
             "ep_num_redundant_experts"),
        "each EP rank holds whole experts (routed and redundant) and each MoE-TP rank a whole "
        "slice of them", START,
        SRT + "layers/moe/fused_moe_triton/layer.py: FusedMoE.__init__ asserts both, on the "
        "routed + --ep-num-redundant-experts count the model's MoE block builds (deepseek_v2, "
        "qwen3_moe, glm4_moe, ...); a MoE TP width of 0 divides by zero in runtime_context.py "
        "derive_spawn_ranks",
        detail=_moe_detail),
    Requirement(
        "moe-width-positive", ALWAYS,
        cond("tp_size // ep_size // moe_dp_size >= 1", lambda p: moe_tp(p) >= 1,
             "ep_size", "tp_size", "moe_dp_size"),
        "expert parallelism lives inside the TP group: an EP (times MoE-DP) wider than TP "
        "leaves a MoE-TP width of 0", START,
        SRT + "runtime_context.py: derive_parallel_widths floors tp // ep // moe_dp to 0 and "
        "derive_spawn_ranks divides by it when the scheduler processes start (for every "
        "model, MoE or not); resolution does not check it",
        detail=lambda p: (f"ep_size {p['ep_size']} x moe_dp_size {p['moe_dp_size']} is wider "
                          f"than tp_size {p['tp_size']}")),
    Requirement(
        "dense-mlp-split", ALWAYS,
        cond("intermediate_size splits over the dense MLP's TP width (the CPU pads it)",
             _dense_split, "tp_size", "moe_dense_tp_size", "device"),
        "column- and row-parallel MLP layers split intermediate_size evenly", START,
        LINEAR + ": MergedColumnParallelLinear / RowParallelLinear",
        detail=lambda p: (f"intermediate_size {_text(p).get('intermediate_size')} does not "
                          f"split over tp {_dense_width(p)}")),
    Requirement(
        "layers-per-stage", ALWAYS,
        cond("at least one layer per pipeline stage",
             lambda p: not p.model.num_hidden_layers
             or p.model.num_hidden_layers >= _int(p["pp_size"], 1), "pp_size"),
        "each pipeline stage holds at least one decoder layer", START,
        SRT + "utils/common.py: make_layers asserts num_hidden_layers >= pp_size",
        detail=lambda p: (f"pp_size {p['pp_size']} exceeds the model's "
                          f"{p.model.num_hidden_layers} layers")),
    Requirement(
        "model-pipeline-parallel",
        cond("a pipeline over stages (pp_size above 1) of a model class whose constructor "
             "refuses one (Nanbeige, SDAR, Falcon-H1, LFM2, Qwen3-Next, Hunyuan V4)",
             lambda p: _int(p["pp_size"], 1) > 1 and _pp_refusing_class(p) is not None,
             "pp_size", "model_impl"),
        cond("pp_size is 1", lambda p: _int(p["pp_size"], 1) <= 1, "pp_size"),
        "these classes assert (or raise) a pipeline of one stage while the model is built on "
        "each scheduler rank; resolution accepts --pp-size for them, so the launch dies "
        "loading the model", START,
        SRT + "models/nanbeige.py NanbeigeModel.__init__, models/sdar.py and sdar_moe.py, "
        "models/falcon_h1.py, lfm2.py, lfm2_moe.py and qwen3_next.py (the ForCausalLM "
        "constructors), models/hunyuan_v4.py HYV4Model.__init__ (the same in "
        "0.5.21-0.5.23; per class in launchplan's facts/data/pp_refusing_models.json); "
        "no server-args hook reads these classes (resolution of Nanbeige4.2-3B at "
        "--pp-size 2 accepted on the oracle)",
        detail=_pp_refusal_detail),
    Requirement(
        "draft-context",
        cond("a speculative draft model", lambda p: p.draft is not None,
             "speculative_draft_model_path"),
        cond("the draft's context length covers the target's (or "
             "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN)", _draft_context_ok,
             "context_length"),
        "the draft worker is built with the target's context length and refuses a longer "
        "one than its own config derives", START,
        SRT + "configs/model_config.py: _derive_context_length raises ValueError, via "
        "managers/tp_worker.py _init_model_config when the draft worker starts",
        detail=lambda p: (f"the draft's context length {p.draft.derived_context_len} is "
                          f"shorter than the target's {p.model.context_len}")),
    Requirement(
        "context-length-above-one", ALWAYS,
        cond("the context length is at least 2 tokens", _context_ok, "context_length"),
        "a request may hold one token less than the context length, and the worker refuses "
        "to start when that is not positive; resolution keeps any --context-length it is "
        "given", START,
        SRT + "managers/tp_worker.py: the worker asserts min(context_len - 1, pool tokens - 1) "
        "> 0 after the memory pool is allocated; configs/model_config.py: "
        "_derive_context_length keeps a non-positive length as given",
        detail=lambda p: (f"context length {p.model.context_len} leaves no room for a "
                          "request (it must be at least 2)")),
    Requirement(
        "device-on-target", ALWAYS,
        cond("the device is this GPU's (cuda) or the host CPU", _device_ok, "device"),
        "the scheduler probes the device's own runtime for its memory when it starts: an "
        "NVIDIA or AMD GPU target has no NPU, XPU, HPU, MUSA or MPS device to find", START,
        SRT + "utils/common.py: get_available_gpu_memory queries torch.xpu, torch.hpu, torch.npu, "
        "MUSA or MPS for those devices (model_executor/model_runner.py, at start-up)",
        detail=lambda p: (f"device {p['device']} on {p.target.name}, a GPU whose device "
                          "SGLang calls cuda")),
    Requirement(
        "page-size-positive", ALWAYS,
        cond("page_size >= 1", _page_ok, "page_size"),
        "the KV pool is counted in pages: 0 divides by zero, a negative size gives a "
        "negative page count", START,
        SRT + "arg_groups/validation_hook.py: check_server_args (chunk % page); "
        "model_executor/pool_configurator.py: calculate_pool_sizes; "
        "mem_cache/allocator/paged.py: PagedTokenToKVPoolAllocator",
        detail=lambda p: f"page_size {p['page_size']} is not a positive number of tokens"),
    Requirement(
        "mem-fraction-range", ALWAYS,
        cond("0 < mem_fraction_static < 1", _fraction_ok, "mem_fraction_static"),
        "the static pool takes this fraction of the memory seen before loading: at 0 or "
        "below nothing is left for the KV cache, nan and inf cannot be sized, and at 1 or "
        "above the pool claims memory activations and CUDA graphs need (above 1, more than "
        "the GPU has)", START,
        SRT + "mem_cache/kv_cache_configurator.py: _profile_available_bytes raises when no "
        "memory is left for the KV cache (nan: int() ValueError, inf: OverflowError); "
        "resolution never validates the value",
        detail=lambda p: (f"mem_fraction_static {p['mem_fraction_static']} is outside "
                          "(0, 1)")),
    Requirement(
        "memory-fits", ALWAYS,
        cond("the weights leave room for a KV pool under mem_fraction_static", _memory_fits,
             "max_total_tokens", "tp_size", "kv_cache_dtype", "mem_fraction_static",
             "context_length", "quantization"),
        "the KV pool gets what is left of the static fraction after the weights load",
        START,
        SRT + "mem_cache/kv_cache_configurator.py: _profile_available_bytes raises when the "
        "loaded weights leave no memory for the KV cache, _handle_max_mamba_cache when a "
        "hybrid model's state cache gets no slot and resolve_max_num_reqs when its slots "
        "serve no request; model_executor/pool_configurator.py: MemoryPoolConfig raises when "
        "the pool holds no token; model_executor/runner/base_cuda_graph_runner.py: "
        "get_batch_sizes_to_capture asserts when no decode batch size is a multiple of the "
        "capture alignment (attention TP under attention DP)",
        detail=_memory_detail),
    Requirement(
        "req-to-token-fits", ALWAYS,
        cond("the request-to-token table fits in what the weights and the KV pool leave",
             _table_fits, "context_length", "max_running_requests", "mem_fraction_static"),
        "SGLang builds the request-to-token table (max_running_requests + 1 rows of "
        "context length + 4 int32 slots per GPU) after sizing the KV pool, out of the memory "
        "mem_fraction_static keeps back; a long context with many requests does not fit",
        START,
        SRT + "mem_cache/kv_cache_configurator.py: _build_req_to_token_pool, after "
        "_resolve_memory_pool_config sized the pool; mem_cache/memory_pool.py: ReqToTokenPool "
        "allocates (size + 1) x max_context_len int32 on the GPU (disaggregation/decode.py: "
        "DecodeReqToTokenPool adds its pre-allocation slots); mem_cache/allocation_sizing.py: "
        "get_req_to_token_extra_context_len gives the slots beyond the context",
        detail=_table_detail),
    Requirement(
        "kv-pool-below-context", ALWAYS,
        cond("the KV pool holds at least one request at the full context length",
             _pool_holds_context, "context_length", "mem_fraction_static", "tp_size",
             "kv_cache_dtype"),
        "a request may hold one token less than the KV pool: with a pool smaller than the "
        "context, one full-length request cannot fit", DEGRADED,
        SRT + "managers/tp_worker.py: max_req_len is the smaller of context_len - 1 and the "
        "pool's tokens - 1 (every release), and get_worker_info warns when the pool is "
        "smaller than the context (0.5.23)",
        detail=_pool_detail),
    Requirement(
        "quantization-at-load", ALWAYS,
        cond("the final quantization is one this platform serves for this checkpoint",
             _quantization_served, "quantization"),
        "resolution checks the checkpoint's quantization when it first builds the model "
        "config; a method a model override sets later (MiniMax-M3.1's minimax_m3_nvfp4) is "
        "checked only when each scheduler builds the model config again from the final values",
        START,
        SRT + "configs/model_config.py: ModelConfig._verify_quantization, run by the scheduler "
        "(ROCm builds accept their own list of methods only)",
        detail=_quantization_detail),
    Requirement(
        "hisparse-config", cond("HiSparse is on", lambda p: bool(p["enable_hisparse"]),
                                "enable_hisparse"),
        cond("--hisparse-config is a JSON object whose values SGLang's sparse pools accept",
             lambda p: _hisparse_problem(p) is None, "hisparse_config"),
        "resolution passes --hisparse-config through unread; each scheduler parses it when it "
        "builds the KV pools, after loading the weights, and stops on text that is not a JSON "
        "object, a device buffer smaller than top_k, a swap-in block outside [1, 1024] or, "
        "for DeepSeek-V4, a host ratio below 1",
        START,
        SRT + "mem_cache/sparsity/factory.py: _parse_sparse_config raises ValueError (the same "
        "in 0.5.21-0.5.23), called from the pool configurator (model_executor/"
        "pool_configurator.py, which asserts c4_shrink_factor >= 1 for DeepSeek-V4)",
        detail=_hisparse_detail),
    Requirement(
        "dspark-markov-rank",
        cond("DSPARK speculation", lambda p: p["speculative_algorithm"] == "DSPARK",
             "speculative_algorithm"),
        cond("the draft's config gives a Markov rank above 0 where this release reads it",
             _dspark_markov_ok, "speculative_draft_model_path"),
        "each scheduler reads the DSpark draft's Markov rank when it sets up the draft's "
        "hidden-state capture and stops without one above 0; 0.5.21-0.5.22 read it only from "
        "dspark_config or the top level, not from dflash_config, where published DSpark "
        "drafts keep it",
        START,
        SRT + "model_executor/model_runner_components/spec_aux_hidden_state.py: "
        "resolve_spec_aux_hidden_state_config raises unless require_markov() "
        "(speculative/dspark_components/dspark_config.py: parse_dspark_draft_config; recorded "
        "with the KV-pool harness on 0.5.22 and 0.5.21 for SpecForge's qwen3-8b-dspark)",
        detail=lambda p: (f"the DSpark draft's Markov rank reads as "
                          f"{_dspark_markov_rank(p)!r} in SGLang "
                          f"{p.result.record.raw.release} (it needs one above 0)")),
    Requirement(
        "nextn-draft-layer-count",
        cond("an EAGLE-family draft taken from the target's own MTP layers (no draft "
             "checkpoint) on a model whose NextN loader reads num_nextn_predict_layers",
             _own_nextn_draft, "speculative_algorithm", "speculative_draft_model_path"),
        cond("the checkpoint declares num_nextn_predict_layers 1", _nextn_count_ok,
             "speculative_draft_model_path"),
        "without a draft checkpoint SGLang points the draft at the target's own path and "
        "loads it as the NextN class, whose weight loader stops unless the config declares "
        "exactly one MTP layer (Ling v1's files declare none); the server dies loading the "
        "draft, after the target's weights",
        START,
        SRT + "arg_groups/speculative_hook.py: _handle_eagle_family sets the draft path to "
        "the model path; configs/model_config.py renames the draft's architecture to its NextN "
        "class; its load_weights(is_nextn=True) raises ValueError without the key and asserts "
        "it is 1 (models/bailing_moe.py, bailing_moe_linear.py, glm4_moe.py, glm4_moe_lite.py, "
        "deepseek_common/deepseek_weight_loader.py; recorded for Ling-lite-1.5 in the h19 "
        "round)",
        detail=_nextn_count_detail),
    Requirement(
        "draft-target-layers",
        cond("DFLASH or DSPARK speculation",
             lambda p: p["speculative_algorithm"] in ("DFLASH", "DSPARK"),
             "speculative_algorithm"),
        cond("every target layer the draft's config reads exists in the target",
             _dflash_layers_ok, "speculative_draft_model_path", "model_path"),
        "a DFLASH-family draft reads the hidden states of the target layers its config names "
        "(target_layer_ids, trained for one target); each scheduler checks them against the "
        "target's layers when it sets up their capture and stops on one the target lacks",
        START,
        SRT + "speculative/dflash_utils.py: DFlashDraftConfig.resolve_target_layer_ids raises "
        "(every release), called from model_executor/model_runner_components/"
        "spec_aux_hidden_state.py (recorded with the KV-pool harness: Qwen3-4B/8B DFlash "
        "drafts on targets of 16-32 layers)",
        detail=lambda p: (f"the draft reads target layers {_dflash_layers(p)[0]}, but the "
                          f"target has {_dflash_layers(p)[1]}")),
    Requirement(
        "mamba2-state-shape", cond("a pure Mamba-2 model (model_type mamba2)", _pure_mamba2),
        cond("config.json gives intermediate_size", lambda p: "intermediate_size" in _text(p)),
        "SGLang's own Mamba-2 config class sizes each layer's state from intermediate_size, "
        "which transformers' Mamba2Config never sets (Mamba-Codestral's file leaves it out): "
        "the state pool cannot be sized", START,
        SRT + "configs/mamba2.py: Mamba2Config.mamba2_cache_params reads "
        "self.intermediate_size (the same in 0.5.21-0.5.23; transformers 5.19, 0.5.23's pin, "
        "and 5.24 set none), so the KV cache configurator stops with an AttributeError "
        "(recorded with the KV-pool harness on every launch of Mamba-Codestral-7B)"),
    Requirement(
        "llava-tower-class",
        cond("a transformers-format LLaVA checkpoint (LlavaForConditionalGeneration)",
             _llava_hf),
        cond("its vision_config is a tower SGLang has its own class for (Pixtral's)",
             lambda p: _llava_tower_type(p) in NATIVE_LLAVA_TOWERS),
        "the class builds its vision tower with the SGLang model its registry holds for the "
        "vision config's transformers class; CLIP's and SigLIP's vision models have none, so "
        "the registry falls back to its transformers-backend language model, which cannot "
        "be built around a vision encoder", START,
        SRT + "models/llava.py: LlavaForConditionalGeneration.__init__ -> _get_sgl_model_cls("
        "vision_config, AutoModel); models/registry.py: _normalize_archs appends "
        "TransformersForCausalLM for an unregistered class, whose __init__ "
        "(models/transformers.py) raises AttributeError reading the patch embedding's "
        "num_embeddings (the same code in 0.5.21-0.5.23; built on the meta device with "
        "record_vision_params.py for llava-hf/llava-1.5-7b-hf on 0.5.23 and 0.5.22, every "
        "launch, under the oracle's transformers 5.24 and 0.5.23's pinned 5.19 alike; "
        "sgl-project/sglang#13999 reports that checkpoint failing to start earlier, in its "
        "image processor)",
        detail=lambda p: (f"{p.model.arch0} with a {_llava_tower_type(p)} vision tower: "
                          "SGLang has no class of its own for it (Pixtral's is the only "
                          "one), so building the model fails")),
    Requirement(
        "llava-named-tower",
        cond("SGLang's own LLaVA class (LlavaLlama/LlavaQwen/LlavaMistralForCausalLM)",
             lambda p: getattr(p.model, "arch0", None) in LLAVA_NAMED_CLASSES),
        cond("mm_vision_tower names a CLIP or SigLIP checkpoint", _named_tower_loads),
        "these classes load their vision tower when the weights load, by the name in "
        "mm_vision_tower: a name holding \"clip\" as a CLIP vision model, one holding "
        "\"siglip\" as SigLIP's; with any other name (or none) no tower is loaded and the "
        "load stops", START,
        SRT + "models/llava.py: LlavaBaseForCausalLM.load_weights picks the tower class by "
        "substring and then calls self.vision_tower.eval() on None (AttributeError), or reads "
        "config.mm_vision_tower when the file has none (the same in 0.5.21-0.5.23)",
        detail=lambda p: (f"mm_vision_tower {_named_tower(p)!r} names neither a CLIP nor a "
                          "SigLIP checkpoint: no vision tower is loaded")),
    Requirement(
        "rope-config-class",
        cond("a model class that reads RoPE settings its config class does not hold in that "
             "form (MiMo-V2-Flash, LongCat-Flash on 0.5.22-0.5.23)",
             lambda p: _rope_break(p) is not None),
        cond("a config class that holds them as the model reads them (MiMo-V2-Flash: "
             "--trust-remote-code, the checkpoint's own class)", _rope_avoided,
             "trust_remote_code"),
        "the attention layers read the RoPE settings when the model is built; where the "
        "config class holds them otherwise (nested per layer type, or unset), building the "
        "model fails", START,
        SRT + "models/mimo_v2.py: MiMoV2Attention.__init__ passes config.rope_scaling to "
        "layers/rotary_embedding/factory.py get_rope, which raises TypeError (unhashable "
        "dict) in _get_live_rope_cache_entry; models/longcat_flash.py: the decoder layer's "
        "__init__ raises TypeError testing rope_theta in a None rope_parameters; each built "
        "on the meta device with 0.5.23 and 0.5.22 under their pinned transformers 5.19 "
        "(MiMo-V2-Flash's published config; LongCat-Flash's fixture, and a copy with "
        "rope_theta at the top as the published file has it)",
        detail=_rope_detail),
    Requirement(
        "pinned-transformers-config",
        cond("the checkpoint's top-level model_type is one some release cannot read under "
             "the transformers version it pins (transformers added it after that pin)",
             lambda p: not _type_read_everywhere(p.model)),
        cond("the plan's release reads it: its pinned transformers knows the type or the "
             "release registers a config class for it, or the config's auto_map names an "
             "AutoConfig and --trust-remote-code is on", _config_type_read,
             "trust_remote_code"),
        "SGLang reads config.json with transformers' AutoConfig, which knows the model types "
        "of the transformers version installed and those SGLang registers itself; pip "
        "install sglang brings the version the release pins (5.12.1 for 0.5.21, 5.19.0 for "
        "0.5.22-0.5.23), so a type added later stops the launch before anything is built, "
        "unless the checkpoint's own configuration code reads it (--trust-remote-code)",
        START,
        SRT + "utils/hf_transformers/config.py: get_config -> HfModelConfigParser.parse -> "
        "AutoConfig.from_pretrained, which (transformers' models/auto/configuration_auto.py) "
        "raises ValueError for a model_type CONFIG_MAPPING does not hold unless the config's "
        "auto_map names an AutoConfig and trust_remote_code is set; the types: each pinned "
        "version's CONFIG_MAPPING_NAMES and each release's own registrations "
        "(utils/hf_transformers/common.py _CONFIG_REGISTRY, AutoConfig.register and "
        "CONFIG_MAPPING writes in configs/), tabled by tools/model_class_tables.py "
        "--config-types; met with SGLang 0.5.23 under its pinned 5.19.0 (sarvam_moe, "
        "internlm3, molmo2, mistral_large4 stop there; qwen3, mistral and SGLang's own beam "
        "start; all start under 5.24)",
        detail=_config_type_detail),
    Requirement(
        "config-schema-read",
        cond("a model type whose config class reads one config.json schema of several",
             lambda p: p.model.model_type in _UNREAD_SCHEMAS),
        cond("config.json is in the schema the release's config class reads",
             lambda p: _schema_read(p.model)),
        "a release's config class keeps its defaults for the keys a newer schema renamed, so "
        "the model it builds does not fit the checkpoint", START,
        SRT + "configs/zaya.py: ZayaConfig (the same in 0.5.21-0.5.23) reads ffn_hidden_size, "
        "cca and rope_theta and translates no native-schema key; model_executor's weight "
        "loading then meets tensors of other shapes",
        verified=False, detail=_schema_detail),
    Requirement(
        "transformers-backend",
        cond("SGLang serves the checkpoint through its transformers backend (it has no "
             "class of its own for any of the architectures, or --model-impl transformers)",
             lambda p: not _backend_safe(p.model)
             and bool(_fallback_archs(p) or p["model_impl"] == "transformers"),
             "model_impl"),
        cond("the backend can serve it: the first architecture's transformers class takes a "
             "pluggable attention backend (under --model-impl auto, every architecture's); an "
             "architecture transformers lacks has an auto_map AutoModel (or --model-impl "
             "transformers); split over GPUs, transformers' config class has a plan for the "
             "split (tensor-parallel for --tp-size, pipeline-parallel for --pp-size); a MoE "
             "config names its experts' count where the backend reads it",
             lambda p: not _backend_refusals(p), "model_impl", "tp_size", "pp_size"),
        "each scheduler picks the model class from the registry of SGLang's own classes and, "
        "with none for the checkpoint (or under --model-impl transformers), builds its "
        "transformers backend around the transformers class instead; a class that does not "
        "take SGLang's attention backend stops it (Falcon, BLOOM, MPT, GPT-Neo, CodeGen, "
        "Jamba, Mamba, encoder-decoder models), under --model-impl auto already when the "
        "class is picked, as does a name transformers lacks without an auto_map AutoModel; "
        "over more than one GPU the backend splits the model by the tensor- and "
        "pipeline-parallel plans of transformers' config class and stops where the split "
        "needs one it has none of (OPT, DiffLlama, Nemotron)",
        START,
        SRT + "model_loader/utils.py: get_model_architecture -> resolve_transformers_arch "
        "raises ValueError; models/transformers.py: the backend's __init__ raises ValueError "
        "for the first architecture's class, recursive_replace for a model with no "
        "tensor-parallel plan at --tp-size above 1 and pipeline_parallel for one with no "
        "pipeline-parallel plan at --pp-size above 1, and MoEMixin.recursive_replace "
        "asserts on a config model_loader/utils.py _is_moe_model takes for MoE that names "
        "no num_local_experts, num_experts or n_routed_experts (the same in "
        "0.5.21-0.5.23); registered names: "
        "models/*.py EntryClass, per release; transformers' is_backend_compatible() in the "
        "version each release pins (5.12.1 for 0.5.21, 5.19.0 for 0.5.22-0.5.23), both "
        "tabled by tools/model_class_tables.py; recorded with SGLang's own loader and the "
        "backend's class built on the meta device by tests/parity/tools/"
        "record_model_class.py",
        detail=_backend_detail),
)
