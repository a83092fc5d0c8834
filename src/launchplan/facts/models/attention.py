"""The attention layout: MLA/MHA/SSM shapes, KV heads, hybrid SWA and linear-attention kinds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.facts.models.architectures import (
    _HYBRID_SWA_ARCHS,
    _MLA_DEEPSEEK_ARCHS,
    _SHAPE_BRANCHES,
)
from launchplan.facts.models.fields import _as_int, _Fields

# --- shapes, heads, KV heads (§2.2, §2.3) ---------------------------------------------------------

def _shapes(text: Mapping[str, Any], f: _Fields, t: _Fields, archs: frozenset[str],
            pure_ssm: bool) -> dict[str, Any]:
    head_dim = t.int("head_dim")
    if head_dim is None:
        if pure_ssm:
            head_dim = 0
        else:
            hidden = t.need_int("hidden_size", "head_dim is derived from it")
            heads = t.need_int("num_attention_heads", "head_dim is derived from it")
            head_dim = hidden // heads
    v_head_dim = t.int("v_head_dim") or head_dim
    swa_head_dim = t.int("swa_head_dim")
    swa_head_dim = head_dim if swa_head_dim is None else swa_head_dim
    swa_v = t.int("swa_v_head_dim")
    swa_v = swa_head_dim if swa_v is None else swa_v
    out: dict[str, Any] = {"arch": "MHA", "head_dim": head_dim, "v_head_dim": v_head_dim,
                           "swa_head_dim": swa_head_dim, "swa_v_head_dim": swa_v}
    branch = _mla_branch(archs, text)

    def ranks(src: _Fields, *names: str) -> None:
        why = "MLA architectures need it"
        for name in names:
            out[name] = src.need_int(name, why, positive=False)

    if branch == "deepseek":
        out.update(arch="MLA", head_dim=256)
        ranks(t, "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")
        out["v_head_dim"] = v_head_dim
    elif branch == "dsv4":
        rope_dim = f.need_int("qk_rope_head_dim", "DeepSeek-V4 needs it", positive=False)
        full = f.need_int("head_dim", "DeepSeek-V4 needs it")
        for key in ("sliding_window", "index_head_dim", "compress_ratios"):
            if key not in f.d:
                raise f.fail(key, "a value (DeepSeek-V4 needs it)", hint="the key is missing")
        out.update(head_dim=full, v_head_dim=full, qk_rope_head_dim=rope_dim,
                   qk_nope_head_dim=full - rope_dim)
    elif branch == "glm4_nextn":
        out.update(v_head_dim=head_dim, swa_v_head_dim=swa_head_dim)
    elif branch == "minicpm3":
        out.update(arch="MLA", head_dim=128)
        ranks(f, "kv_lora_rank", "qk_rope_head_dim")
    elif branch in ("deepseek_vl2", "kimi_vl"):
        out.update(arch="MLA", head_dim=256)
        ranks(t, "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim")
    elif branch == "kimi_linear":
        out.update(arch="MLA", head_dim=72)
        ranks(t, "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim")
    elif branch == "bailing_v25":
        out.update(arch="MLA", head_dim=head_dim)
        ranks(t, "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")
        out["v_head_dim"] = f.int("v_head_dim") or head_dim
    elif branch == "bailing_v3":
        out.update(arch="MLA", head_dim=128)
        ranks(t, "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")
        if text.get("use_mla_nope"):
            out["qk_rope_head_dim"] = 0
    elif branch == "sarvam":
        ranks(f, "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")
        out.update(arch="MLA", head_dim=out["qk_nope_head_dim"] + out["qk_rope_head_dim"],
                   v_head_dim=f.int("v_head_dim") or head_dim)
    elif pure_ssm:
        out["arch"] = "SSM"
    if branch in ("kimi_vl", "kimi_linear", "bailing_v3"):
        out["v_head_dim"] = v_head_dim
    return out


def _mla_branch(archs: frozenset[str], text: Mapping[str, Any]) -> str | None:
    """Which row of the §2.2 table applies (the first hit wins; every test is any-arch)."""
    if archs & _MLA_DEEPSEEK_ARCHS or ("PixtralForConditionalGeneration" in archs
                                       and text.get("kv_lora_rank") is not None):
        return "deepseek"
    for name, members in _SHAPE_BRANCHES:
        if archs & members:
            if name == "deepseek_vl2" and text.get("use_mla", True) is False:
                continue
            return name
    if "BailingMoeForCausalLMNextN" in archs and text.get("kv_lora_rank") is not None:
        return "bailing_v25"
    return None


def _total_kv_heads(top: Mapping[str, Any], text: Mapping[str, Any], f: _Fields, t: _Fields,
                    model_type: str, attn_arch: str, heads: int | None) -> int:
    falcon_new = model_type in ("falcon", "RefinedWeb", "RefinedWebModel") and bool(
        top.get("new_decoder_architecture"))
    if not falcon_new and text.get("multi_query"):
        return 1
    if model_type == "mpt":
        attn = f.mapping("attn_config") or {}
        if "kv_n_heads" in attn:
            # SGLang indexes MPT's attention sub-config like a dict and fails on it
            raise _Fields(attn, f.where, "attn_config.").fail(
                "kv_n_heads", "no value (SGLang 0.5.23 fails reading it from an MPT config)",
                attn["kv_n_heads"])
        return f.need_int("num_attention_heads", "KV heads default to it")
    if model_type == "dbrx":
        attn = f.mapping("attn_config") or {}
        if attn.get("kv_n_heads") is not None:
            return _Fields(attn, f.where, "attn_config.").need_int("kv_n_heads", "KV heads")
        return 1  # DbrxAttentionConfig's default
    if model_type == "nemotron-nas":
        return _nemotron_nas_kv_heads(top, f)
    for key in ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num",
                "num_attention_groups"):
        if text.get(key) is not None:
            return t.need_int(key, "KV heads", positive=False)
    if attn_arch == "SSM":
        return 0
    if heads is None:
        raise t.fail("num_attention_heads", "an integer (the KV head count defaults to it)",
                     hint="the key is missing")
    return heads


def _nemotron_nas_kv_heads(top: Mapping[str, Any], f: _Fields) -> int:
    heads = f.need_int("num_attention_heads", "KV heads derive from it")
    blocks = top.get("block_configs")
    counts = set()
    for i, block in enumerate(blocks if isinstance(blocks, list) else ()):
        attn = block.get("attention") if isinstance(block, Mapping) else None
        if not isinstance(attn, Mapping) or attn.get("no_op"):
            continue
        group = _as_int(attn.get("n_heads_in_group"))
        if not group or group <= 0:
            raise f.fail(f"block_configs[{i}].attention.n_heads_in_group", "a positive integer",
                         attn.get("n_heads_in_group"))
        counts.add(heads // group)
    if len(counts) != 1:
        raise f.fail("block_configs", "attention blocks with one KV-head count (SGLang 0.5.23 "
                     "does not support variable GQA)",
                     hint=f"found {len(counts)} distinct counts")
    return counts.pop()


# --- hybrid attention kinds (§2.6, §2.7) ----------------------------------------------------------

def _is_hybrid_swa(archs: frozenset[str], text: Mapping[str, Any],
                   text_type: str | None = None) -> bool:
    """SGLang's ``is_hybrid_swa_model``: its architecture list, else the flag on the text
    config, which a few of SGLang's own config classes set themselves (``_CLASS_HYBRID_SWA``),
    so a file that never carries it is still hybrid."""
    if archs & _HYBRID_SWA_ARCHS:
        if "BeamForCausalLM" in archs:
            layer_types = text.get("layer_types")
            if layer_types is None:  # SGLang's BeamConfig: every sixth layer, and the last,
                # full attention; the others sliding
                return int(text.get("num_hidden_layers") or 0) > 1
            return isinstance(layer_types, list) and "sliding_attention" in layer_types
        if "LagunaForCausalLM" in archs and not text.get("sliding_window"):
            return False
        return True
    derive = _CLASS_HYBRID_SWA.get(text_type or "")
    if derive is not None:
        return derive(text)
    return bool(text.get("is_hybrid_swa"))


def spark2_5_layer_types(text: Mapping[str, Any]) -> list[Any]:
    """Spark-X2.5's layer kinds as SGLang's ``Spark2_5Config`` keeps them: the file's list cut
    to ``num_hidden_layers``, else three sliding-window layers then a full one, repeated
    (its default of 28 layers)."""
    layers = _as_int(text.get("num_hidden_layers"))
    layers = 28 if layers is None else layers
    given = text.get("layer_types")
    if isinstance(given, list):
        return given[:layers]
    return ["sliding_attention" if (i + 1) % 4 else "full_attention" for i in range(layers)]


def _has_sliding(kinds: Any) -> bool:
    return isinstance(kinds, list) and "sliding_attention" in kinds


#: Text-config model types whose SGLang config class sets ``is_hybrid_swa`` itself (0.5.23,
#: ``sglang/srt/configs``): Spark2_5Config from any sliding-window entry of its layer kinds,
#: Muse Spark's text config the same way (its default: every layer full), Dots3Config as a
#: class attribute. (IQuestQ1Config derives it too, but its architectures are on the list.)
_CLASS_HYBRID_SWA: dict[str, Any] = {
    "spark2_5": lambda text: _has_sliding(spark2_5_layer_types(text)),
    "muse_spark_text": lambda text: _has_sliding(text.get("layer_types")),
    "dots3_note": lambda text: True,
}


def _uses_kda(cfg: Mapping[str, Any]) -> bool:
    linear = cfg.get("linear_attn_config")
    if isinstance(linear, Mapping) and linear.get("kda_layers"):
        return True
    layer_types = cfg.get("layer_types")
    return (isinstance(layer_types, list) and "linear_attention" in layer_types
            and cfg.get("linear_num_heads") is not None
            and cfg.get("linear_head_dim") is not None)


def _linear_attn_kind(top: Mapping[str, Any], text: Mapping[str, Any], model_type: str,
                      text_type: str | None, is_draft: bool) -> str | None:
    """``mambaish_config``: decided by config class, i.e. by model_type (§2.7)."""
    if model_type in _MAMBA_TYPES:
        pattern = top.get("mtp_hybrid_override_pattern")
        if is_draft and model_type in ("nemotron_h", "nemotron_h_puzzle") \
                and isinstance(pattern, str) and "M" not in pattern:
            return None
        return "mamba"
    if model_type == "granitemoehybrid":
        return "mamba" if "mamba" in granite_hybrid_kinds(top) else None
    if model_type in _GDN_TYPES or (text_type in _GDN_TYPES):
        return "gdn"
    if model_type == "kimi_linear" or text_type == "kimi_linear" or (
            "bailing_hybrid" in (model_type, text_type)
            and (top.get("use_kda") or text.get("use_kda"))):
        return "kda"
    if model_type == "glm5_next" and not is_draft:
        return "kda"
    if model_type == "bailing_hybrid":
        return "lightning"
    if model_type == "minicpm_sala":
        mixers = top.get("mixer_types")
        if isinstance(mixers, list) and "lightning-attn" in mixers:
            return "lightning"
        return None
    if model_type in _LINEAR_ATTN_REGISTRY_TYPES:
        return "gdn"
    return None


_MAMBA_TYPES = frozenset({
    "falcon_h1", "nemotron_h", "nemotron_h_puzzle", "lfm2", "lfm2_moe", "lfm2_vl", "zaya",
    "mamba2", "mamba", "falcon_mamba", "inkling_model", "inkling_mm_model",
    "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3", "nemotron_h_omni",
})
_GDN_TYPES = frozenset({
    "qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text",
    "intern_s2_preview", "interns2_mobius", "interns2_mobius_text", "jet_nemotron", "jet_vlm",
    "qwen4_exp_text",
})
_LINEAR_ATTN_REGISTRY_TYPES = frozenset({"gigachat3_5"})


def granite_hybrid_kinds(config: Mapping[str, Any]) -> list[str]:
    """Each layer's kind in a Granite 4.0-H file, as SGLang's own GraniteMoeHybridConfig
    fills them in: ``layer_types`` (``layers_block_type`` in older files) with transformers
    5's spellings read back (``linear_attention`` a Mamba layer, ``full_attention`` an
    attending one); without them, every sixth layer attends and the rest are Mamba."""
    kinds = config.get("layer_types") or config.get("layers_block_type")
    if not isinstance(kinds, (list, tuple)):
        n = _as_int(config.get("num_hidden_layers")) or 0
        return ["attention" if (i + 1) % 6 == 0 else "mamba" for i in range(max(0, n))]
    aliases = {"linear_attention": "mamba", "full_attention": "attention"}
    return [aliases.get(k, k) if isinstance(k, str) else k for k in kinds]
