"""Model facts: what SGLang 0.5.23 derives from a checkpoint's ``config.json``.

``config.json`` is read as data only; no model or configuration code is imported or run. The
behaviour of the transformers config classes that SGLang relies on (class defaults, attribute
aliases, rope normalisation, Qwen2's sliding-window drop) is emulated from tables for the
model types launchplan knows; for others the JSON is taken as given and ``caveats`` says so.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from launchplan.errors import InputError
from launchplan.facts import quantization as quant
from launchplan.struct import Struct, uncompared

#: Config files larger than this are refused before they are read.
MAX_CONFIG_BYTES = 16 * 1024 * 1024
#: Integers in a config may not exceed this (keeps float arithmetic and output sane).
MAX_INT = 2**63 - 1
#: Environment variables that let ``--context-length`` exceed the derived length.
LONGER_CONTEXT_ENV = ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_IS_IN_CI")

_BUNDLED_DIR = Path(__file__).resolve().parent / "data" / "models"
_CONFIG = "config.json"
_HF_QUANT = "hf_quant_config.json"
_MODELSLIM = "quant_model_description.json"


# --- the facts ----------------------------------------------------------------------------

class ModelFacts(Struct):
    """Everything the rules read about one model, as SGLang's cached ``ModelConfig`` has it.

    Built under SGLang's defaults (``--dtype auto``, no ``--enable-multimodal``, no
    ``--disable-hybrid-swa-memory``, no ``--is-embedding``); rules that see those flags
    combine them with the fields below (see ``multimodal``).
    """

    path: str  # the model path as given
    name: str  # bundled name, or the folder's name
    config_file: str  # the config.json that was read
    architectures: tuple[str, ...]  # after post-fixes, overrides and draft renames
    arch0: str  # architectures[0]: what dispatch-style rules read
    model_type: str  # top-level model_type
    text_model_type: str | None  # model_type of the text config (same object for plain LLMs)
    model_type_known: bool  # transformers 5 / SGLang know the type (else remote code only)
    attention_arch: str  # "MLA" | "MHA" | "SSM" (any-arch detection, §2.2)
    num_hidden_layers: int | None  # text config layers (None if absent and no class default)
    hidden_size: int | None  # text config hidden size
    vocab_size: int | None  # text config vocabulary (vision vocabulary for GLM-Image)
    num_attention_heads: int | None  # text config heads (None for head-less SSMs)
    total_num_kv_heads: int  # SGLang's get_total_num_kv_heads()
    head_dim: int  # after the MLA override (256 for DeepSeek)
    v_head_dim: int  # value head width
    swa_head_dim: int  # sliding-window layers' key width
    swa_v_head_dim: int  # sliding-window layers' value width
    has_asymmetric_kv: bool  # head_dim != v_head_dim or swa widths differ
    kv_lora_rank: int | None  # MLA ranks; None when not MLA
    qk_nope_head_dim: int | None
    qk_rope_head_dim: int | None
    context_len: int  # the context length SGLang uses (--context-length applied)
    derived_context_len: int  # from config.json alone
    dtype: str  # the dtype under --dtype auto, e.g. "bfloat16"
    config_dtype: str | None  # the dtype the text config declares (None: float32 assumed)
    quant_method: str | None  # detected from the checkpoint (§3.2), lower-case; "" = unnamed
    quantization_config: Mapping[str, Any] | None = uncompared()  # raw, top level
    quant_config: Mapping[str, Any] | None = uncompared()  # the description verified
    sliding_window: int | None  # first of sliding_window_size / sliding_window / window_size
    attention_chunk_size: int | None  # Llama-4 chunked attention
    is_hybrid_swa: bool  # before --disable-hybrid-swa-memory
    has_attention_sinks: bool  # learned sinks (GPT-OSS and friends)
    learnable_sink: bool  # top-level learnable_sink, which the DSA rules read
    is_multimodal: bool  # under default flags
    multimodal_default: bool  # what an unset --enable-multimodal becomes
    has_text_config: bool  # the text config is a sub-config (counts as multimodal)
    language_model_only: bool  # the checkpoint declares language_model_only
    mm_chunked_prefill_supported: bool  # architecture allows multimodal chunked prefill
    mm_breakable_graph_supported: bool  # a multimodal arch validated for a breakable prefill graph
    linear_attn_kind: str | None  # mamba-ish kind: "mamba" | "gdn" | "kda" | "lightning"
    uses_kda: bool  # Kimi delta attention layers (uses_kda_attention)
    mamba_chunk_size: int  # top-level mamba_chunk_size (default 64)
    is_deepseek_dsa: bool  # DeepSeek-family arch0 with index_topk
    index_topk: int | None  # DSA top-k (top level)
    num_nextn_predict_layers: int | None  # MTP layers in the text config
    is_encoder_decoder: bool  # Whisper / Mllama / MossVL
    is_generation: bool  # without --is-embedding
    auto_embedding: bool  # architecture declares is_embedding by itself
    is_embedding_gemma: bool  # gemma3_text with bidirectional attention
    has_remote_code: bool  # auto_map present
    has_dspark_keys: bool  # dspark_* keys at the top level
    rope_scaling: Mapping[str, Any] | None = uncompared()  # normalised, text config
    is_draft: bool  # built as a speculative draft (renamed arch, target context)
    is_gguf: bool  # the path named a .gguf file (config.json read beside it)
    caveats: tuple[str, ...]  # where the facts may differ from SGLang's
    #: the top level as SGLang's hf_config shows it: overrides applied, class defaults filled
    #: (tabulated types), text attributes copied up; read-only
    config: Mapping[str, Any] = uncompared()
    text_config: Mapping[str, Any] = uncompared()  # same object if plain

    @property
    def is_mla(self) -> bool:
        """``use_mla_backend``: the attention arch is MLA."""
        return self.attention_arch == "MLA"

    @property
    def is_hybrid_linear(self) -> bool:
        """Hybrid linear attention or Mamba (``mambaish_config`` is not None)."""
        return self.linear_attn_kind is not None

    def has_arch(self, *names: str) -> bool:
        """Any-arch test: one of ``names`` appears anywhere in ``architectures``."""
        return any(a in self.architectures for a in names)

    def num_kv_heads(self, tp_size: int, dcp_size: int = 1) -> int:
        """KV heads per rank: heads shard over ``tp // dcp`` groups, at least one each.

        A draft never joins the decode-context-parallel group, so it ignores ``dcp_size``.
        """
        groups = tp_size // (1 if self.is_draft else dcp_size)
        return max(1, self.total_num_kv_heads // max(groups, 1))

    def multimodal(self, enable_multimodal: bool | None = None, *,
                   language_model_only: bool = False, model_impl: str = "auto") -> bool:
        """``is_multimodal`` under explicit flags (§2.10)."""
        if enable_multimodal is None:
            enable_multimodal = self.multimodal_default or (
                model_impl == "transformers" and self.arch0 in _MM_DEFAULT_OFF)
        if not enable_multimodal or language_model_only or self.language_model_only:
            return False
        if self.is_multimodal or self.has_text_config:
            return True
        if any(a in _MULTIMODAL_ARCHS for a in self.architectures):
            return True
        if self.model_type == "deepseek_v41" and _num(self.config.get("vision_n_layers")) > 0:
            return True
        return model_impl == "transformers" and (
            "vision_config" in self.config or "audio_config" in self.config)


# --- public entry points --------------------------------------------------------------------

def bundled_models() -> dict[str, Path]:
    """The models launchplan ships: name → folder holding ``config.json``."""
    return dict(_bundled())


#: Hugging Face repositories renamed since people wrote their launch lines (the old name
#: redirects to the new one on the Hub).
HUB_RENAMES = {
    "meta-llama/Meta-Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Meta-Llama-3.1-70B": "meta-llama/Llama-3.1-70B",
    "meta-llama/Meta-Llama-3.1-405B": "meta-llama/Llama-3.1-405B",
}


def bundled_alias(hub_id: str) -> str | None:
    """The bundled model whose ``config.json`` is this Hub repository's (exact id, or a
    renamed one), so a pasted ``--model-path org/name`` plans offline."""
    table = _hub_ids()
    return table.get(HUB_RENAMES.get(hub_id, hub_id)) or table.get(hub_id.lower())


@lru_cache(maxsize=1)
def _hub_ids() -> dict[str, str]:
    data = json.loads((_BUNDLED_DIR.parent / "published_weights.json").read_text())
    out: dict[str, str] = {}
    for name, entry in data.get("models", {}).items():
        hub = entry.get("hf_id")
        if hub and (_BUNDLED_DIR / name / _CONFIG).is_file():
            out[hub] = name
            out[hub.lower()] = name
    return out


@lru_cache(maxsize=1)
def _bundled() -> tuple[tuple[str, Path], ...]:
    if not _BUNDLED_DIR.is_dir():
        return ()
    return tuple((p.name, p) for p in sorted(_BUNDLED_DIR.iterdir())
                 if (p / _CONFIG).is_file())


def load_model(path_or_name: str, *, json_override: str | None = None,
               context_length: int | None = None,
               env: Mapping[str, str] | None = None) -> ModelFacts:
    """The facts of a model: a folder holding ``config.json``, a bundled name, or a file.

    A folder (or file) that exists relative to the working directory wins over a bundled
    name. ``json_override`` is ``--json-model-override-args`` (§1.1 point 5), as its JSON
    text or an already parsed mapping.
    ``context_length`` is ``--context-length``: at most the derived length, or longer when
    ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`` (or ``SGLANG_IS_IN_CI``) is true in ``env``
    (default: the process environment); else ``InputError``. Results are cached per path and
    arguments; a cached file is stat-ed again at most once a second, so an edit shows up
    within a second (``clear_cache()`` forces a re-read).
    """
    return _load(path_or_name, json_override, context_length, env, None)


def load_draft_model(path_or_name: str, *, target: ModelFacts,
                     speculative_algorithm: str | None = None,
                     json_override: str | None = None,
                     env: Mapping[str, str] | None = None) -> ModelFacts:
    """The draft's facts as the speculative worker builds them (§4.2).

    The draft's arch0 is renamed to its MTP/NextN form before shapes are derived, and its
    context length is the target's: longer than the draft's own only with the environment
    override, else ``InputError``.
    """
    algo = speculative_algorithm.upper() if isinstance(speculative_algorithm, str) else None
    return _load(path_or_name, json_override, target.context_len, env, (algo,))


def clear_cache() -> None:
    """Forget every loaded model (tests, or a long-lived process whose files changed)."""
    _CACHE.clear()


# --- locating and caching -------------------------------------------------------------------

_CACHE: dict[tuple[Any, ...], list[Any]] = {}  # key -> [checked_at, stamp, facts, display]
_CACHE_LIMIT = 256
#: A cached entry trusts its file stamp for this long before stat-ing the file again, so a
#: sweep of thousands of resolutions costs one dict lookup each; edits show within a second.
_RECHECK_SECONDS = 1.0


def _load(path_or_name: Any, json_override: Any, context_length: Any,
          env: Mapping[str, str] | None, draft: tuple[str | None] | None) -> ModelFacts:
    if not isinstance(path_or_name, str):
        raise InputError("--model-path", "a path or a bundled model name", path_or_name)
    if context_length is not None:
        n = _as_int(context_length)
        if n is None or n <= 0 or n > MAX_INT:
            raise InputError("--context-length", "a positive integer", _shown(context_length))
        context_length = n
    if isinstance(json_override, Mapping):
        json_override = json.dumps(json_override, sort_keys=True, default=repr)
    if env is None:
        env = os.environ
    try:
        cwd = None if os.path.isabs(path_or_name) else os.getcwd()
    except OSError:  # the working directory was removed
        cwd = ""
    key = (path_or_name, cwd, json_override, context_length, draft)
    hit = _CACHE.get(key)
    if hit is not None:
        checked_at, stamp, facts, display = hit
        now = time.monotonic()
        fresh = stamp is None or now - checked_at < _RECHECK_SECONDS
        if not fresh and _stamp(stamp[0], stamp[1]) == stamp:
            hit[0] = now
            fresh = True
        if fresh:
            # the environment matters only for a --context-length above the derived length
            if context_length is not None and context_length > facts.derived_context_len \
                    and not _longer_context_allowed(env):
                raise _context_too_long(context_length, facts.derived_context_len, display,
                                        draft is not None)
            return facts
    source = _locate(path_or_name)
    stamp = None if source.bundled else _stamp(source.config_file, source.folder)
    facts = _build(source, json_override, context_length, env, draft)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = [time.monotonic(), stamp, facts, source.display]
    return facts


def _stamp(config_file: Any, folder: Any) -> tuple[Any, ...]:
    """What must not change for a cached entry to stay valid: the file and its folder."""
    try:
        st = os.stat(config_file)
        folder_mtime = os.stat(folder).st_mtime_ns if folder is not None else None
    except OSError:
        return (config_file, folder, None)
    return (config_file, folder, st.st_mtime_ns, st.st_size, folder_mtime)


class _Source(Struct):
    given: str
    name: str
    config_file: str
    folder: str | None  # where the sidecar files are looked up
    display: str  # how messages name the config file
    is_gguf: bool = False
    bundled: bool = False  # package data: never re-checked


def _locate(given: str) -> _Source:
    try:
        return _locate_path(given)
    except (OSError, ValueError):  # e.g. a NUL byte or an over-long name
        raise _no_model(given) from None


def _locate_path(given: str) -> _Source:
    if given.strip().lower() in ("none", "dummy"):
        raise InputError("--model-path", "a model folder holding config.json or a bundled "
                         "model name (launchplan reads the model's config.json; SGLang's "
                         "dummy model has none)", given)
    if given == "":
        raise _no_model(given)
    p = Path(given)
    if p.is_dir():
        cfg = p / _CONFIG
        if not cfg.is_file():
            raise InputError(str(cfg), "a config.json in the model folder",
                             hint="the folder exists but holds no config.json")
        return _Source(given, p.resolve().name or given, str(cfg), str(p), str(cfg))
    if p.is_file():
        if p.suffix == ".gguf" or _starts_with_gguf(p):
            cfg = p.parent / _CONFIG
            if not cfg.is_file():
                raise InputError("--model-path", "a GGUF file with a config.json beside it "
                                 "(launchplan does not read GGUF metadata)", given)
            return _Source(given, p.stem, str(cfg), str(p.parent), str(cfg), is_gguf=True)
        name = p.resolve().parent.name if p.name == _CONFIG else p.stem
        return _Source(given, name, str(p), str(p.parent), str(p))
    bundled = dict(_bundled())
    if given in bundled:
        folder = bundled[given]
        return _Source(given, given, str(folder / _CONFIG), str(folder), f"{given}/{_CONFIG}",
                       bundled=True)
    raise _no_model(given)


def _no_model(given: str) -> InputError:
    names = ", ".join(name for name, _ in _bundled())
    return InputError("--model-path", f"a folder holding config.json or a bundled model name "
                      f"({names})", given)


def _starts_with_gguf(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"GGUF"
    except OSError:
        return False


def _read_json(path: str, display: str) -> Any:
    """Parse one JSON file, turning every way it can be wrong into one ``InputError`` line."""
    try:
        size = os.stat(path).st_size
        if size > MAX_CONFIG_BYTES:
            raise InputError(display, f"a file of at most {MAX_CONFIG_BYTES // (1 << 20)} MiB",
                             hint=f"it has {size} bytes")
        with open(path, "rb") as f:
            # what stat promised and a byte more, not a 16 MiB buffer for every model load
            data = f.read(size + 1 if size else MAX_CONFIG_BYTES + 1)
            if size and len(data) > size:  # the file grew since stat: up to the cap
                data += f.read(MAX_CONFIG_BYTES + 1 - len(data))
    except OSError as e:
        raise InputError(display, "a readable file", hint=e.strerror or str(e)) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InputError(display, f"a file of at most {MAX_CONFIG_BYTES // (1 << 20)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(display, "UTF-8 text", hint=f"byte {e.start} is not UTF-8") from None
    return _parse_json(text, display)


def _parse_json(text: str, display: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(display, "valid JSON",
                         hint=f"line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise InputError(display, "valid JSON", hint="nested too deeply") from None
    except ValueError as e:  # e.g. an integer literal with too many digits
        raise InputError(display, "valid JSON", hint=str(e).split(";")[0]) from None


# --- building the facts ---------------------------------------------------------------------

class _Fields:
    """Typed reads of one config dict, naming the file and field in every error."""

    __slots__ = ("d", "where", "prefix", "overridden")

    def __init__(self, d: Mapping[str, Any], where: str, prefix: str = "",
                 overridden: frozenset[str] = frozenset()) -> None:
        self.d = d
        self.where = where
        self.prefix = prefix
        self.overridden = overridden

    def subject(self, key: str) -> str:
        tail = " (after --json-model-override-args)" if key in self.overridden else ""
        return f"{self.where} field '{self.prefix}{key}'{tail}"

    def fail(self, key: str, expected: str, got: Any = None, hint: str | None = None) -> InputError:
        return InputError(self.subject(key), expected, _shown(got), hint)

    def int(self, key: str, *, positive: bool = False, default: int | None = None) -> int | None:
        v = self.d.get(key)
        if v is None:
            return default
        n = _as_int(v)
        if n is None or abs(n) > MAX_INT:
            raise self.fail(key, "an integer", v)
        if positive and n <= 0:
            raise self.fail(key, "a positive integer", v)
        if n < 0:
            raise self.fail(key, "a non-negative integer", v)
        return n

    def need_int(self, key: str, why: str, *, positive: bool = True) -> int:
        n = self.int(key, positive=positive)
        if n is None:
            raise self.fail(key, f"an integer ({why})", hint="the key is missing")
        return n

    def str(self, key: str) -> str | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            raise self.fail(key, "a string", v)
        return v

    def mapping(self, key: str) -> Mapping[str, Any] | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, Mapping):
            raise self.fail(key, "a JSON object", v)
        return v

    def str_list(self, key: str) -> list[str] | None:
        v = self.d.get(key)
        if v is None:
            return None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.fail(key, "a list of strings", v)
        return v


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    return None


def _num(v: Any) -> float:
    """A number for comparisons; anything else counts as 0."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0
    return v if math.isfinite(v) else 0


class _Described(str):
    """A description of a value, shown in messages without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _shown(v: Any) -> Any:
    """Keep error messages one short line, whatever the JSON held."""
    if isinstance(v, (dict, list)):
        return _Described(f"a JSON {'object' if isinstance(v, dict) else 'list'}")
    if isinstance(v, str) and len(v) > 60:
        return v[:57] + "..."
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**18:
        return _Described(f"an integer of {len(str(abs(v)))} digits")
    return v


def _build(source: _Source, json_override: Any, context_length: Any,
           env: Mapping[str, str], draft: tuple[str | None] | None) -> ModelFacts:
    raw = _read_json(source.config_file, source.display)
    if not isinstance(raw, dict):
        raise InputError(source.display, "a JSON object", _json_kind(raw))
    override = _parse_override(json_override)
    hf_quant = modelslim = None
    if source.folder is not None:
        hf_quant = _sidecar(source.folder, _HF_QUANT)
        modelslim = _sidecar(source.folder, _MODELSLIM)
    try:
        return _derive(raw, source, override, context_length, env, draft, hf_quant, modelslim)
    except RecursionError:
        raise InputError(source.display, "a config nested less deeply") from None


def _json_kind(v: Any) -> str:
    return _Described({dict: "a JSON object", list: "a JSON list", str: "a JSON string",
                       bool: "a JSON boolean", type(None): "null"}.get(type(v), "a JSON number"))


def _parse_override(text: Any) -> dict[str, Any] | None:
    if text is None:
        return None
    if isinstance(text, Mapping):
        return dict(text)
    if not isinstance(text, str):
        raise InputError("--json-model-override-args", "a JSON object", text)
    if not text.strip():
        return None
    value = _parse_json(text, "--json-model-override-args")
    if not isinstance(value, dict):
        raise InputError("--json-model-override-args", "a JSON object", _json_kind(value))
    return value or None


def _sidecar(folder: str, name: str) -> dict[str, Any] | None:
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        return None
    value = _read_json(path, path)
    if not isinstance(value, dict):
        raise InputError(path, "a JSON object", _json_kind(value))
    return value


def _derive(raw: dict[str, Any], source: _Source, override: dict[str, Any] | None,
            context_length: int | None, env: Mapping[str, str],
            draft: tuple[str | None] | None, hf_quant: dict[str, Any] | None,
            modelslim: dict[str, Any] | None) -> ModelFacts:
    where = source.display
    caveats: list[str] = []
    top = _parser_fixes(dict(raw), where)
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
    top = _with_class_defaults(top, model_type, where, "")
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
    elif context_length <= derived or _longer_context_allowed(env):
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
            window = t.int(key)
            break
    hybrid_swa = _is_hybrid_swa(arch_set, text)
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

    # --- quantization (§3.2) ----------------------------------------------------------------
    qc_raw = f.mapping("quantization_config")
    f.mapping("compression_config")
    qc = quant.effective_quant_config(top, hf_quant_config=hf_quant, modelslim=modelslim,
                                      is_draft=is_draft)
    if qc is not None and qc.get("quant_method") is not None \
            and not isinstance(qc.get("quant_method"), str):
        raise f.fail("quantization_config", "a 'quant_method' string", qc.get("quant_method"))
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
        num_hidden_layers=t.int("num_hidden_layers"),
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
        quantization_config=_freeze(qc_raw) if qc_raw is not None else None,
        quant_config=_freeze(qc) if qc is not None else None,
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


def _context_too_long(requested: int, derived: int, where: str, is_draft: bool) -> InputError:
    allow = "unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set"
    if is_draft:
        return InputError("--speculative-draft-model-path", f"a draft whose context length "
                          f"({derived}, derived from {where}) covers the target model's "
                          f"context length, {allow}", requested)
    return InputError("--context-length", f"at most {derived}, the context length derived from "
                      f"{where}, {allow}", requested)


def _longer_context_allowed(env: Mapping[str, str]) -> bool:
    for name in LONGER_CONTEXT_ENV:
        value = env.get(name)
        if value is None:
            continue
        low = value.lower()
        if low in ("true", "1", "yes", "y"):
            return True
        if low not in ("false", "0", "no", "n"):
            raise InputError(name, "a boolean (true/false, 1/0, yes/no, y/n)", value)
    return False


# --- the hf parser's post-fixes and --json-model-override-args (§1.1) ------------------------

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
    if top.get("model_type") == "multi_modality":
        top["architectures"] = ["MultiModalityCausalLM"]
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


# --- transformers class behaviour (§1.3) -----------------------------------------------------

def _with_class_defaults(d: dict[str, Any], model_type: str | None, where: str,
                         prefix: str) -> dict[str, Any]:
    """The dict as transformers' config class for ``model_type`` would present it."""
    mt = model_type or ""
    aliases = _ATTRIBUTE_ALIASES.get(mt, {})
    spec = _TYPE_DEFAULTS.get(mt)
    if not aliases and spec is None and mt not in _WINDOW_NEEDS_FLAG:
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
    if mt in _WINDOW_NEEDS_FLAG and not d.get("use_sliding_window"):
        out["sliding_window"] = _WINDOW_NEEDS_FLAG[mt]
    if mt == "gemma3_text" and d.get("use_bidirectional_attention") \
            and _as_int(out.get("sliding_window")) is not None:
        out["sliding_window"] = _as_int(out["sliding_window"]) // 2 + 1  # EmbeddingGemma
    return out


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
    text = _with_class_defaults(sub, class_type if isinstance(class_type, str) else None,
                                where, prefix)
    text.setdefault("model_type", class_type)
    return text, prefix, True


def _declared_dtype(d: Mapping[str, Any]) -> Any:
    v = d.get("dtype")
    return v if v is not None else d.get("torch_dtype")


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
_CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                 "max_position_embeddings")


def _derived_context(text: Mapping[str, Any], t: _Fields,
                     rope: Mapping[str, Any] | None) -> int:
    factor: Any = 1
    if rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) \
            or not math.isfinite(factor) or factor <= 0:
        raise t.fail("rope_scaling.factor", "a positive number", factor)
    for key in _CONTEXT_KEYS:
        value = text.get(key)
        if value is None:
            continue
        n = _as_int(value) if not isinstance(value, float) else value
        if n is None or isinstance(n, bool) or not math.isfinite(n) or n <= 0 or n > MAX_INT:
            raise t.fail(key, "a positive integer", value)
        product = factor * n
        if not math.isfinite(product) or product > MAX_INT:
            raise t.fail(key, "a context length below 2**63 (after the rope factor)", value)
        return max(int(product), 1)
    return 2048


# --- shapes, heads, KV heads (§2.2, §2.3) ---------------------------------------------------

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


# --- hybrid attention kinds (§2.6, §2.7) ------------------------------------------------------

def _is_hybrid_swa(archs: frozenset[str], text: Mapping[str, Any]) -> bool:
    if archs & _HYBRID_SWA_ARCHS:
        if "BeamForCausalLM" in archs:
            layer_types = text.get("layer_types")
            return isinstance(layer_types, list) and "sliding_attention" in layer_types
        if "LagunaForCausalLM" in archs and not text.get("sliding_window"):
            return False
        return True
    return bool(text.get("is_hybrid_swa"))


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
        layer_types = top.get("layer_types")
        if layer_types is None or (isinstance(layer_types, list) and any(
                x in ("mamba", "linear_attention") for x in layer_types)):
            return "mamba"
        return None
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


# --- draft renames (§4.2) -------------------------------------------------------------------

def _draft_renames(top: dict[str, Any], text: dict[str, Any], archs: list[str],
                   algorithm: str | None, has_text: bool
                   ) -> tuple[dict[str, Any], dict[str, Any], list[str], bool]:
    """``_config_draft_model``: rename arch0 to the draft form before shapes are derived."""
    archs = list(archs)
    arch0 = archs[0]
    if not has_text:
        text = top  # a plain LLM: one object, as in SGLang
    if text.get("model_type") == "dots3_note":
        for key in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                    "num_attention_heads", "num_key_value_heads", "v_head_dim"):
            if ("swa_" + key) in text:
                text[key] = text["swa_" + key]
        text["num_nextn_predict_layers"] = 1
        text["layer_types"] = ["sliding_attention"]
        archs[0] = "Dots3NoteForCausalLMNextN"
    elif arch0 == "DeepseekV4ForCausalLM":
        dspark = any(top.get(k) is not None for k in _DSPARK_KEYS)
        if dspark and algorithm in (None, "DSPARK"):
            archs[0] = "DeepseekV4ForCausalLMDSpark"
        else:
            archs[0] = "DeepseekV4ForCausalLMNextN"
            top["num_nextn_predict_layers"] = 1
    elif arch0 == "LongcatFlashForCausalLM":
        archs[0] = "LongcatFlashForCausalLMNextN"
        top["num_hidden_layers"] = top.get("num_nextn_predict_layers")
    elif arch0 == "Step3p7ForConditionalGeneration" and has_text:
        top, archs, has_text = text, ["Step3p5MTP"], False
    elif arch0 == "NemotronH_Omni_Reasoning_V3" and has_text:
        top, archs, has_text = text, ["NemotronHForCausalLMMTP"], False
        top["num_nextn_predict_layers"] = 1
    elif arch0 == "Glm5NextForConditionalGeneration":
        archs[0] = "Glm5NextForConditionalGenerationNextN"
        text["num_nextn_predict_layers"] = 1
        text["linear_attn_config"] = None
    elif arch0 == "Qwen4ExpForConditionalGeneration":
        archs[0] = "Qwen4ExpForCausalLMMTP"
        text.update(num_nextn_predict_layers=1, num_hidden_layers=1,
                    layer_types=["full_attention"], full_attention_interval=1)
    elif arch0 in _DRAFT_RENAMES:
        new, one_layer = _DRAFT_RENAMES[arch0]
        archs[0] = new
        if one_layer:
            top["num_nextn_predict_layers"] = 1
            if new == "Qwen3_5ForCausalLMMTP":
                text["num_nextn_predict_layers"] = 1
    top["architectures"] = archs
    return top, text, archs, has_text


#: arch0 → (draft arch0, whether num_nextn_predict_layers becomes 1).
_DRAFT_RENAMES: Mapping[str, tuple[str, bool]] = {
    "DeepseekV3ForCausalLM": ("DeepseekV3ForCausalLMNextN", False),
    "DeepseekV32ForCausalLM": ("DeepseekV3ForCausalLMNextN", False),
    "GlmMoeDsaForCausalLM": ("GlmMoeDsaForCausalLMNextN", False),
    "Glm4MoeForCausalLM": ("Glm4MoeForCausalLMNextN", False),
    "Glm4MoeLiteForCausalLM": ("Glm4MoeLiteForCausalLMNextN", False),
    "GlmOcrForConditionalGeneration": ("GlmOcrForConditionalGenerationNextN", False),
    "MiMoForCausalLM": ("MiMoMTP", False),
    "MiMoV2ForCausalLM": ("MiMoV2MTP", True),
    "MiMoV2FlashForCausalLM": ("MiMoV2MTP", True),
    "Step3p5ForCausalLM": ("Step3p5MTP", False),
    "InklingForConditionalGeneration": ("InklingForConditionalGenerationMTP", False),
    "GigaChat35ForCausalLM": ("GigaChat35ForCausalLMNextN", False),
    "BailingMoeV2ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeV2_5ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "BailingMoeV3ForCausalLM": ("BailingMoeForCausalLMNextN", False),
    "Ernie4_5_MoeForCausalLM": ("Ernie4_5_MoeForCausalLMMTP", False),
    "Qwen3NextForCausalLM": ("Qwen3NextForCausalLMMTP", True),
    "Qwen3MoeForCausalLM": ("Qwen3MoeForCausalLMMTP", True),
    "Qwen3_5ForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5MoeForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5ForCausalLM": ("Qwen3_5ForCausalLMMTP", True),
    "Qwen3_5MoeForCausalLM": ("Qwen3_5ForCausalLMMTP", True),
    "InternS2PreviewForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "InternS2MobiusForConditionalGeneration": ("Qwen3_5ForCausalLMMTP", True),
    "ExaoneMoEForCausalLM": ("ExaoneMoEForCausalLMMTP", True),
    "ExaoneMoeForCausalLM": ("ExaoneMoEForCausalLMMTP", True),
    "NemotronHForCausalLM": ("NemotronHForCausalLMMTP", True),
    "NemotronHPuzzleForCausalLM": ("NemotronHForCausalLMMTP", True),
    "HYV3ForCausalLM": ("HYV3ForCausalLMNextN", True),
    "HYV4ForCausalLM": ("HYV4ForCausalLMNextN", True),
}


# --- architecture tables --------------------------------------------------------------------

_MLA_DEEPSEEK_ARCHS = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGeneration",
    "Glm5NextForConditionalGenerationNextN", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "DotsVLMForCausalLM", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle",
    "KimiK25ForConditionalGeneration", "Eagle3DeepseekV2ForCausalLM", "GigaChat35ForCausalLM",
    "GigaChat35ForCausalLMNextN",
})

#: The §2.2 rows after the DeepSeek row, in order (Pixtral and the Bailing NextN are
#: conditional and handled in ``_mla_branch``).
_SHAPE_BRANCHES: tuple[tuple[str, frozenset[str]], ...] = (
    ("dsv4", frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                        "DeepseekV4ForCausalLMDSpark"})),
    ("glm4_nextn", frozenset({"Glm4MoeForCausalLMNextN"})),
    ("minicpm3", frozenset({"MiniCPM3ForCausalLM"})),
    ("deepseek_vl2", frozenset({"DeepseekVL2ForCausalLM"})),
    ("kimi_vl", frozenset({"KimiVLForConditionalGeneration"})),
    ("kimi_linear", frozenset({"KimiLinearForCausalLM", "KimiK3LinearForCausalLM",
                               "KimiK3ForConditionalGeneration"})),
    ("bailing_v25", frozenset({"BailingMoeV2_5ForCausalLM"})),
    ("bailing_v3", frozenset({"BailingMoeV3ForCausalLM",
                              "BailingMoeV3VLForConditionalGeneration"})),
    ("sarvam", frozenset({"SarvamMLAForCausalLM"})),
)

_PURE_SSM = frozenset({"Mamba2ForCausalLM", "MambaForCausalLM", "FalconMambaForCausalLM"})

_SWA_SINK_ARCHS = frozenset({"GptOssForCausalLM", "GraniteSWAForCausalLM",
                             "GraniteMoeSWAForCausalLM", "IQuestQ1ForCausalLM", "IQuestQ1MTP"})
_MIMO_V2_ARCHS = frozenset({"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP"})
_HYBRID_SWA_ARCHS = _SWA_SINK_ARCHS | _MIMO_V2_ARCHS | frozenset({
    "BeamForCausalLM", "Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark", "Step3p5ForCausalLM",
    "Step3p5MTP", "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "LagunaForCausalLM", "MellumForCausalLM", "MuseGlimmerForCausalLM",
    "MuseGlimmerForConditionalGeneration", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP", "UnlimitedOCRForCausalLM",
})

_DSA_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGenerationNextN",
    "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
})

_DSPARK_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id",
                "dspark_target_layer_ids")

_ENCODER_DECODER_ARCHS = frozenset({"WhisperForConditionalGeneration",
                                    "MllamaForConditionalGeneration",
                                    "MossVLForConditionalGeneration"})

_NON_GENERATION_ARCHS = frozenset({
    "LlamaEmbeddingModel", "MistralModel", "LlamaForSequenceClassification",
    "LlamaForSequenceClassificationWithNormal_Weights", "InternLM2ForRewardModel",
    "Qwen2ForRewardModel", "Qwen3ForRewardModel", "Qwen2ForSequenceClassification",
    "Qwen3ForSequenceClassification", "Qwen3Model", "CLIPModel", "BertModel", "Contriever",
    "BertForSequenceClassification", "XLMRobertaModel", "XLMRobertaForSequenceClassification",
    "Gemma2ForSequenceClassification", "EmbeddingGemma2Model", "Lfm2BidirectionalModel",
})

_AUTO_EMBEDDING_ARCHS = frozenset({"BertModel", "CLIPModel", "Contriever",
                                   "LlamaEmbeddingModel", "MistralModel", "XLMRobertaModel",
                                   "EmbeddingGemma2Model"})

_MM_DEFAULT_OFF = frozenset({"Gemma3ForConditionalGeneration",
                             "Llama4ForConditionalGeneration",
                             "Step3VLForConditionalGeneration",
                             "InklingForConditionalGeneration"})

_MM_NO_CHUNKED_PREFILL = frozenset({"Grok1VForCausalLM", "Grok1AForCausalLM",
                                    "LlavaLlamaForCausalLM", "MllamaForConditionalGeneration",
                                    "MossVLForConditionalGeneration", "CLIPModel"})

# Multimodal architectures SGLang 0.5.23 lets keep the breakable prefill CUDA graph
# (configs/model_config.py's allowlist); any other multimodal model has it disabled.
_MM_BREAKABLE_GRAPH = frozenset("""
    MiniMaxM3SparseForConditionalGeneration MiniMaxM3SparseForCausalLM
    Cohere2VisionForConditionalGeneration Glm5NextForConditionalGeneration
    InternS2MobiusForConditionalGeneration PaddleOCRVLForConditionalGeneration
    Qwen3_5ForConditionalGeneration Qwen3_5MoeForConditionalGeneration
    Qwen4ExpForConditionalGeneration MuseGlimmerForConditionalGeneration
    MuseSparkForConditionalGeneration KimiK3ForConditionalGeneration
    KimiK25ForConditionalGeneration
""".split())

_MULTIMODAL_ARCHS = frozenset("""
    CLIPModel Cohere2VisionForConditionalGeneration Cosmos3EdgeForConditionalGeneration
    DeepseekVL2ForCausalLM Ernie4_5_VLMoeForConditionalGeneration
    MiniMaxM3SparseForConditionalGeneration Gemma3ForConditionalGeneration
    Gemma3nForConditionalGeneration Gemma4ForConditionalGeneration EmbeddingGemma2Model
    Gemma4UnifiedForConditionalGeneration DiffusionGemmaForBlockDiffusion
    Glm4vForConditionalGeneration Glm4vMoeForConditionalGeneration
    Glm5NextForConditionalGeneration GlmOcrForConditionalGeneration
    GlmAsrForConditionalGeneration GlmImageForConditionalGeneration Grok1VForCausalLM
    Grok1AForCausalLM LlavaLlamaForCausalLM Llama4ForConditionalGeneration
    LlavaMistralForCausalLM LlavaQwenForCausalLM LlavaForConditionalGeneration
    LlavaVidForCausalLM Lfm2VlForConditionalGeneration LightOnOCRForConditionalGeneration
    MiMoV2ForCausalLM MiMoV2ASRForCausalLM MiniCPMO MiniCPMV
    Mistral3ForConditionalGeneration MultiModalityCausalLM MllamaForConditionalGeneration
    MossVLForConditionalGeneration NemotronH_Nano_VL_V2 NemotronH_Nano_Omni_Reasoning_V3
    NemotronH_Omni_Reasoning_V3 MuseGlimmerForConditionalGeneration
    MuseSparkForConditionalGeneration PixtralForConditionalGeneration
    Qwen2AudioForConditionalGeneration Qwen2VLForConditionalGeneration
    Qwen2_5_VLForConditionalGeneration Qwen3VLForConditionalGeneration
    Qwen3VLMoeForConditionalGeneration Qwen3_5ForConditionalGeneration
    Qwen3_5MoeForConditionalGeneration Qwen4ExpForConditionalGeneration
    InternS2PreviewForConditionalGeneration InternS2MobiusForConditionalGeneration
    Qwen3ASRForConditionalGeneration Qwen3OmniMoeForConditionalGeneration
    KimiVLForConditionalGeneration LocateAnythingForConditionalGeneration InternVLChatModel
    InternS1ForConditionalGeneration InternS1ProForConditionalGeneration Phi4MMForCausalLM
    VoxtralForConditionalGeneration WhisperForConditionalGeneration
    Step3VLForConditionalGeneration POINTSV15ChatModel DotsVLMForCausalLM
    Dots3NoteForCausalLM DotsOCRForCausalLM Sarashina2VisionForCausalLM
    NVILAForConditionalGeneration NVILALiteForConditionalGeneration DeepseekOCRForCausalLM
    UnlimitedOCRForCausalLM JetVLMForConditionalGeneration
    PaddleOCRVLForConditionalGeneration MiDashengLMModel StepVLForConditionalGeneration
    Step3p7ForConditionalGeneration KimiK25ForConditionalGeneration
    BailingMMNativeForConditionalGeneration BailingMM2NativeForConditionalGeneration
    BailingMoeV3VLForConditionalGeneration
""".split())

# --- model-type tables (mamba-ish kinds, rope behaviour, class defaults) ----------------------

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
_TYPE_DEFAULTS = {
    t: (_ClassSpec({**spec.defaults, "mamba_chunk_size": _MAMBA_CHUNK_DEFAULTS[t]},
                   spec.not_null) if t in _MAMBA_CHUNK_DEFAULTS else spec)
    for t, spec in _TYPE_DEFAULTS.items()
}

#: A VLM's text sub-config without a ``model_type`` takes its parent class's default type
#: (only parents whose default text type has a row in ``_TYPE_DEFAULTS`` are listed).
_DEFAULT_TEXT_TYPE: Mapping[Any, str] = {
    "audioflamingo3": "qwen2", "aya_vision": "cohere2", "cohere2_vision": "cohere2",
    "cosmos3_omni": "qwen3_vl_text", "deepseek_vl": "llama", "deepseek_vl_hybrid": "llama",
    "exaone4_5": "exaone4", "fast_vlm": "qwen2", "fun_asr_nano": "qwen3", "gemma3": "gemma3_text",
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
    "shieldgemma2": "gemma3_text", "smolvlm": "llama", "vibevoice": "qwen2",
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
