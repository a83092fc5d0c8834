"""The CUDA-graph configuration as plain data: two phases, each a dict of keys.

``cuda_graph_config`` is ``{"decode": {...}, "prefill": {...}}`` with every key of each phase.
Values are never edited in place: ``with_phase`` returns a new config, so a declaration in
the stash keeps the value it was declared with.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from launchplan.rules.size_lists import SizeList
from launchplan.rules.size_lists import sizes as size_list

DECODE, PREFILL = "decode", "prefill"
PHASES = (DECODE, PREFILL)
BACKENDS = ("full", "breakable", "disabled")

KEYS: dict[str, tuple[str, ...]] = {
    DECODE: ("backend", "max_bs", "bs"),
    PREFILL: ("backend", "max_bs", "bs", "max_context_size", "full_prefill_max_req",
              "full_prefill_prefix_chunk_tokens", "max_seq_len"),
}

# Convenience flags and the (phase, key) each folds into (precedence 3 of the parse).
CONVENIENCE: tuple[tuple[str, str, str], ...] = (
    ("cuda_graph_backend_decode", DECODE, "backend"),
    ("cuda_graph_backend_prefill", PREFILL, "backend"),
    ("cuda_graph_max_bs_decode", DECODE, "max_bs"),
    ("cuda_graph_max_bs_prefill", PREFILL, "max_bs"),
    ("cuda_graph_max_seq_len_prefill", PREFILL, "max_seq_len"),
    ("cuda_graph_bs_decode", DECODE, "bs"),
    ("cuda_graph_bs_prefill", PREFILL, "bs"),
    ("cuda_graph_prefill_max_context", PREFILL, "max_context_size"),
)

# Every field the parse reads.
INPUT_FIELDS = ("cuda_graph_config", "disable_cuda_graph", "disable_prefill_cuda_graph",
                "disable_decode_cuda_graph") + tuple(c[0] for c in CONVENIENCE)


_DECODE_DEFAULT = {**dict.fromkeys(KEYS[DECODE]), "backend": "full"}
_PREFILL_DEFAULT = {True: {**dict.fromkeys(KEYS[PREFILL]), "backend": "breakable"},
                    False: {**dict.fromkeys(KEYS[PREFILL]), "backend": "disabled"}}


def default_config(is_cuda: bool) -> dict[str, dict[str, Any]]:
    """A fresh default: decode full; prefill breakable on NVIDIA CUDA, disabled elsewhere."""
    return {DECODE: dict(_DECODE_DEFAULT), PREFILL: dict(_PREFILL_DEFAULT[bool(is_cuda)])}


def with_phase(config: dict[str, dict[str, Any]], phase: str, **changes: Any) -> dict:
    """A new config with one phase's keys changed (the other phase is shared, never edited)."""
    updated = dict(config[phase])
    updated.update(changes)
    out = dict(config)
    out[phase] = updated
    return out


def requested_settings(view: Any) -> tuple[dict[tuple[str, str], Any], dict[tuple[str, str], str]]:
    """The phase settings the input asks for, by precedence, and the field that asked.

    Lowest to highest: the legacy ``disable_cuda_graph``, the per-phase disable flags, the
    convenience flags, then ``--cuda-graph-config`` JSON key by key. Every (phase, key) set
    here is *locked* against SGLang's default cascades.
    """
    origin: dict[tuple[str, str], str] = {}
    return requested_values(view, origin), origin


_DECODE_BACKEND, _PREFILL_BACKEND = (DECODE, "backend"), (PREFILL, "backend")
_CONVENIENCE_KEYS = tuple((flag, (phase, key)) for flag, phase, key in CONVENIENCE)
_KEY_SETS = {phase: frozenset(keys) for phase, keys in KEYS.items()}


def requested_values(view: Any, origin: dict[tuple[str, str], str] | None = None
                     ) -> dict[tuple[str, str], Any]:
    """``requested_settings``' values; the field that asked each goes into ``origin`` when
    one is given. The parse needs only the values, on every resolution that sets a graph
    flag and on every pinned plan ``check`` tests, so that path records nothing else."""
    settings: dict[tuple[str, str], Any] = {}
    asked: list[tuple[tuple[str, str], str]] | None = [] if origin is not None else None
    if view.disable_cuda_graph:
        settings[_DECODE_BACKEND] = settings[_PREFILL_BACKEND] = "disabled"
        if asked is not None:
            asked += [(_DECODE_BACKEND, "disable_cuda_graph"),
                      (_PREFILL_BACKEND, "disable_cuda_graph")]
    if view.disable_prefill_cuda_graph:
        settings[_PREFILL_BACKEND] = "disabled"
        if asked is not None:
            asked.append((_PREFILL_BACKEND, "disable_prefill_cuda_graph"))
    if view.disable_decode_cuda_graph:
        settings[_DECODE_BACKEND] = "disabled"
        if asked is not None:
            asked.append((_DECODE_BACKEND, "disable_decode_cuda_graph"))
    for field, where in _CONVENIENCE_KEYS:
        value = view[field]
        if value is not None:
            settings[where] = value
            if asked is not None:
                asked.append((where, field))
    explicit = view.raw("cuda_graph_config")
    if isinstance(explicit, dict):
        for phase in PHASES:
            phase_values = explicit.get(phase)
            if isinstance(phase_values, dict):
                known = _KEY_SETS[phase]
                for key, value in phase_values.items():
                    if key in known:
                        settings[(phase, key)] = value
                        if asked is not None:
                            asked.append(((phase, key), "cuda_graph_config"))
    if origin is not None and asked:
        origin.update(asked)  # later entries win, as later settings do
    return settings


def locked(view: Any) -> frozenset[tuple[str, str]]:
    """The (phase, key) pairs set by a non-default source: SGLang's lock set."""
    return frozenset(requested_settings(view)[0])


_FLAG_FOR = {(phase, key): flag for flag, phase, key in CONVENIENCE}


def is_locked(view: Any, phase: str, key: str) -> bool:
    """Whether one (phase, key) is locked: ``locked(view)`` for a single key, cheaply."""
    flag = _FLAG_FOR.get((phase, key))
    if flag is not None and view[flag] is not None:
        return True
    if key == "backend" and (view.disable_cuda_graph or view[
            "disable_prefill_cuda_graph" if phase == PREFILL else "disable_decode_cuda_graph"]):
        return True
    explicit = view.raw("cuda_graph_config")
    if isinstance(explicit, dict):
        values = explicit.get(phase)
        return isinstance(values, dict) and key in values
    return False


# --- capture-size generators ------------------------------------------------------------------


def decode_sizes(max_bs: int, *, speculative: bool,
                 no_padding: bool) -> list[int] | SizeList:
    """Decode capture batch sizes up to ``max_bs``; ``max_bs`` itself is always included.

    A list longer than ``size_lists.LIMIT`` comes back described (a ``SizeList``).
    """
    sizes = _decode_sizes(max_bs, speculative, no_padding)
    return list(sizes) if isinstance(sizes, tuple) else sizes


def prefill_sizes(max_bs: int) -> list[int] | SizeList:
    """Prefill capture token buckets up to ``max_bs`` (``max_bs`` itself is not added)."""
    sizes = _prefill_sizes(max_bs)
    return list(sizes) if isinstance(sizes, tuple) else sizes


_DECODE_HEAD = (1, 2, 4, 8, 12) + tuple(range(16, 257, 8)) + tuple(range(272, 497, 16))
_SPECULATIVE_HEAD = (tuple(range(1, 9)) + tuple(range(10, 33, 2)) + tuple(range(40, 65, 4))
                     + tuple(range(72, 257, 8)))
_PREFILL_HEAD = (tuple(range(4, 33, 4)) + tuple(range(48, 257, 16)) + tuple(range(288, 513, 32))
                 + tuple(range(576, 1025, 64)) + tuple(range(1280, 4097, 256)))
_CPU_HEAD = tuple(range(1, 17)) + tuple(range(18, 31, 2)) + tuple(range(32, 81, 4))


def _frozen(sizes: list[int] | SizeList) -> tuple[int, ...] | SizeList:
    return tuple(sizes) if isinstance(sizes, list) else sizes


@lru_cache(maxsize=256)
def _decode_sizes(max_bs: int, speculative: bool,
                  no_padding: bool) -> tuple[int, ...] | SizeList:
    if no_padding:
        return _frozen(size_list((), 1, 1, max_bs, append_max=True))
    if speculative:
        return _frozen(size_list(_SPECULATIVE_HEAD, 272, 16, max_bs, append_max=True))
    return _frozen(size_list(_DECODE_HEAD, 512, 32, max_bs, append_max=True))


@lru_cache(maxsize=256)
def _prefill_sizes(max_bs: int) -> tuple[int, ...] | SizeList:
    return _frozen(size_list(_PREFILL_HEAD, 4608, 512, max_bs, append_max=False))


def cpu_sizes(max_bs: int) -> list[int] | SizeList:
    """CPU graph sizes (torch.compile): dense at the bottom, sparser above, plus the maximum."""
    return size_list(_CPU_HEAD, 84, 8, max_bs, append_max=True)


# Multimodal architectures validated with a breakable prefill graph (SGLang 0.5.23's
# ``multimodal_breakable_cuda_graph_supported_model_archs``); other VLMs fault on replay.
MULTIMODAL_BREAKABLE_ARCHS = frozenset({
    "MiniMaxM3SparseForConditionalGeneration", "Cohere2VisionForConditionalGeneration",
    "Glm5NextForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "PaddleOCRVLForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "Qwen4ExpForConditionalGeneration",
    "MuseGlimmerForConditionalGeneration", "MuseSparkForConditionalGeneration",
    "KimiK3ForConditionalGeneration", "KimiK25ForConditionalGeneration",
    "MiniMaxM3SparseForCausalLM"})


def multimodal_blocks_breakable(v: Any, archs: frozenset[str] = MULTIMODAL_BREAKABLE_ARCHS) -> bool:
    """A multimodal model (under the launch's flags) not validated for a breakable prefill graph
    (``archs``: the release's validated list)."""
    model = v.model
    if not model.multimodal(v.enable_multimodal, language_model_only=v.language_model_only,
                            model_impl=v.model_impl):
        return False
    return not any(a in archs for a in model.architectures)
