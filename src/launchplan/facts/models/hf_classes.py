"""transformers' config classes and SGLang's ``hf`` parser, emulated from tables.

SGLang reads a checkpoint through transformers' config class for its ``model_type``: class
defaults fill missing keys, ``attribute_map`` aliases rename them, rope dicts are
normalised, Qwen2-style classes drop ``sliding_window``, VLM classes build a text
sub-config. launchplan runs none of that code; these tables say what it does (recorded from
transformers 5.24, re-checked by ``tests/facts/make_model_fixtures.py``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from launchplan.facts.models.fields import _as_int, _Fields
from launchplan.struct import Struct

# --- the hf parser's post-fixes and --json-model-override-args (§1.1) -----------------------------

_LONGCAT_ARCHS = frozenset({"LongcatCausalLM", "LongcatFlashForCausalLM",
                            "LongcatFlashNgramForCausalLM"})
_DEEPSEEK_OCR_AUTOMODEL = ("modeling_deepseekocr.DeepseekOCRForCausalLM",  # tuple: values
                           "modeling_deepseekocr2.DeepseekOCR2ForCausalLM")  # may be unhashable

#: Keys whose dict value transformers turns into a sub-config object: an override merges into
#: them instead of replacing them.
_SUBCONFIG_KEYS = frozenset({
    "text_config", "vision_config", "audio_config", "llm_config", "language_config",
    "thinker_config", "talker_config", "speech_config", "attn_config", "ffn_config",
})


#: model types whose SGLang config class sets ``architectures`` itself, whatever the file says
#: (or when it says nothing: DeepSeek-VL2 and Janus checkpoints carry no such key)
_CLASS_ARCHITECTURES = {"multi_modality": "MultiModalityCausalLM",
                        "deepseek_vl_v2": "DeepseekVL2ForCausalLM",
                        "dots_vlm": "DotsVLMForCausalLM"}


#: model types whose SGLang config class trades one architecture name for another: with no
#: ``architectures`` key it names the new one alone; otherwise it drops the first occurrence
#: of the old name and adds the new one last (OLMo 3 is served by SGLang's OLMo 2 model)
_CLASS_RENAMES = {"olmo3": ("Olmo3ForCausalLM", "Olmo2ForCausalLM")}


#: a text sub-config's ``model_type`` its parent class rewrites before building it
#: (transformers 5.24's Exaone4_5Config builds ``exaone4_5_text`` as Exaone4Config)
_TEXT_TYPE_RELABELS = {"exaone4_5_text": "exaone4"}


#: parent model types whose language sub-config SGLang builds with its own permissive class
#: (``sglang/srt/configs/deepseekvl2.py``'s DeepseekV2Config), not transformers'
_OWN_TEXT_CLASS = frozenset({"deepseek_vl_v2"})


def _parser_fixes(top: dict[str, Any], where: str) -> dict[str, Any]:
    """What SGLang's ``hf`` parser does to the file before anything reads it."""
    archs = top.get("architectures")
    arch_list = archs if isinstance(archs, list) else []
    if top.get("model_type") is None and not arch_list and "d_model" in top \
            and "ssm_cfg" in top:
        # a raw state-spaces Mamba checkpoint: no type, no architectures
        f = _Fields(top, where)
        pad = f.int("pad_vocab_size_multiple", default=1) or 1
        vocab = f.int("vocab_size", default=50280) or 50280
        if pad > 1:
            vocab = -(-vocab // pad) * pad
        top = {**top, "model_type": "mamba", "architectures": ["MambaForCausalLM"],
               "hidden_size": f.need_int("d_model", "the Mamba width"),
               "num_hidden_layers": f.need_int("n_layer", "the Mamba depth"),
               "vocab_size": vocab}
    elif any(isinstance(a, str) and a in _LONGCAT_ARCHS for a in arch_list):
        top["model_type"] = "longcat_flash"
        top["architectures"] = ["LongcatFlashForCausalLM"]
    model_type = top.get("model_type")
    key = model_type if isinstance(model_type, str) else ""  # a list or number names no class
    forced = _CLASS_ARCHITECTURES.get(key)
    if forced is not None:
        top["architectures"] = [forced]
    renamed = _CLASS_RENAMES.get(key)
    if renamed is not None:
        old, new = renamed
        if "architectures" not in top:
            top["architectures"] = [new]
        elif old in arch_list:
            kept = list(arch_list)
            kept.remove(old)
            top["architectures"] = [*kept, new]
    auto_map = top.get("auto_map")
    if isinstance(auto_map, Mapping) and auto_map.get("AutoModel") in _DEEPSEEK_OCR_AUTOMODEL:
        top["architectures"] = ["DeepseekOCRForCausalLM"]
    return top


def _apply_override(top: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(top)
    for key, value in override.items():
        current = out.get(key)
        if isinstance(value, Mapping) and isinstance(current, Mapping) and (
                key in _SUBCONFIG_KEYS or key in ("rope_scaling", "rope_parameters")):
            out[key] = {**current, **value}
        else:
            out[key] = value
    return out


# --- transformers class behaviour (§1.3) ----------------------------------------------------------

def _with_class_defaults(d: dict[str, Any], model_type: str | None, where: str,
                         prefix: str, overridden: frozenset[str] = frozenset()
                         ) -> dict[str, Any]:
    """The dict as transformers' config class for ``model_type`` would present it
    (``overridden``: the top-level keys --json-model-override-args set, named in errors)."""
    mt = model_type or ""
    _check_declared_types(d, mt, where, prefix, overridden)
    aliases = _ATTRIBUTE_ALIASES.get(mt, {})
    spec = _TYPE_DEFAULTS.get(mt)
    if not aliases and spec is None and mt not in _WINDOW_NEEDS_FLAG \
            and mt not in _NEMOTRON_H_TYPES:
        return d
    out = dict(d)
    if spec is not None:
        for key in spec.not_null:
            if key in d and d[key] is None:
                raise _Fields(d, where, prefix).fail(
                    key, f"a value (transformers' {mt} config does not accept null)", hint=None)
        for key, value in spec.defaults.items():
            out.setdefault(key, value)
    for canonical, alias in aliases.items():
        # the class stores the value under the alias; a JSON alias wins over a default
        if d.get(alias) is not None or (alias in out and canonical not in d):
            out[canonical] = out[alias]
    if mt in _NEMOTRON_H_TYPES:
        _nemotron_h_layers(out, d)
        if d.get("mamba_chunk_size") is None and d.get("chunk_size") is not None:
            # SGLang's own NemotronHConfig takes the legacy ``chunk_size`` (every published
            # Nemotron-H writes it) when ``mamba_chunk_size`` is absent; 256 only without both
            out["mamba_chunk_size"] = d["chunk_size"]
    if mt in _WINDOW_NEEDS_FLAG and not d.get("use_sliding_window"):
        out["sliding_window"] = _WINDOW_NEEDS_FLAG[mt]
    if mt == "gemma3_text" and d.get("use_bidirectional_attention") \
            and _as_int(out.get("sliding_window")) is not None:
        out["sliding_window"] = _as_int(out["sliding_window"]) // 2 + 1  # EmbeddingGemma
    return out


def _json_kind(value: Any) -> str:
    """The JSON kind of a value as a strict dataclass tells them apart (a boolean is no int)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, Mapping):
        return "dict"
    if isinstance(value, list):
        return "list"
    return "str" if isinstance(value, str) else type(value).__name__


_KIND_WORDS = {"int": "an integer", "float": "a decimal number (an integer is refused)",
               "bool": "true or false", "str": "a string", "dict": "a JSON object",
               "list": "a JSON list", "null": "null"}


def _kinds_named(kinds: frozenset[str]) -> str:
    return " or ".join(_KIND_WORDS.get(k, k) for k in sorted(kinds))


def _check_declared_types(d: Mapping[str, Any], mt: str, where: str, prefix: str,
                          overridden: frozenset[str] = frozenset()) -> None:
    """Refuse what the strict config classes of ``mt`` refuse: a declared field given a value
    of another JSON kind (top level, and the blocks tabled here), a refused flag, a block key
    SGLang's own class does not name. A null is left to the ``not_null`` rows."""
    fields = _Fields(dict(d), where, prefix, overridden)
    for key, kinds in _strict_kinds(mt).items():
        value = d.get(key)
        if value is not None and _json_kind(value) not in kinds:
            raise fields.fail(key, _kinds_named(kinds), value,
                              hint=f"transformers' strict {mt} config class")
    for block, declared in _DECLARED_KINDS.get(mt, {}).items():
        part = d.get(block)
        if not isinstance(part, Mapping):
            continue
        inner = _Fields(dict(part), where, f"{prefix}{block}.")
        for key, kinds in declared.items():
            if key in part and _json_kind(part[key]) not in kinds:
                raise inner.fail(key, _kinds_named(kinds), part[key],
                                 hint=f"transformers' strict {mt} config class")
    if not overridden & {"num_hidden_layers", "layer_types", "mlp_layer_types"}:
        # (an override updates the built config: the class validates only what it was built
        # from, so a one-layer override of a 24-layer file passes)
        _check_layer_types(d, mt, fields)
    for key, value in _REFUSED_VALUES.get(mt, {}).items():
        if key in d and d[key] == value and _json_kind(d[key]) == _json_kind(value):
            raise fields.fail(key, f"not {value!r} (transformers' {mt} config class refuses "
                              "it)", d[key])
    for block, named in _CLOSED_BLOCKS.get(mt, {}).items():
        part = d.get(block)
        if isinstance(part, Mapping):
            extra = sorted(k for k in part if k not in named)
            if extra:
                raise _Fields(dict(part), where, f"{prefix}{block}.").fail(
                    extra[0], f"no such key (SGLang's own {mt} class refuses keys it does "
                    f"not name: {', '.join(sorted(named))})", part[extra[0]])


#: model types whose transformers class replaces the base class's layer-list validator with
#: its own (their lists count other things: Nemotron-H's MTP blocks, DeepSeek-V4's
#: compressed layers), or checks the list first in its own words (SGLang's own
#: GraniteMoeHybridConfig: ``mamba_hybrids.py``)
_OWN_LAYER_VALIDATOR = frozenset({"nemotron_h", "deepseek_v4", "neomme", "granitemoehybrid"})


def _check_layer_types(d: Mapping[str, Any], mt: str, fields: _Fields) -> None:
    """transformers' base config validates a class's layer lists on construction
    (``validate_layer_type``, 5.24): ``layer_types`` and, with it, ``mlp_layer_types`` must
    have one entry per layer. Checked where the strict class declares the list (a published
    EXAONE 4.5 FP8 file lists 65 for 64 layers; SGLang stops reading it)."""
    kinds = _strict_kinds(mt)
    layers = d.get("num_hidden_layers")
    if "layer_types" not in kinds or mt in _OWN_LAYER_VALIDATOR or type(layers) is not int \
            or not isinstance(d.get("layer_types"), list):
        return
    for key in ("layer_types", "mlp_layer_types"):
        listed = d.get(key)
        if isinstance(listed, list) and len(listed) != layers:
            raise fields.fail(key, f"one entry per layer ({layers}, num_hidden_layers)",
                              f"{len(listed)} entries",
                              hint=f"transformers' {mt} config class validates it")


#: transformers config classes with per-layer heterogeneity (``HeterogeneousConfigMixin``,
#: 5.19 and 5.24 alike) that a checkpoint can name at the top level: their ``__post_init__``
#: gives some layers their own value of an attribute (kept only where it differs from the
#: top-level one), and reading such an attribute from the config then raises
#: ``AmbiguousGlobalPerLayerAttributeError``. SGLang's ``hf`` parser does, for a config that
#: is its own text config (``hasattr(config, key)`` over the text config's keys), so it stops
#: reading the file; wrapped as a ``text_config`` (Gemma 4's ``gemma4``) the class is fine.
#: type -> (class defaults of the top-level values compared, whether ``attention_k_eq_v``
#: gates the kv-head override (None: the class declares no such flag, so it is ungated), the
#: default of ``num_global_key_value_heads``)
_GEMMA_WIDE_LAYERS: Mapping[str, tuple[Mapping[str, Any], bool | None, int | None]] = {
    "gemma4_text": ({"head_dim": 256, "num_key_value_heads": 4}, False, None),
    "gemma4_unified_text": ({"head_dim": 256, "num_key_value_heads": 4}, False, None),
    "diffusion_gemma_text": ({"head_dim": 256, "num_key_value_heads": 4}, None, None),
    "embedding_gemma2_text": ({"head_dim": 256, "num_key_value_heads": 2}, None, 1),
}
#: Step-3.5/3.7's text class (``step3p5``): sliding-attention layers take
#: ``num_sliding_attention_heads``; NeoMME: full-attention layers no window, every second
#: sliding layer the class's long window
_STEP3P5_DEFAULTS = {"num_attention_heads": 64, "num_hidden_layers": 45}
_NEOMME_DEFAULTS = {"sliding_window": 256, "num_hidden_layers": 17}
_NEOMME_LONG_WINDOW = 1024


def _per_layer_values(top: Mapping[str, Any], mt: str
                      ) -> list[tuple[str, Any, Any, str, str]]:
    """What the heterogeneous class of ``mt`` gives some layers: (attribute, top-level value,
    a layer's value, the file key it comes from, which layers), one row per attribute."""
    if mt in _GEMMA_WIDE_LAYERS:
        defaults, gate_default, kv_default = _GEMMA_WIDE_LAYERS[mt]
        layer_types = top.get("layer_types")
        layers = top.get("num_hidden_layers", 30)
        # the class makes the last layer full attention whatever the list says
        if not (layer_types if isinstance(layer_types, list) else type(layers) is int
                and layers > 0):
            return []
        out = [("head_dim", top.get("head_dim", defaults["head_dim"]),
                top.get("global_head_dim", 512), "global_head_dim", "full-attention")]
        gated = True if gate_default is None else top.get("attention_k_eq_v", gate_default)
        kv = top.get("num_global_key_value_heads", kv_default)
        if gated and kv is not None:
            out.append(("num_key_value_heads",
                        top.get("num_key_value_heads", defaults["num_key_value_heads"]), kv,
                        "num_global_key_value_heads", "full-attention"))
        return out
    if mt == "step3p5":
        layer_types = top.get("layer_types")
        layers = top.get("num_hidden_layers", _STEP3P5_DEFAULTS["num_hidden_layers"])
        if not isinstance(layer_types, list) or type(layers) is not int \
                or "sliding_attention" not in layer_types[:layers]:
            return []  # no list: every layer is full attention
        heads = top.get("num_attention_heads", _STEP3P5_DEFAULTS["num_attention_heads"])
        sliding, key = top.get("num_sliding_attention_heads"), "num_sliding_attention_heads"
        other = top.get("attention_other_setting")
        if sliding is None and isinstance(other, Mapping) and other:
            sliding = other.get("num_attention_heads", heads)
            key = "attention_other_setting.num_attention_heads"
        return [("num_attention_heads", heads, heads if sliding is None else sliding, key,
                 "sliding-attention")]
    if mt == "neomme":
        layers = top.get("num_hidden_layers", _NEOMME_DEFAULTS["num_hidden_layers"])
        layer_types = top.get("layer_types")
        if not isinstance(layer_types, list):
            if type(layers) is not int:
                return []
            layer_types = ["full_attention" if (i + 1) % 6 == 0 or i == layers - 1
                           else "sliding_attention" for i in range(layers)]
        window = top.get("sliding_window", _NEOMME_DEFAULTS["sliding_window"])
        out = []
        if "full_attention" in layer_types:
            out.append(("sliding_window", window, None, "sliding_window", "full-attention"))
        if layer_types.count("sliding_attention") > 1:
            out.append(("sliding_window", window, _NEOMME_LONG_WINDOW, "sliding_window",
                        "every second sliding-attention"))
        return out
    return []


def check_uniform_top_level(top: Mapping[str, Any], where: str) -> None:
    """Refuse, as SGLang's config reader does, a top-level config of a heterogeneous
    transformers class whose layers do not all keep the top-level values (a Gemma 4 text
    model written out alone as Gemma4ForCausalLM: full-attention layers are wider). Not
    decided where the file names its own ``per_layer_config`` or its configuration code
    (``auto_map`` AutoConfig, read under --trust-remote-code)."""
    mt = top.get("model_type")
    auto_map = top.get("auto_map")
    if not isinstance(mt, str) or "per_layer_config" in top \
            or (isinstance(auto_map, Mapping) and "AutoConfig" in auto_map):
        return
    fields = _Fields(dict(top), where)
    for attribute, value, per_layer, key, layers in _per_layer_values(top, mt):
        if per_layer == value:
            continue
        if key == attribute:  # the top-level value itself must match the layers'
            wanted, given, what = per_layer, value, f"what the {layers} layers take"
        else:
            wanted, what = value, f"the top-level {attribute}"
            block, _, inner = key.partition(".")
            found = top.get(block, {}).get(inner) if inner else top.get(key)
            given = found if inner or key in top else f"no value ({per_layer!r} by default)"
        wrapped = ("; Gemma 4 checkpoints are read with their published config, model_type "
                   "gemma4 with this block as its text_config" if mt == "gemma4_text" else "")
        raise fields.fail(
            key, f"{json.dumps(wanted)}, {what} (transformers' {mt} class gives the {layers} "
            f"layers {attribute} from {key}; a value that differs from the top level's is "
            f"per-layer, and SGLang's config reader stops on it in a top-level {mt} "
            f"config{wrapped})",
            given)


#: ``data/strict_kinds.json``: model_type -> field -> the JSON kinds transformers 5.24's
#: strict class for it admits (written by ``tests/facts/make_strict_kinds.py`` in the oracle's
#: venv; ``huggingface_hub`` checks every field declared with a concrete type on construction:
#: an integer is no float, a boolean no integer)
_STRICT_KINDS_FILE = Path(__file__).resolve().parents[1] / "data" / "strict_kinds.json"


@functools.cache
def _strict_kinds(mt: str) -> Mapping[str, frozenset[str]]:
    """The kinds of ``mt``'s fields. The file holds one model type a line, so a launch parses
    only its own (the whole table is half a megabyte: parsing it cost a cold start 10 ms)."""
    text = _strict_kinds_text()
    start = text.find(f"\n  {json.dumps(mt)}: ")
    if start < 0:
        return {}
    line = text[start + 1:text.index("\n", start + 1)].rstrip(",")
    fields = json.loads("{" + line + "}")[mt]
    return {key: frozenset(kinds) for key, kinds in fields.items()}


@functools.cache
def _strict_kinds_text() -> str:
    return _STRICT_KINDS_FILE.read_text(encoding="utf-8")


_I, _F, _N, _D = (frozenset({"int"}), frozenset({"float"}), frozenset({"null"}),
                  frozenset({"dict"}))
#: model_type -> block -> the JSON kinds each field of the block's strict class admits (the
#: classes ``strict_kinds.json`` does not reach: a sub-config built from a block of the file).
_DECLARED_KINDS: Mapping[str, Mapping[str, Mapping[str, frozenset[str]]]] = {
    # models/dbrx/configuration_dbrx.py: DbrxConfig, DbrxAttentionConfig, DbrxFFNConfig
    "dbrx": {
        "attn_config": {"attn_pdrop": _F | _I, "clip_qkv": _I | _F | _N, "kv_n_heads": _I},
        "ffn_config": {"hidden_size": _I, "ffn_act_fn": _D | _N, "ffn_hidden_size": _I,
                       "moe_num_experts": _I, "moe_top_k": _I, "moe_jitter_eps": _F | _I | _N,
                       "moe_loss_weight": _F, "moe_normalize_expert_weights": _F | _N},
    },
}
#: model_type -> key -> the value its class's validator refuses (DBRX ties no embeddings)
_REFUSED_VALUES: Mapping[str, Mapping[str, Any]] = {"dbrx": {"tie_word_embeddings": True}}
#: model_type -> block -> the only keys SGLang 0.5.23's own class for it takes (it reads the
#: file again after transformers: ``configs/dbrx.py`` builds the attention and FFN blocks
#: from classes that raise on any other key, ``model_type`` aside)
_CLOSED_BLOCKS: Mapping[str, Mapping[str, frozenset[str]]] = {
    "dbrx": {
        "attn_config": frozenset({"attn_pdrop", "clip_qkv", "kv_n_heads", "rope_theta",
                                  "model_type"}),
        "ffn_config": frozenset({"ffn_act_fn", "ffn_hidden_size", "moe_num_experts",
                                 "moe_top_k", "moe_jitter_eps", "moe_loss_weight",
                                 "moe_normalize_expert_weights", "uniform_expert_assignment",
                                 "model_type"}),
    },
}


_NEMOTRON_H_TYPES = ("nemotron_h", "nemotron_h_puzzle")
#: SGLang's NemotronHConfig (the same in 0.5.21-0.5.23): one character a layer kind in the
#: legacy ``hybrid_override_pattern`` string, one word in the canonical ``layers_block_type``
_LAYER_CHARS = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}
_LEGACY_PATTERN = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"
_MTP_KINDS = ("attention", "moe")


def _nemotron_h_layers(out: dict[str, Any], given: Mapping[str, Any]) -> None:
    """SGLang's Nemotron-H config class keeps the layer layout as ``layers_block_type`` (a
    list; newer checkpoints such as Nemotron 3 Ultra publish only that) and derives the
    rest from it: ``num_hidden_layers`` is its length (a JSON value is ignored) and
    ``hybrid_override_pattern`` its string form. The legacy string is read only when the
    list is absent (its signature default when both are). The MTP layout follows the same
    way, except that a legacy ``mtp_hybrid_override_pattern`` replaces a missing or default
    list. Written back as strings here, which the layer readers take."""
    kinds = given.get("layers_block_type")
    pattern = given.get("hybrid_override_pattern", _LEGACY_PATTERN)
    if isinstance(kinds, list) and all(k in _LAYER_CHARS for k in kinds):
        pattern = "".join(_LAYER_CHARS[k] for k in kinds)
    if isinstance(pattern, str):
        out["hybrid_override_pattern"] = pattern
        out["num_hidden_layers"] = len(pattern)
    mtp = given.get("mtp_layers_block_type")
    legacy = given.get("mtp_hybrid_override_pattern")
    if isinstance(legacy, str) and (mtp is None or list(mtp) == list(_MTP_KINDS)):
        out["mtp_hybrid_override_pattern"] = legacy
    elif isinstance(mtp, list) and all(k in _LAYER_CHARS for k in mtp):
        out["mtp_hybrid_override_pattern"] = "".join(_LAYER_CHARS[k] for k in mtp)
    elif mtp is None:
        out["mtp_hybrid_override_pattern"] = "".join(_LAYER_CHARS[k] for k in _MTP_KINDS)


def _text_config(top: dict[str, Any], archs: list[str],
                 where: str) -> tuple[dict[str, Any], str, bool]:
    """SGLang's text config (§1.2): the sub-config describing the language model."""
    arch0 = archs[0]
    if arch0.startswith("Llava") and arch0.endswith("ForCausalLM"):
        return top, "", False
    parent_dtype = _declared_dtype(top)
    sub: Any = None
    prefix = ""
    parent_type = top.get("model_type")
    thinker = top.get("thinker_config")
    if isinstance(thinker, Mapping):
        inner = thinker.get("text_config")
        thinker_dtype = _declared_dtype(thinker) or parent_dtype
        if isinstance(inner, Mapping):
            sub, prefix = dict(inner), "thinker_config.text_config."
            sub["dtype"] = thinker_dtype  # the thinker's dtype replaces the text's own
            sub.pop("torch_dtype", None)
            # the thinker's text class is fixed; a model_type key only relabels it
            class_type = _THINKER_TEXT_TYPE.get(parent_type, sub.get("model_type"))
        else:
            sub, prefix, class_type = dict(thinker), "thinker_config.", thinker.get("model_type")
    else:
        key = next((k for k in ("llm_config", "language_config", "text_config")
                    if top.get(k) is not None), None)
        if key is None and parent_type in _DEFAULT_TEXT_TYPE:
            # the VLM class builds a default text config: from the top-level keys for the
            # classes that keep that compatibility, else from class defaults alone
            sub = {k: v for k, v in top.items() if k not in _SUBCONFIG_KEYS} \
                if parent_type in _TEXT_FROM_TOP_LEVEL else {}
            sub["model_type"] = _DEFAULT_TEXT_TYPE[parent_type]
            key, value = "text_config", sub
        elif key is None:
            return top, "", False
        else:
            value = top[key]
        if not isinstance(value, Mapping):
            raise _Fields(top, where).fail(key, "a JSON object", value)
        sub, prefix = dict(value), key + "."
        class_type = sub.get("model_type")
        if not isinstance(class_type, str):
            class_type = _DEFAULT_TEXT_TYPE.get(parent_type)  # the parent's sub-config class
        # a parent class that relabels its text sub-config before building it
        class_type = _TEXT_TYPE_RELABELS.get(class_type, class_type)
        if key != "language_config" and "num_attention_heads" not in _with_class_defaults(
                sub, class_type, where, prefix):
            raise _Fields(sub, where, prefix).fail(
                "num_attention_heads", "an integer (SGLang requires it in this sub-config)",
                hint="the key is missing")
    if _declared_dtype(sub) is None and parent_dtype is not None:
        sub["dtype"] = parent_dtype
    for key in ("pad_token_id", "bos_token_id", "eos_token_id", "tie_word_embeddings"):
        if key in top and key not in sub:
            sub[key] = top[key]
    if isinstance(parent_type, str) and parent_type in _OWN_TEXT_CLASS:
        # SGLang's own class builds this sub-config: it takes what the file says (nulls
        # included) without transformers' validation or defaults
        text = dict(sub)
    else:
        text = _with_class_defaults(sub, class_type if isinstance(class_type, str) else None,
                                    where, prefix)
    text.setdefault("model_type", class_type)
    return text, prefix, True


def _declared_dtype(d: Mapping[str, Any]) -> Any:
    v = d.get("dtype")
    return v if v is not None else d.get("torch_dtype")


def _normalised_rope(text: Mapping[str, Any], t: _Fields,
                     text_type: str | None) -> dict[str, Any] | None:
    """The text config's rope dict as transformers 5 leaves it (§1.3)."""
    key = "rope_scaling" if text.get("rope_scaling") else "rope_parameters"
    value = text.get(key)
    if not value:
        return None
    if not isinstance(value, Mapping):
        raise t.fail(key, "a JSON object", value)
    rope = dict(value)
    if text_type in _ROPE_RAW_TYPES:
        return rope
    layer_types = text.get("layer_types")
    labels = {x for x in layer_types if isinstance(x, str)} if isinstance(layer_types, list) \
        else set()
    nested = [k for k in rope if isinstance(k, str) and k in labels]
    if nested:
        return rope
    if text_type in _ROPE_PER_LAYER_TYPES:
        return {"full_attention": rope}  # the flat dict becomes per-layer-type dicts
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    rope.setdefault("rope_type", rope_type)
    if not isinstance(rope_type, str):
        raise t.fail(f"{key}.rope_type", "a rope type name such as 'linear'", rope_type)
    if rope_type in _FACTOR_REQUIRED and rope.get("factor") is None:
        raise t.fail(f"{key}.factor", f"a number (rope type {rope_type!r} requires it)",
                     hint="the key is missing")
    if rope_type in ("llama3", "yarn", "longrope"):
        original = text.get("original_max_position_embeddings")
        if original is not None:
            rope["original_max_position_embeddings"] = original
        else:
            rope.setdefault("original_max_position_embeddings",
                            text.get("max_position_embeddings"))
    return rope


_FACTOR_REQUIRED = frozenset({"linear", "dynamic", "yarn", "llama3"})


# --- model-type tables (rope behaviour, class defaults) -------------------------------------------

#: Types whose config class turns a flat rope dict into per-layer-type dicts.
_ROPE_PER_LAYER_TYPES = frozenset({"gemma3_text", "gemma3n_text", "laguna", "dots3_note_text",
                                   "modernbert", "modernbert-decoder", "t5gemma2_decoder",
                                   "t5gemma2_text"})
#: Types whose config class keeps the rope dict as written (no type→rope_type, no
#: original_max_position_embeddings), so even yarn multiplies the context length.
_ROPE_RAW_TYPES = frozenset({"bailing_moe_v3_vl", "deepseek_v41_vision", "gemma4_unified",
                             "jet_nemotron", "k2_horizon", "lfm2_vl", "minimax_m3_vl",
                             "muse_glimmer_assistant", "xllm"})

#: Qwen2-style classes drop ``sliding_window`` unless ``use_sliding_window`` is true; the value
#: it becomes.
_WINDOW_NEEDS_FLAG: Mapping[str, int | None] = {
    "qwen2": None, "qwen2_moe": 0, "qwen3": None, "qwen3_moe": None, "qwen2_vl_text": None,
    "qwen2_5_vl_text": None, "qwen2_5_omni_text": None, "qwen2_5_omni_talker": None,
}


class _ClassSpec(Struct):
    """How one transformers config class fills a config: defaults, and keys it refuses as null."""

    defaults: Mapping[str, Any]
    not_null: frozenset[str]


_CORE = ("max_position_embeddings", "hidden_size", "num_attention_heads", "num_hidden_layers",
         "vocab_size")
_KV = ("num_key_value_heads",)
_HD = ("head_dim",)
_RANKS3 = ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim")
_CORE_KV = _CORE + _KV
_CORE_HD = _CORE + _HD
_CORE_KV_HD = _CORE + _KV + _HD
_SSM_CORE = ("hidden_size", "num_hidden_layers", "vocab_size")


def _d(ctx: int | None, hidden: int, heads: int | None, layers: int, vocab: int,
       kv: int | None = None, head_dim: int | None = None, window: int | None = None,
       strict: tuple[str, ...] = _CORE, **extra: Any) -> _ClassSpec:
    """One class: the keys it sets to a constant when config.json leaves them out.

    ``kv``/``head_dim`` None mean the class derives them (from the head count, or
    hidden_size // heads), which is what SGLang does anyway. ``strict`` lists the keys the
    class refuses to hold as null (transformers 5 validates their types).
    """
    row = {"max_position_embeddings": ctx, "hidden_size": hidden, "num_attention_heads": heads,
           "num_hidden_layers": layers, "vocab_size": vocab, "num_key_value_heads": kv,
           "head_dim": head_dim, "sliding_window": window, **extra}
    return _ClassSpec({k: v for k, v in row.items() if v is not None}, frozenset(strict))


_MLA_RANKS = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
              "v_head_dim": 128}
#: model_type → class defaults for keys config.json leaves out.
#: Recorded from transformers 5.24 (and SGLang 0.5.23's own classes where SGLang re-reads
#: the file); ``tests/facts/make_model_fixtures.py`` re-checks them against the oracle venv.
_TYPE_DEFAULTS: Mapping[str, _ClassSpec] = {
    "llama": _d(2048, 4096, 32, 32, 32000),
    "mistral": _d(131072, 4096, 32, 32, 32000, kv=8, window=4096, strict=_CORE_KV),
    "mixtral": _d(131072, 4096, 32, 32, 32000, kv=8, strict=_CORE_KV),
    "qwen2": _d(32768, 4096, 32, 32, 151936, kv=32),
    "qwen2_moe": _d(32768, 2048, 16, 24, 151936, kv=16),
    "qwen3": _d(32768, 4096, 32, 32, 151936, kv=32, head_dim=128, strict=_CORE_HD),
    "qwen3_moe": _d(32768, 2048, 32, 24, 151936, kv=4, strict=_CORE_KV),
    "qwen3_next": _d(32768, 2048, 16, 48, 151936, kv=2, head_dim=256, strict=()),
    "qwen3_5_text": _d(32768, 2048, 16, 48, 151936, kv=2, head_dim=256, strict=()),
    "qwen3_5_moe_text": _d(32768, 2048, 16, 48, 151936, kv=2, head_dim=256, strict=()),
    "qwen2_vl_text": _d(32768, 8192, 64, 80, 152064, kv=8),
    "qwen2_5_vl_text": _d(32768, 8192, 64, 80, 152064, kv=8),
    "qwen3_vl_text": _d(128000, 4096, 32, 32, 151936, kv=32, head_dim=128, strict=_CORE_HD),
    "qwen3_vl_moe_text": _d(128000, 2048, 16, 24, 151936, kv=16, strict=_CORE_KV),
    "deepseek_v2": _d(2048, 4096, 32, 32, 102400, head_dim=64, **_MLA_RANKS,
                      strict=_CORE + _RANKS3 + ("v_head_dim",)),
    "deepseek_v3": _d(4096, 7168, 128, 61, 129280, kv=128, head_dim=64, num_nextn_predict_layers=1,
                      **_MLA_RANKS, strict=_CORE + _RANKS3),
    "deepseek_v32": _d(4096, 7168, 128, 61, 129280, kv=128, head_dim=64,
                       num_nextn_predict_layers=1, **_MLA_RANKS, strict=_CORE + _RANKS3),
    "deepseek_v4": _d(4096, 7168, 128, 61, 129280, kv=128, head_dim=64, num_nextn_predict_layers=1,
                      **_MLA_RANKS, strict=_CORE + _RANKS3),
    "kimi_k2": _d(4096, 7168, 128, 61, 129280, kv=128, head_dim=64, num_nextn_predict_layers=1,
                  **_MLA_RANKS, strict=_CORE + _RANKS3),
    "kimi_linear": _d(4096, 4096, 32, 32, 163840, num_nextn_predict_layers=0,
                      strict=("hidden_size", "num_attention_heads")),
    "longcat_flash": _d(131072, 6144, 64, 28, 131072, kv_lora_rank=512, qk_nope_head_dim=128,
                        qk_rope_head_dim=128, v_head_dim=128, num_nextn_predict_layers=1,
                        strict=()),
    "glm4_moe_lite": _d(202752, 2048, 20, 47, 154880, kv=20, kv_lora_rank=512,
                        qk_nope_head_dim=192, qk_rope_head_dim=64, v_head_dim=256,
                        strict=_CORE_KV + _RANKS3 + ("v_head_dim",)),
    "minicpm3": _d(32768, 2560, 40, 62, 73448, kv=40, head_dim=32, kv_lora_rank=256,
                   qk_nope_head_dim=64, qk_rope_head_dim=32, v_head_dim=64,
                   strict=_CORE + _RANKS3),
    "gpt_oss": _d(131072, 2880, 64, 36, 201088, kv=8, head_dim=64, window=128, strict=_CORE_KV_HD),
    "gemma": _d(8192, 3072, 16, 28, 256000, kv=16, head_dim=256, strict=_CORE_KV_HD),
    "gemma2": _d(8192, 2304, 8, 26, 256000, kv=4, head_dim=256, window=4096, strict=_CORE_KV_HD),
    "gemma3_text": _d(131072, 2304, 8, 26, 262208, kv=4, head_dim=256, window=4096,
                      strict=_CORE_KV_HD),
    # transformers 5.24's EmbeddingGemma2TextConfig (the default text config of an
    # embedding_gemma2 file without one) and SGLang 0.5.23's own BeamConfig
    "embedding_gemma2_text": _d(262144, 512, 4, 24, 262144, kv=2, head_dim=256, window=512,
                                strict=()),
    "beam": _d(1048576, 5120, 48, 52, 151936, kv=8, head_dim=128, window=512, strict=()),
    # SGLang 0.5.23's own Step3p5Config: its max_seq_len (read before
    # max_position_embeddings) sets the context a file without one derives
    "step3p5": _d(128000, 4096, 64, 45, 128815, head_dim=128, max_seq_len=128000,
                  num_attention_groups=8, strict=()),
    "phi": _d(2048, 2048, 32, 24, 51200),
    "phi3": _d(4096, 3072, 32, 32, 32064),
    "phimoe": _d(131072, 4096, 32, 32, 32064, kv=8, strict=_CORE_KV),
    "falcon": _d(2048, 4544, 71, 32, 65024, multi_query=True, strict=_CORE_HD),
    "gpt2": _d(1024, 768, 12, 12, 50257, strict=("vocab_size",)),
    "gpt_bigcode": _d(1024, 768, 12, 12, 50257, kv=1, multi_query=True, strict=("vocab_size",)),
    "gpt_neox": _d(2048, 6144, 64, 44, 50432),
    "starcoder2": _d(4096, 3072, 24, 30, 49152, kv=2, strict=_CORE_KV),
    "olmo": _d(2048, 4096, 32, 32, 50304),
    "olmo2": _d(2048, 4096, 32, 32, 50304),
    "olmo3": _d(2048, 4096, 32, 32, 50304, window=4096, strict=("num_hidden_layers",)),
    "olmoe": _d(4096, 2048, 16, 16, 50304),
    "cohere": _d(8192, 8192, 64, 40, 256000),
    "cohere2": _d(8192, 8192, 64, 40, 256000, window=4096),
    "exaone": _d(2048, 2048, 32, 32, 102400, strict=("hidden_size",)),
    "exaone4": _d(2048, 4096, 32, 32, 102400, kv=32, window=4096,
                  strict=_CORE_KV + ("sliding_window",)),
    "granite": _d(2048, 4096, 32, 32, 32000),
    "granitemoe": _d(2048, 4096, 32, 32, 32000),
    "granitemoehybrid": _d(131072, 2048, 32, 40, 100352, kv=8,
                           strict=("hidden_size", "num_hidden_layers")),
    "glm_moe_dsa": _d(202752, 6144, 64, 78, 154880, kv=64, head_dim=64, kv_lora_rank=512,
                      qk_nope_head_dim=192, qk_rope_head_dim=64, v_head_dim=256,
                      index_topk=2048, strict=_CORE),
    "llama4_text": _d(131072, 5120, 40, 48, 202048, kv=8, head_dim=128, attention_chunk_size=8192,
                      strict=_CORE_KV_HD),
    "glm": _d(131072, 4096, 32, 40, 151552, kv=2, head_dim=128),
    "glm4": _d(131072, 4096, 32, 40, 151552, kv=2, head_dim=128, strict=_CORE_KV_HD),
    "glm4_moe": _d(131072, 4096, 96, 46, 151552, kv=8, num_nextn_predict_layers=1,
                   strict=_CORE_KV),
    "ernie4_5": _d(131072, 1024, 16, 18, 103424, kv=2, head_dim=128),
    "ernie4_5_moe": _d(131072, 2560, 20, 28, 103424, kv=4),
    "mamba": _d(None, 768, None, 32, 50280, strict=_SSM_CORE),
    "mamba2": _d(None, 4096, None, 64, 32768, head_dim=64,
                 strict=("hidden_size", "num_hidden_layers", "vocab_size", "head_dim")),
    "falcon_mamba": _d(None, 768, None, 32, 50280, strict=_SSM_CORE),
    "falcon_h1": _d(8192, 4096, 32, 32, 128000, kv=8, strict=()),
    "jamba": _d(262144, 4096, 32, 32, 65536, kv=8, strict=_CORE_KV),
    "dbrx": _d(2048, 2048, 16, 24, 32000, max_seq_len=2048, strict=()),
    "mpt": _d(None, 2048, 16, 24, 50368, max_seq_len=2048, strict=("vocab_size",)),
    "minimax": _d(131072, 4096, 32, 32, 32000, kv=8, strict=_CORE_KV),
    "minimax_m2": _d(196608, 3072, 48, 62, 200064, kv=8, head_dim=128, strict=_CORE_KV_HD),
    "hunyuan_v1_dense": _d(2048, 4096, 32, 32, 290943),
    "hunyuan_v1_moe": _d(2048, 4096, 32, 32, 290943),
    "seed_oss": _d(524288, 4096, 80, 64, 155136, kv=8, head_dim=128, strict=_CORE_HD),
    "smollm3": _d(32768, 2048, 16, 36, 128256, kv=4),
    "stablelm": _d(4096, 2560, 32, 32, 50304, kv=32, strict=_CORE_KV),
    "nemotron": _d(4096, 6144, 48, 32, 256000),
    "nemotron_h": _d(4096, 4096, 32, 52, 131072, kv=8, head_dim=128, num_nextn_predict_layers=0,
                     strict=("num_nextn_predict_layers",)),
    "arcee": _d(4096, 2560, 32, 32, 32000),
    "apertus": _d(65536, 4096, 32, 32, 131072),
    "dots1": _d(2048, 4608, 32, 62, 152064, kv=32, window=4096),
    "bamba": _d(262144, 4096, 32, 32, 128000, kv=8),
    "afmoe": _d(131072, 4096, 32, 32, 32000, strict=("hidden_size", "num_attention_heads")),
    "lfm2": _d(128000, 2560, 32, 32, 65536, kv=8, strict=_CORE_KV),
    "lfm2_moe": _d(128000, 2048, 32, 32, 65536, kv=8, strict=_CORE_KV),
    "zamba2": _d(4096, 2560, 32, 54, 32000, head_dim=160),
    "bloom": _d(None, 64, 8, 2, 250880, strict=("hidden_size", "vocab_size")),
    "gptj": _d(2048, 4096, 16, 28, 50400, strict=("vocab_size",)),
    "codegen": _d(2048, 4096, 16, 28, 50400, strict=("vocab_size",)),
    "gpt_neo": _d(2048, 2048, 16, 24, 50257,
                  strict=("max_position_embeddings", "hidden_size", "num_hidden_layers",
                          "vocab_size")),
    "opt": _d(2048, 768, 12, 12, 50272),
    "persimmon": _d(16384, 4096, 64, 36, 262144),
    "internlm3": _d(32768, 4096, 32, 48, 128512, kv=2, head_dim=128),
    "sarvam_mla": _d(4096, 4096, 64, 32, 262144, head_dim=64, num_nextn_predict_layers=0,
                     **_MLA_RANKS, strict=_CORE + _RANKS3),
    "whisper": _d(None, 384, 6, 4, 51865, strict=("vocab_size",)),
    "qwen2_5_omni_text": _d(32768, 3584, 28, 28, 152064, kv=4),
    "qwen3_omni_moe_text": _d(32768, 2048, 28, 28, 3584, kv=4, strict=_CORE_KV),
}

#: Hybrid and SSM classes whose ``mamba_chunk_size`` default is not the generic 64 (SGLang
#: reads the attribute, so the class default is what it sees).
_MAMBA_CHUNK_DEFAULTS: Mapping[str, int] = {
    "bamba": 256, "falcon_h1": 256, "falcon_mamba": 256, "granitemoehybrid": 256,
    "lfm2": 1, "lfm2_moe": 1, "mamba": 256, "mamba2": 256, "nemotron_h": 256,
}
#: The MLP widths a class fills in when the file leaves them out, as (``intermediate_size``,
#: ``moe_intermediate_size``; None: the class has none). A sub-config that leaves its sizes
#: to the class (llava-hf's ``text_config`` naming only ``model_type``) still has MLPs, and
#: the weights count them at the class's width, as SGLang builds them.
_MLP_DEFAULTS: Mapping[str, tuple[int | None, int | None]] = {
    "afmoe": (11008, 256), "apertus": (14336, None), "arcee": (18432, None),
    "bamba": (14336, None), "beam": (20480, 2560), "cohere": (22528, None),
    "cohere2": (22528, None), "deepseek_v2": (11008, 1407), "deepseek_v3": (18432, 2048),
    "deepseek_v32": (18432, 2048), "deepseek_v4": (18432, 2048), "dots1": (10944, 1408),
    "embedding_gemma2_text": (2048, None), "ernie4_5": (3072, None),
    "ernie4_5_moe": (12288, 1536), "exaone": (8192, None), "exaone4": (16384, None),
    "falcon_h1": (14336, None), "falcon_mamba": (1536, None), "gemma": (24576, None),
    "gemma2": (9216, None), "gemma3_text": (9216, None), "glm": (13696, None),
    "glm4": (13696, None), "glm4_moe": (10944, 1408), "glm4_moe_lite": (10240, 1536),
    "glm_moe_dsa": (12288, 2048), "gpt_neox": (24576, None), "gpt_oss": (2880, None),
    "granite": (11008, None), "granitemoe": (11008, None), "granitemoehybrid": (8192, None),
    "hunyuan_v1_dense": (11008, None), "hunyuan_v1_moe": (11008, None),
    "internlm3": (10240, None), "jamba": (14336, None), "kimi_k2": (18432, 2048),
    "kimi_linear": (11008, None), "lfm2": (12288, None), "lfm2_moe": (7168, 1792),
    "llama": (11008, None), "llama4_text": (8192, None), "longcat_flash": (12288, 2048),
    "mamba": (1536, None), "minicpm3": (6400, None), "minimax": (14336, None),
    "minimax_m2": (1536, None), "mistral": (14336, None), "mixtral": (14336, None),
    "nemotron": (24576, None), "nemotron_h": (21504, 7688), "olmo": (11008, None),
    "olmo2": (11008, None), "olmo3": (11008, None), "olmoe": (2048, None),
    "persimmon": (16384, None), "phi": (8192, None), "phi3": (8192, None),
    "phimoe": (6400, None), "qwen2": (22016, None), "qwen2_5_omni_text": (18944, None),
    "qwen2_5_vl_text": (29568, None), "qwen2_moe": (5632, 1408), "qwen2_vl_text": (29568, None),
    "qwen3": (22016, None), "qwen3_5_moe_text": (5632, 512), "qwen3_5_text": (5632, 512),
    "qwen3_moe": (6144, 768), "qwen3_next": (5632, 512), "qwen3_omni_moe_text": (18944, 768),
    "qwen3_vl_moe_text": (5632, 1408), "qwen3_vl_text": (22016, None),
    "sarvam_mla": (16384, 2048), "seed_oss": (27648, None), "smollm3": (11008, None),
    "stablelm": (6912, None), "starcoder2": (12288, None), "step3p5": (11264, 1280),
    "zamba2": (10240, None),
}


def _with_table_defaults(t: str, spec: _ClassSpec) -> _ClassSpec:
    extra: dict[str, Any] = {}
    if t in _MAMBA_CHUNK_DEFAULTS:
        extra["mamba_chunk_size"] = _MAMBA_CHUNK_DEFAULTS[t]
    dense, moe = _MLP_DEFAULTS.get(t, (None, None))
    if dense is not None:
        extra["intermediate_size"] = dense
    if moe is not None:
        extra["moe_intermediate_size"] = moe
    return _ClassSpec({**spec.defaults, **extra}, spec.not_null) if extra else spec


_TYPE_DEFAULTS = {t: _with_table_defaults(t, spec) for t, spec in _TYPE_DEFAULTS.items()}

#: A VLM's text sub-config without a ``model_type`` takes its parent class's default type
#: (only parents whose default text type has a row in ``_TYPE_DEFAULTS`` are listed).
_DEFAULT_TEXT_TYPE: Mapping[Any, str] = {
    "audioflamingo3": "qwen2", "aya_vision": "cohere2", "cohere2_vision": "cohere2",
    "cosmos3_omni": "qwen3_vl_text", "deepseek_vl": "llama", "deepseek_vl_hybrid": "llama",
    "embedding_gemma2": "embedding_gemma2_text", "exaone4_5": "exaone4", "fast_vlm": "qwen2",
    "fun_asr_nano": "qwen3", "gemma3": "gemma3_text",
    "glmasr": "llama", "got_ocr2": "qwen2", "granite_speech": "granite",
    "granite_speech_plus": "granite", "idefics2": "mistral", "idefics3": "llama",
    "intern_s2_preview": "qwen3_5_moe_text", "internvl": "qwen2", "janus": "llama",
    "jev": "qwen3_5_text", "lfm2_vl": "lfm2", "lighton_ocr": "qwen3", "llama4": "llama4_text",
    "llava": "llama", "llava_next": "llama", "llava_next_video": "llama",
    "llava_onevision": "qwen2", "minicpm_ocr": "qwen3_5_text", "minicpmv4_6": "qwen3_5_text",
    "minicpmv4_7": "qwen3_5_text", "mistral3": "mistral", "moss_transcribe_diarize": "qwen3",
    "musicflamingo": "qwen2", "nemo_speechlm": "nemotron_h", "omniasr": "llama",
    "ovis2": "qwen2", "paligemma": "gemma", "perception_lm": "llama", "pp_chart2table": "qwen2",
    "qianfan_ocr": "qwen3", "qwen2_5_vl": "qwen2_5_vl_text", "qwen2_audio": "qwen2",
    "qwen2_vl": "qwen2_vl_text", "qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text",
    "qwen3_vl": "qwen3_vl_text", "qwen3_vl_moe": "qwen3_vl_moe_text",
    "shieldgemma2": "gemma3_text", "smolvlm": "llama",
    # SGLang's own Step3p7Config: without ``text_config`` it builds a default Step3p5Config
    # (the top-level keys stay on the parent) and a default vision encoder config
    "step3p7": "step3p5", "vibevoice": "qwen2",
    "vibevoice_asr": "qwen2", "video_llama_3": "qwen2", "video_llava": "llama",
    "vipllava": "llama", "voxtral": "llama",
}

#: VLM classes that build their default text config from the top-level keys.
_TEXT_FROM_TOP_LEVEL = frozenset({"qwen2_vl", "qwen2_5_vl"})
#: Omni thinkers whose text config class is fixed, whatever model_type the dict names.
_THINKER_TEXT_TYPE: Mapping[Any, str] = {"qwen2_5_omni": "qwen2_5_omni_text",
                                         "qwen3_omni_moe": "qwen3_omni_moe_text"}

#: transformers' ``attribute_map`` aliases for the keys SGLang reads (canonical → JSON key),
#: for the language-model types that have them.
_GPT2_ALIASES = {"hidden_size": "n_embd", "max_position_embeddings": "n_positions",
                 "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"}
_ATTRIBUTE_ALIASES: Mapping[str, Mapping[str, str]] = {
    "gpt2": _GPT2_ALIASES, "gpt_bigcode": _GPT2_ALIASES, "gptj": _GPT2_ALIASES,
    "codegen": _GPT2_ALIASES, "ctrl": _GPT2_ALIASES, "gpt-sw3": _GPT2_ALIASES,
    "openai-gpt": _GPT2_ALIASES, "imagegpt": _GPT2_ALIASES,
    "bloom": {"num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
    "gpt_neo": {"num_attention_heads": "num_heads", "num_hidden_layers": "num_layers"},
    "chatglm": {"num_hidden_layers": "num_layers", "vocab_size": "padded_vocab_size"},
    "exaone": {"num_hidden_layers": "num_layers"},
    "dbrx": {"hidden_size": "d_model", "max_position_embeddings": "max_seq_len",
             "num_attention_heads": "n_heads", "num_hidden_layers": "n_layers"},
    "mpt": {"hidden_size": "d_model", "num_attention_heads": "n_heads",
            "num_hidden_layers": "n_layers"},
    "xglm": {"hidden_size": "d_model", "num_attention_heads": "attention_heads",
             "num_hidden_layers": "num_layers"},
    "whisper": {"hidden_size": "d_model", "num_attention_heads": "encoder_attention_heads",
                "num_hidden_layers": "encoder_layers",
                "num_key_value_heads": "encoder_attention_heads"},
    "jetmoe": {"head_dim": "kv_channels"},
    "zamba": {"head_dim": "attention_head_dim"},
    "zamba2": {"head_dim": "attention_head_dim"},
    "glm4_moe_lite": {"head_dim": "qk_rope_head_dim"},
    "recurrent_gemma": {"sliding_window": "attention_window_size"},
    "rwkv": {"max_position_embeddings": "context_length"},
    "inkling_text": {"sliding_window": "sliding_window_size"},
    "inkling2_text": {"sliding_window": "sliding_window_size"},
    "inkling2_loop_text": {"sliding_window": "sliding_window_size"},
}

#: Every model_type transformers 5.24 (with SGLang 0.5.23's registrations) recognises; a type
#: outside it needs remote code (``auto_map``) or transformers refuses the checkpoint.
_KNOWN_MODEL_TYPES = frozenset("""
    EvollaModel NemotronH_Nano_Omni_Reasoning_V3 NemotronH_Nano_VL_V2 afmoe aimv2
    aimv2_text_model aimv2_vision_model albert align align_text_model align_vision_model altclip
    altclip_text_model altclip_vision_model apertus apertus1p5 apertus1p5_text
    apertus1p5_vision_tokenizer arcee aria aria_text audio-spectrogram-transformer
    audioflamingo3 audioflamingo3_encoder autoformer axk1 axk2 aya_vision bailing_hybrid
    bailing_moe_v3_vl bailingmm_moe_v2_lite bamba bark bart beam beit bert bert-generation
    big_bird bigbird_pegasus biogpt bit bitnet blenderbot blenderbot-small blip blip-2
    blip_2_qformer blip_2_vision_model blip_text_model blip_vision_model bloom blt
    blt_global_transformer blt_local_decoder blt_local_encoder blt_patcher bridgetower
    bridgetower_text_model bridgetower_vision_model bros camembert canary canary_decoder canine
    chameleon chameleon_vqgan chatglm chinese_clip chinese_clip_text_model
    chinese_clip_vision_model chmv2 clap clap_audio_model clap_text_model clip clip_text_model
    clip_vision_model clipseg clipseg_text_model clipseg_vision_model clvp clvp_decoder
    clvp_encoder codegen cohere cohere2 cohere2_moe cohere2_vision cohere_asr cohere_compass
    cohere_compass_text cohere_compass_vision colmodernvbert colpali colqwen2 conditional_detr
    convbert convnext convnextv2 cosmos3_edge cosmos3_edge_projector cosmos3_edge_text
    cosmos3_edge_vision cosmos3_omni cpmant csm csm_depth_decoder_model ctrl cvt cwm d_fine
    dab-detr dac data2vec-audio data2vec-text data2vec-vision dbrx deberta deberta-v2
    decision_transformer deepseek-ocr deepseek_ocr2 deepseek_ocr2_encoder
    deepseek_ocr2_sam_vision_model deepseek_ocr2_text deepseek_ocr2_vision deepseek_v2
    deepseek_v3 deepseek_v32 deepseek_v4 deepseek_v41 deepseek_v41_text deepseek_v41_vision
    deepseek_vl deepseek_vl_hybrid deepseek_vl_v2 deformable_detr deimv2 deit depth_anything
    depth_pro detr dia dia_decoder dia_encoder diffllama diffusion_gemma diffusion_gemma_text
    dinat dinov2 dinov2_with_registers dinov3_convnext dinov3_vit distilbert doge donut-swin
    dory dots1 dots3_note dots3_note_audio_encoder dots3_note_text dots3_note_vision_encoder
    dots_ocr dots_vlm dpr dpt edgetam edgetam_mask_decoder edgetam_prompt_encoder edgetam_video
    edgetam_video_mask_decoder edgetam_video_prompt_encoder edgetam_vision_model efficientloftr
    efficientnet electra embedding_gemma2 embedding_gemma2_text emu3 emu3_text_model emu3_vqgan
    encodec encoder-decoder eomt eomt_dinov3 ernie ernie4_5 ernie4_5_moe ernie4_5_vl_moe
    ernie4_5_vl_moe_text ernie4_5_vl_moe_vision esm esmc esmfold2 eurobert evolla exaone exaone4
    exaone4_5 exaone4_5_vision exaone_moe falcon falcon_h1 falcon_mamba fast_vlm
    fastspeech2_conformer fastspeech2_conformer_hifigan fastspeech2_conformer_with_hifigan
    flaubert flava flava_image_codebook flava_image_model flava_multimodal_model
    flava_text_model flex_olmo flint florence2 florence_vision fnet focalnet fsmt fun_asr_nano
    fun_asr_nano_encoder funnel fuyu gemma gemma2 gemma3 gemma3_text gemma3n gemma3n_audio
    gemma3n_text gemma3n_vision gemma4 gemma4_assistant gemma4_audio gemma4_text gemma4_unified
    gemma4_unified_assistant gemma4_unified_audio gemma4_unified_text gemma4_unified_vision
    gemma4_vision gigachat3_5 git git_vision_model glm glm4 glm46v glm4_moe glm4_moe_lite glm4v
    glm4v_moe glm4v_moe_text glm4v_moe_vision glm4v_text glm4v_vision glm5_next glm5_next_text
    glm5_next_vision glm_image glm_image_text glm_image_vision glm_image_vqmodel glm_moe_dsa
    glm_ocr glm_ocr_text glm_ocr_vision glmasr glmasr_encoder glmga glpn got_ocr2
    got_ocr2_vision gpt-sw3 gpt2 gpt_bigcode gpt_neo gpt_neox gpt_neox_japanese gpt_oss gptj
    gradium_phonon_tts granite granite4_vision granite4_vision_text granite_docling
    granite_docling_text granite_docling_vision granite_speech granite_speech5_ctc
    granite_speech5_encoder granite_speech_encoder granite_speech_plus
    granite_speech_plus_encoder granite_swa granitemoe granitemoe_swa granitemoehybrid
    granitemoeshared grounding-dino groupvit groupvit_text_model groupvit_vision_model gte
    helium hgnet_v2 hiera higgs_audio_v2 higgs_audio_v2_tokenizer hrm_text hubert
    hunyuan_v1_dense hunyuan_v1_moe hunyuan_vl hunyuan_vl_text hunyuan_vl_vision hy_v3 hy_v4
    hy_v4_vl hy_v4_vl_text hy_v4_vl_vision hyperclovax hyperclovax_vision_v2 ibert idefics
    idefics2 idefics2_perceiver idefics2_vision idefics3 idefics3_vision idefics_perciever
    idefics_vision ijepa imagegpt informer inkling2 inkling2_loop inkling2_loop_text
    inkling2_text inkling2_vision inkling_audio inkling_audio_model inkling_mm_model
    inkling_model inkling_text inkling_vision inkling_vision_model instructblip
    instructblip_qformer instructblip_vision_model instructblipvideo instructblipvideo_qformer
    instructblipvideo_vision_model intern_s2_preview internlm3 interns2_mobius
    interns2_mobius_text internvl internvl_chat internvl_vision iquest_q1 iquest_q1_mtp
    iquestcoder jais2 jamba janus janus_vision_model janus_vqgan jet_nemotron jet_vlm jetmoe jev
    jina_embeddings_v3 k2_horizon kimi_k2 kimi_k25 kimi_k25_vision kimi_k3 kimi_linear kimi_vl
    kolibri1 kosmos-2 kosmos-2.5 kosmos_2_5_text_model kosmos_2_5_vision_model
    kosmos_2_text_model kosmos_2_vision_model kyutai_speech_to_text laguna lara_mini lasr_ctc
    lasr_encoder layoutlm layoutlmv2 layoutlmv3 layoutxlm led levit lfm2 lfm2_moe lfm2_vl lfm3
    lfm3_vl lfm3_vl_vision lightglue lighton_ocr lilt llama llama4 llama4_text
    llama4_vision_model llava llava_next llava_next_video llava_onevision locateanything
    longcat_flash longformer longt5 luke lw_detr lw_detr_vit lxmert m2m_100 mamba mamba2 marian
    markuplm mask2former maskformer maskformer-swin mbart megatron-bert mellum metaclip_2
    metaclip_2_text_model metaclip_2_vision_model mgp-str mimi mimi_decoder mimi_encoder
    mimo_v2_flash minicpm3 minicpm_ocr minicpm_ocr_vision minicpm_sala minicpmv4_6
    minicpmv4_6_vision minicpmv4_7 minicpmv4_7_vision minimax minimax_m2 minimax_m3_vl
    minimax_m3_vl_text minimax_m3_vl_vision ministral ministral3 mistral mistral3 mistral4
    mistral_large4 mistral_large4_text mixtral mlcd mlcd_vision_model mllama mllama_text_model
    mllama_vision_model mm-grounding-dino mobilebert mobilenet_v1 mobilenet_v2 mobilevit
    mobilevitv2 modernbert modernbert-decoder modernvbert molmo2 molmo2_adapter molmo2_text
    molmo2_vision moonshine moonshine_streaming moonshine_streaming_encoder moshi moshi_depth
    moss_transcribe_diarize moss_transcribe_diarize_audio mpnet mpt mra mt5 multi_modality
    muse_glimmer muse_glimmer_assistant muse_glimmer_text muse_glimmer_vision muse_spark
    muse_spark_audio muse_spark_text muse_spark_vision musicflamingo musicgen musicgen_decoder
    musicgen_melody musicgen_melody_decoder mvp nanbeige nanochat nemo_speechlm nemotron
    nemotron3_5_asr nemotron3_5_transcribe_asr_audio nemotron3_5_transcribe_audio
    nemotron3_5_transcribe_word_timestamp nemotron3_diarization nemotron3_diarization_audio
    nemotron_asr_streaming nemotron_asr_streaming_encoder nemotron_h nemotron_h_omni
    nemotron_h_puzzle neomme neucodec nllb-moe nomic_bert nougat nystromformer olmo olmo2 olmo3
    olmo_hybrid olmoe omdet-turbo omniasr omniasr_audio omniasr_ctc oneformer openai-gpt
    openai_privacy_filter opt ovis2 ovis2_vision owlv2 owlv2_text_model owlv2_vision_model
    owlvit owlvit_text_model owlvit_vision_model paddleocr_vl paddleocr_vl_text
    paddleocr_vl_vision paligemma parakeet_ctc parakeet_encoder parakeet_rnnt parakeet_tdt
    patchtsmixer patchtst pe_audio pe_audio_encoder pe_audio_video pe_audio_video_encoder
    pe_video pe_video_encoder pegasus pegasus_x perceiver perception_lm persimmon phi phi3
    phi4_multimodal phi4_multimodal_audio phi4_multimodal_vision phimoe pi0 pix2struct
    pix2struct_text_model pix2struct_vision_model pixio pixtral plbart pocket_tts
    pocket_tts_audio_tokenizer pocket_tts_audio_tokenizer_decoder
    pocket_tts_audio_tokenizer_encoder poolformer pop2piano pp_chart2table pp_chart2table_vision
    pp_doclayout_v2 pp_doclayout_v3 pp_doclayout_v4 pp_formulanet pp_formulanet_text
    pp_formulanet_vision pp_lcnet pp_lcnet_v3 pp_lcnet_v4 pp_ocrv5_mobile_det
    pp_ocrv5_mobile_rec pp_ocrv5_server_det pp_ocrv5_server_rec pp_ocrv6_medium_det
    pp_ocrv6_small_det pp_ocrv6_small_rec pp_ocrv6_tiny_rec prompt_depth_anything prophetnet pvt
    pvt_v2 qianfan_ocr qianfan_ocr_vision qwen2 qwen2_5_omni qwen2_5_omni_audio_encoder
    qwen2_5_omni_bigvgan qwen2_5_omni_dit qwen2_5_omni_talker qwen2_5_omni_text
    qwen2_5_omni_thinker qwen2_5_omni_token2wav qwen2_5_omni_vision_encoder qwen2_5_vl
    qwen2_5_vl_text qwen2_5_vl_vision qwen2_audio qwen2_audio_encoder qwen2_moe qwen2_vl
    qwen2_vl_text qwen2_vl_vision qwen3 qwen3_5 qwen3_5_moe qwen3_5_moe_text qwen3_5_moe_vision
    qwen3_5_text qwen3_5_vision qwen3_asr qwen3_asr_encoder qwen3_asr_thinker qwen3_moe
    qwen3_next qwen3_omni_moe qwen3_omni_moe_audio_encoder qwen3_omni_moe_talker_code_predictor
    qwen3_omni_moe_talker_text qwen3_omni_moe_text qwen3_omni_moe_thinker
    qwen3_omni_moe_vision_encoder qwen3_vl qwen3_vl_moe qwen3_vl_moe_text qwen3_vl_moe_vision
    qwen3_vl_text qwen3_vl_vision qwen4_exp qwen4_exp_text qwen4_exp_vision radio rag
    recurrent_gemma reformer regnet rembert resnet rf_detr rf_detr_dinov2 roberta
    roberta-prelayernorm roc_bert roformer rt_detr rt_detr_resnet rt_detr_v2 rwkv sam sam2
    sam2_hiera_det_model sam2_mask_decoder sam2_prompt_encoder sam2_video
    sam2_video_mask_decoder sam2_video_prompt_encoder sam2_vision_model sam3 sam3_detr_decoder
    sam3_detr_encoder sam3_geometry_encoder sam3_lite_text sam3_lite_text_detr_decoder
    sam3_lite_text_detr_encoder sam3_lite_text_geometry_encoder sam3_lite_text_mask_decoder
    sam3_lite_text_text_model sam3_mask_decoder sam3_tracker sam3_tracker_mask_decoder
    sam3_tracker_prompt_encoder sam3_tracker_video sam3_tracker_video_mask_decoder
    sam3_tracker_video_prompt_encoder sam3_video sam3_vision_model sam3_vit_model sam_hq
    sam_hq_mask_decoder sam_hq_prompt_encoder sam_hq_vision_model sam_mask_decoder
    sam_prompt_encoder sam_vision_model sapiens2 sapiens2_head sarvam_mla sarvam_moe
    seamless_m4t seamless_m4t_v2 seed_oss segformer seggpt sew sew-d shieldgemma2 siglip siglip2
    siglip2_text_model siglip2_vision_model siglip_text_model siglip_vision_model slanet slanext
    slanext_vision smollm3 smolvlm smolvlm_vision solar_open spark2_5 speech-encoder-decoder
    speech_to_text speecht5 speecht5_hifigan splinter squeezebert stablelm starcoder2 step3_vl
    step3p5 step3p5_vision step3p7 superglue superpoint swiftformer swin swin2sr swinv2
    switch_transformers t5 t5_gemma_module t5gemma t5gemma2 t5gemma2_decoder t5gemma2_encoder
    t5gemma2_text table-transformer tapas textnet time_series_transformer timesfm timesfm2_5
    timesformer timm_backbone timm_wrapper tipsv2 tipsv2_dpt tipsv2_text_model
    tipsv2_vision_model trocr tvp udop ultrabert ultravbert umt5 unispeech unispeech-sat univnet
    unlimited-ocr unlimited_ocr unlimited_ocr_sam_vision_model unlimited_ocr_text
    unlimited_ocr_vision unlimited_ocr_vision_encoder upernet uvdoc uvdoc_backbone vaultgemma
    vibevoice vibevoice_acoustic_tokenizer vibevoice_acoustic_tokenizer_decoder
    vibevoice_acoustic_tokenizer_encoder vibevoice_asr vibevoice_diffusion video_llama_3
    video_llama_3_vision video_llava videomae videomt videoprism videoprism_text_model
    videoprism_vision_model vilt vipllava vision-encoder-decoder vision-text-dual-encoder
    visual_bert vit vit_mae vit_msn vitdet vitmatte vitpose vitpose_backbone vits vivit vjepa2
    voxtral voxtral_encoder voxtral_realtime voxtral_realtime_encoder voxtral_realtime_text
    wav2vec2 wav2vec2-bert wav2vec2-conformer wavlm wavtokenizer wavtokenizer_encoder whisper
    xclip xclip_text_model xclip_vision_model xcodec xcodec2 xglm xllm xlm xlm-roberta
    xlm-roberta-xl xlnet xlstm xmod yolos yoso youtu zamba zamba2 zaya zoedepth
""".split())


# --- which top-level model types a release can read under the transformers it pins ---------------

@functools.cache
def pinned_config_types(release: str) -> frozenset[str] | None:
    """The top-level ``model_type`` values SGLang ``release`` reads without remote code under
    the transformers version it pins (what ``pip install sglang`` brings): that version's
    ``CONFIG_MAPPING_NAMES`` and the types the release registers itself. ``get_config``
    hands every other type to ``AutoConfig.from_pretrained``, which refuses it. None when the
    tables hold no list for the release or its pin (nothing is claimed then); 0.5.23's list
    for a release the table does not hold, as ``model_classes.registered`` does."""
    from launchplan.facts.model_classes import _table, transformers_pin

    table = _table()
    known = table["transformers"].get(transformers_pin(release), {}).get("model_types")
    own_lists = table.get("sglang_config_types") or {}
    own = own_lists.get(release) or (own_lists[max(own_lists)] if own_lists else None)
    if known is None or own is None:
        return None
    return frozenset(known) | frozenset(own)


@functools.cache
def read_by_every_release() -> frozenset[str]:
    """The model types every tabled release reads under its pin: a checkpoint of one of them
    needs no further look (one set lookup per model)."""
    from launchplan.facts.model_classes import releases

    lists = [pinned_config_types(r) for r in releases()]
    if any(types is None for types in lists):
        return frozenset()
    return frozenset.intersection(*(t for t in lists if t is not None))


def first_reading_transformers(model_type: str, release: str) -> tuple[str, bool] | None:
    """A transformers version newer than ``release``'s pin that knows ``model_type``, and
    whether it is the first minor release to: the tables read each minor release from the
    newest pin to 5.24.0 (``model_types_since``), but none between an older pin and a newer
    one (a type the newer pin knows is only known to be read there). None: none read does."""
    from launchplan.facts.model_classes import _table, transformers_pin

    table = _table()
    pin = _version(transformers_pin(release))
    pins = sorted((_version(v), v) for v, entry in table["transformers"].items()
                  if _version(v) > pin and model_type in (entry.get("model_types") or ()))
    if pins:
        return pins[0][1], False
    since = (table.get("model_types_since") or {}).get(model_type)
    return (since, True) if since is not None else None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(".") if x.isdigit())
