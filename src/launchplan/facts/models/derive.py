"""From the parsed config to ``ModelFacts``: dtype, context length and everything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from launchplan.errors import InputError
from launchplan.facts import quantization as quant
from launchplan.facts.environment import longer_context_allowed
from launchplan.facts.models.architectures import (
    _AUTO_EMBEDDING_ARCHS,
    _DSA_ARCHS,
    _ENCODER_DECODER_ARCHS,
    _MIMO_V2_ARCHS,
    _MM_BREAKABLE_GRAPH,
    _MM_DEFAULT_OFF,
    _MM_NO_CHUNKED_PREFILL,
    _MULTIMODAL_ARCHS,
    _NON_GENERATION_ARCHS,
    _PURE_SSM,
    _SWA_SINK_ARCHS,
)
from launchplan.facts.models.attention import (
    _is_hybrid_swa,
    _linear_attn_kind,
    _shapes,
    _total_kv_heads,
    _uses_kda,
)
from launchplan.facts.models.draft import _DSPARK_KEYS, _draft_renames
from launchplan.facts.models.fields import MAX_INT, _as_int, _Fields, _num
from launchplan.facts.models.hf_classes import (
    _DEFAULT_TEXT_TYPE,
    _KNOWN_MODEL_TYPES,
    _TYPE_DEFAULTS,
    _apply_override,
    _normalised_rope,
    _parser_fixes,
    _text_config,
    _with_class_defaults,
    check_uniform_top_level,
)
from launchplan.facts.models.locate import _Source
from launchplan.facts.models.mamba_hybrids import check_granite_hybrid
from launchplan.facts.models.record import ModelFacts
from launchplan.numbers import finite

#: Environment variables that let ``--context-length`` exceed the derived length.


def _derive(raw: dict[str, Any], source: _Source, override: dict[str, Any] | None,
            context_length: int | None, env: Mapping[str, str],
            draft: tuple[str | None] | None, hf_quant: dict[str, Any] | None,
            modelslim: dict[str, Any] | None) -> ModelFacts:
    where = source.display
    caveats: list[str] = []
    top = _parser_fixes(dict(raw), where)
    as_read = top  # what SGLang's config reader reads, before any override
    overridden: frozenset[str] = frozenset()
    if override:
        top = _apply_override(top, override)
        overridden = frozenset(override)
    f = _Fields(top, where, overridden=overridden)

    archs = f.str_list("architectures")
    if not archs or not all(archs):
        raise f.fail("architectures", "a non-empty list of architecture names",
                     top.get("architectures"),
                     hint=None if "architectures" in top else "the key is missing")
    model_type = f.str("model_type")
    if not model_type:
        raise f.fail("model_type", "a model type name (e.g. 'llama')", top.get("model_type"),
                     hint=None if "model_type" in top else "the key is missing")
    check_uniform_top_level(as_read, where)
    auto_map = top.get("auto_map")
    has_remote_code = isinstance(auto_map, Mapping) and bool(auto_map)
    known = model_type in _KNOWN_MODEL_TYPES
    if not known:
        if not has_remote_code:
            raise f.fail("model_type", "a model type transformers 5 or SGLang 0.5.23 knows "
                         "(or an auto_map for --trust-remote-code)", model_type)
        caveats.append(f"remote-code config (model_type {model_type!r}): transformers would "
                       "run the checkpoint's configuration code; its defaults may differ")

    lowered = source.given.lower()
    if any(m in lowered for m in ("mistral-large-3", "mistral-small-4", "leanstral")) or (
            "eagle" in lowered and "mistral" in lowered):
        caveats.append("for this path SGLang's auto parser reads the native params.json, not "
                       "config.json")
    top = _with_class_defaults(top, model_type, where, "", overridden)
    _check_layout_keys(top, where, overridden)
    text, text_prefix, has_text = _text_config(top, archs, where)
    is_draft = draft is not None
    if is_draft:
        top, text, archs, has_text = _draft_renames(top, text, archs, draft[0], has_text)
    if has_text:
        for k, v in text.items():  # the hf parser copies text attributes up when missing
            if k not in top and v is not None:
                top[k] = v
    f = _Fields(top, where, overridden=overridden)
    t = _Fields(text, where, text_prefix, overridden)
    text_type = text.get("model_type") if isinstance(text.get("model_type"), str) else None
    if text_type is None:
        text_type = _DEFAULT_TEXT_TYPE.get(model_type) if has_text else model_type
    arch0 = archs[0]
    arch_set = frozenset(archs)

    # --- dtype (§2.5) ---------------------------------------------------------------------
    config_dtype = _config_dtype(text, t, arch0)
    if config_dtype is None or config_dtype == "float32":
        dtype = "bfloat16" if (text_type or "").startswith("gemma") else "float16"
    else:
        dtype = config_dtype

    # --- context length (§2.4) --------------------------------------------------------------
    rope = _normalised_rope(text, t, text_type)
    derived = _derived_context(text, t, rope)
    if context_length is None:
        context_len = min(derived, 8192) if arch0 == "EmbeddingGemma2Model" else derived
    elif context_length <= derived or longer_context_allowed(env):
        context_len = context_length
    else:
        raise _context_too_long(context_length, derived, where, is_draft)

    # --- shapes (§2.2, §2.3) ----------------------------------------------------------------
    pure_ssm = bool(arch_set & _PURE_SSM)
    shapes = _shapes(text, f, t, arch_set, pure_ssm)
    heads = t.int("num_attention_heads")
    total_kv = _total_kv_heads(top, text, f, t, model_type, shapes["arch"], heads)
    hidden = t.int("hidden_size")
    vocab = t.int("vision_vocab_size" if arch0 == "GlmImageForConditionalGeneration"
                  else "vocab_size")

    # --- sliding window, hybrid SWA, sinks (§2.6) -------------------------------------------
    window = None
    for key in ("sliding_window_size", "sliding_window", "window_size"):
        if text.get(key) is not None:
            # SGLang stores the first present key as it is and reads it only for sliding-window
            # classes; a negative value is the "no window" marker (grok-2's published file
            # writes ``sliding_window_size: -1``), so it means no window, not bad input
            window = t.int(key, negative_means_none=True)
            break
    hybrid_swa = _is_hybrid_swa(arch_set, text, text_type)
    if arch_set & _SWA_SINK_ARCHS:
        sinks = True
    elif arch_set & _MIMO_V2_ARCHS:
        sinks = bool(text.get("add_swa_attention_sink_bias")
                     or text.get("add_full_attention_sink_bias"))
    else:
        sinks = bool(text.get("learnable_sink"))

    # --- multimodal (§2.10) -----------------------------------------------------------------
    if arch0 in _MM_DEFAULT_OFF:
        mm_default = False
    elif arch0 == "MiMoV2ForCausalLM":
        mm_default = "vision_config" in top and "audio_config" in top
    else:
        mm_default = True
    lm_only = bool(top.get("language_model_only"))
    mm_match = (bool(arch_set & _MULTIMODAL_ARCHS) or has_text
                or (model_type == "deepseek_v41" and _num(top.get("vision_n_layers")) > 0))
    is_multimodal = mm_default and not lm_only and mm_match
    if model_type == "granitemoehybrid":
        check_granite_hybrid(top, f.fail)
    vision = top.get("vision_config")
    if isinstance(vision, Mapping):
        # imported here: ``facts.vision`` reads this package's bounds, so importing it at the
        # top made ``import launchplan.facts.vision`` on its own a circular import
        from launchplan.facts.vision import check_vision_size

        check_vision_size(model_type, vision,
                          _Fields(dict(vision), where, "vision_config.", overridden).fail)

    # --- quantization (§3.2) ----------------------------------------------------------------
    qc_raw = f.mapping("quantization_config")
    f.mapping("compression_config")
    qc = quant.effective_quant_config(top, hf_quant_config=hf_quant, modelslim=modelslim,
                                      is_draft=is_draft)
    if qc is not None and qc.get("quant_method") is not None \
            and not isinstance(qc.get("quant_method"), str):
        raise f.fail("quantization_config", "a 'quant_method' string", qc.get("quant_method"))
    if qc is not None:  # named where the file holds it (a class may lift it from the text block)
        nested = not isinstance(raw.get("quantization_config"), Mapping) and isinstance(
            raw.get("text_config"), Mapping) and isinstance(
            raw["text_config"].get("quantization_config"), Mapping)
        _check_quant_kinds(qc, f, "text_config." if nested else "")
    quant_method = None if qc is None else quant.method_of(qc)

    # --- everything else --------------------------------------------------------------------
    embedding_gemma = text_type == "gemma3_text" and bool(text.get("use_bidirectional_attention"))
    index_topk = f.int("index_topk")
    if known and text_type not in _TYPE_DEFAULTS and not any(
            text.get(k) is not None for k in _CONTEXT_KEYS):
        caveats.append(f"config.json names no context length and launchplan does not know the "
                       f"defaults of model_type {text_type!r}: assumed 2048 as SGLang's "
                       "fallback; the transformers class may default differently")
    frozen_top = _freeze(top)
    return ModelFacts(
        path=source.given,
        name=source.name,
        config_file=source.config_file,
        architectures=tuple(archs),
        arch0=arch0,
        model_type=model_type,
        text_model_type=text_type,
        model_type_known=known,
        attention_arch=shapes["arch"],
        num_hidden_layers=_layer_count(t),
        hidden_size=hidden,
        vocab_size=vocab,
        num_attention_heads=heads,
        total_num_kv_heads=total_kv,
        head_dim=shapes["head_dim"],
        v_head_dim=shapes["v_head_dim"],
        swa_head_dim=shapes["swa_head_dim"],
        swa_v_head_dim=shapes["swa_v_head_dim"],
        has_asymmetric_kv=(shapes["head_dim"] != shapes["v_head_dim"]
                           or shapes["swa_head_dim"] != shapes["swa_v_head_dim"]),
        kv_lora_rank=shapes.get("kv_lora_rank"),
        qk_nope_head_dim=shapes.get("qk_nope_head_dim"),
        qk_rope_head_dim=shapes.get("qk_rope_head_dim"),
        context_len=context_len,
        derived_context_len=derived,
        dtype=dtype,
        config_dtype=config_dtype,
        quant_method=quant_method,
        quantization_config=_freeze(_as_verified(qc_raw)) if qc_raw is not None else None,
        quant_config=_freeze(qc) if qc is not None else None,
        checkpoint_kv_algo=quant.checkpoint_kv_algo(top, hf_quant, quant_method),
        sliding_window=window,
        attention_chunk_size=t.int("attention_chunk_size"),
        is_hybrid_swa=hybrid_swa,
        has_attention_sinks=sinks,
        learnable_sink=bool(top.get("learnable_sink")),
        is_multimodal=is_multimodal,
        multimodal_default=mm_default,
        has_text_config=has_text,
        language_model_only=lm_only,
        mm_chunked_prefill_supported=not (arch_set & _MM_NO_CHUNKED_PREFILL),
        mm_breakable_graph_supported=bool(arch_set & _MM_BREAKABLE_GRAPH),
        linear_attn_kind=_linear_attn_kind(top, text, model_type, text_type, is_draft),
        uses_kda=_uses_kda(top) or (has_text and _uses_kda(text)),
        mamba_chunk_size=f.int("mamba_chunk_size", positive=True, default=64) or 64,
        is_deepseek_dsa=arch0 in _DSA_ARCHS and index_topk is not None,
        index_topk=index_topk,
        num_nextn_predict_layers=t.int("num_nextn_predict_layers"),
        is_encoder_decoder=bool(arch_set & _ENCODER_DECODER_ARCHS),
        is_generation=not (arch_set & _NON_GENERATION_ARCHS) and not embedding_gemma,
        auto_embedding=bool(arch_set & _AUTO_EMBEDDING_ARCHS) or embedding_gemma,
        is_embedding_gemma=embedding_gemma,
        has_remote_code=has_remote_code,
        has_dspark_keys=any(top.get(k) is not None for k in _DSPARK_KEYS),
        rope_scaling=_freeze(rope) if rope is not None else None,
        is_draft=is_draft,
        is_gguf=source.is_gguf,
        caveats=tuple(caveats),
        config=frozen_top,
        text_config=_freeze(text) if has_text else frozen_top,
    )


def _freeze(v: Any) -> Any:
    """A read-only deep copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(v, Mapping):
        return MappingProxyType({k: _freeze(x) for k, x in v.items()})
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    return v


#: The deepest stack a config may declare. The memory plan lays a model out one row a layer
#: (SGLang builds one module a layer); published checkpoints have at most a few hundred, so
#: a count past this is a typo or a hostile file, refused before anything is laid out.
MAX_LAYERS = 1 << 12


#: Keys counting layers or stages the memory plan lays out one row each (the decoder, MTP
#: stages, vision and audio encoders), wherever a config block holds them.
_COUNT_KEYS = ("num_hidden_layers", "num_nextn_predict_layers", "mtp_num_layers",
               "mtp_num_hidden_layers", "vt_num_hidden_layers", "depth",
               "num_layers", "n_layers", "n_layer", "vision_n_layers", "encoder_layers",
               "decoder_layers", "num_global_layers")
_COUNTED_BLOCKS = ("text_config", "vision_config", "audio_config", "llm_config",
                   "language_config", "thinker_config", "speech_config")


def _layer_count(t: _Fields) -> int | None:
    layers = t.int("num_hidden_layers")
    if layers is not None and layers > MAX_LAYERS:
        raise _too_deep(t, "num_hidden_layers", layers)
    return layers


#: Keys SGLang's classes walk as per-layer lists (layer kinds, deepstack taps, linear-attention
#: and dense-MLP layer ids, RoPE flags): a scalar there stops its model code.
_LIST_KEYS = ("layer_types", "deepstack_visual_indexes", "kda_layers", "full_attn_layers",
              "full_attn_idxs", "mlp_only_layers", "no_rope_layers", "hybrid_layer_pattern",
              "compress_ratios", "sparse_attention_freq", "sparse_disable_index_value",
              "kv_source_layer_ids")
#: Blocks nested in a counted block whose keys are checked as its own are (Kimi's linear
#: attention, MiniMax-M3's sparse attention, whose per-layer flags SGLang enumerates).
_NESTED_BLOCKS = ("linear_attn_config", "sparse_attention_config")
#: Keys with no strict class behind them that SGLang's classes (and the memory plan) take as
#: one number: Gemma 4's full-attention head width and KV heads, MiMo-V2's sliding-window KV
#: heads, the DSA indexer's top-k sharing period and offset (SGLang compares them with 0),
#: Qwen3.5's full-attention interval and MiniMax-M3's sparse index width and heads.
_NUMBER_KEYS = ("global_head_dim", "num_global_key_value_heads", "swa_num_key_value_heads",
                "index_topk_freq", "index_skip_topk_offset", "cli_factor",
                "full_attention_interval", "sparse_index_dim", "sparse_num_index_heads")
#: Keys SGLang's vision towers take as a pair of integers (Kimi's and MoonViT's patch merge,
#: indexed [0] and [1]).
_PAIR_KEYS = ("merge_kernel_size",)


def _check_layout_keys(top: Mapping[str, Any], where: str, overridden: frozenset[str]) -> None:
    """Refuse, in the file's top level or one of its blocks, a layer or stage count past
    ``MAX_LAYERS``, a per-layer list given as anything but a list or null, and a word or
    list where a class takes one number (other kinds are the typed reads' and the class
    tables' to judge)."""
    blocks = [(top, "")] + [(top[b], f"{b}.") for b in _COUNTED_BLOCKS
                            if isinstance(top.get(b), Mapping)]
    # one level further down: an omni model's thinker holds its own text and audio blocks
    blocks += [(block[b], f"{prefix}{b}.") for block, prefix in list(blocks[1:])
               for b in _COUNTED_BLOCKS if isinstance(block.get(b), Mapping)]
    blocks += [(block[nested], f"{prefix}{nested}.") for block, prefix in list(blocks)
               for nested in _NESTED_BLOCKS if isinstance(block.get(nested), Mapping)]
    for block, prefix in blocks:
        for key in _COUNT_KEYS:
            value = block.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and value > MAX_LAYERS:
                raise _too_deep(_Fields(dict(block), where, prefix, overridden), key, value)
        for key in _LIST_KEYS:
            value = block.get(key)
            if value is not None and not isinstance(value, (list, tuple)):
                raise _Fields(dict(block), where, prefix, overridden).fail(
                    key, "a JSON list (one entry a layer) or null", value)
        archs = block.get("architectures")
        if prefix and archs is not None and not (isinstance(archs, (list, tuple)) and all(
                isinstance(a, str) for a in archs)):
            raise _Fields(dict(block), where, prefix, overridden).fail(
                "architectures", "a list of architecture names or null", archs)
        for key in _NUMBER_KEYS:
            value = block.get(key)
            if _not_a_number(value):
                raise _Fields(dict(block), where, prefix, overridden).fail(
                    key, "a number or null", value)
        for key in _PAIR_KEYS:
            value = block.get(key)
            if value is not None and not (isinstance(value, (list, tuple)) and len(value) == 2
                                          and all(type(n) is int for n in value)):
                raise _Fields(dict(block), where, prefix, overridden).fail(
                    key, "a list of two integers or null", value)


def _not_a_number(value: Any) -> bool:
    """Set, and neither an integer nor a float (a JSON true is no number)."""
    return value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)))


#: Quantization settings SGLang's methods read as one number (AWQ, GPTQ, AutoRound: the weight
#: width and group size; spelled both ways) or walk as an object (compressed-tensors' groups).
_QUANT_NUMBERS = ("bits", "w_bit", "group_size", "q_group_size")
_QUANT_OBJECTS = ("config_groups",)


def _check_quant_kinds(qc: Mapping[str, Any], f: _Fields, block: str) -> None:
    """Refuse a quantization setting of a kind no method of SGLang's could read (its config
    parse stops there); values of the right kind are the methods' and rules' to judge."""
    for key in _QUANT_NUMBERS:
        value = qc.get(key)
        if _not_a_number(value):
            raise f.fail(f"{block}quantization_config.{key}", "a number or null", value)
    for key in _QUANT_OBJECTS:
        value = qc.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise f.fail(f"{block}quantization_config.{key}", "a JSON object or null",
                         value)


def _too_deep(fields: _Fields, key: str, value: Any) -> InputError:
    return fields.fail(key, f"at most {MAX_LAYERS:,} (launchplan lays the model out a layer "
                       "at a time)", value)


def _context_too_long(requested: int, derived: int, where: str, is_draft: bool) -> InputError:
    allow = "unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set"
    if is_draft:
        return InputError("--speculative-draft-model-path", f"a draft whose context length "
                          f"({derived}, derived from {where}) covers the target model's "
                          f"context length, {allow}", requested)
    return InputError("--context-length", f"at most {derived}, the context length derived from "
                      f"{where}, {allow}", requested)


def _config_dtype(text: Mapping[str, Any], t: _Fields, arch0: str) -> str | None:
    if arch0.startswith("Llava") and arch0.endswith("ForCausalLM"):
        return "float16"
    key = "dtype" if text.get("dtype") is not None else "torch_dtype"
    value = text.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or value not in _TORCH_DTYPES:
        raise t.fail(key, "a torch dtype name such as 'bfloat16'", value)
    return _TORCH_DTYPES[value]


_TORCH_DTYPES: Mapping[str, str] = {
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
    "float": "float32", "float64": "float64", "double": "float64",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e5m2": "float8_e5m2", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float8_e8m0fnu": "float8_e8m0fnu", "float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "int8": "int8", "uint8": "uint8", "int16": "int16", "short": "int16", "int32": "int32",
    "int": "int32", "int64": "int64", "long": "int64", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64", "bool": "bool", "complex64": "complex64",
    "cfloat": "complex64", "complex128": "complex128", "cdouble": "complex128",
}

_CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                 "max_position_embeddings")


def _as_verified(qc: Mapping[str, Any]) -> Mapping[str, Any]:
    """``quantization_config`` as SGLang's rules read it once its model config is built: a
    ModelOpt export that names its method ``modelopt`` (or none) gets the method its
    ``quant_algo`` means (``modelopt_fp4`` for NVFP4, ...) written into the very dict
    (``ModelConfig._parse_quant_hf_config`` updates the config's own mapping, 0.5.21-0.5.23),
    so the overrides that read the checkpoint's method see the refined one."""
    if "quant_method" in qc and qc.get("quant_method") != "modelopt":
        return qc
    parsed = quant.modelopt_parse(qc)
    return {**qc, **parsed} if parsed else qc


def _derived_context(text: Mapping[str, Any], t: _Fields,
                     rope: Mapping[str, Any] | None) -> int:
    factor: Any = 1
    if rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
            or not finite(factor) or factor <= 0:
        raise t.fail("rope_scaling.factor", "a positive number", factor)
    for key in _CONTEXT_KEYS:
        value = text.get(key)
        if value is None:
            continue
        n = _as_int(value) if not isinstance(value, float) else value
        if n is None or isinstance(n, bool) or not finite(n) or n <= 0 or n > MAX_INT:
            raise t.fail(key, "a positive integer", value)
        product = factor * n
        if not finite(product) or product > MAX_INT:
            raise t.fail(key, "a context length below 2**63 (after the rope factor)", value)
        return max(int(product), 1)
    return 2048
