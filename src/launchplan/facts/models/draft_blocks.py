"""The block size SGLang infers from a DFLASH or DSpark draft's config.json, or None.

SGLang's speculative hook parses the whole draft config (``parse_dflash_draft_config``, and
for DSpark ``parse_dspark_draft_config`` on top of it) and takes the block size from the
result; any error while parsing is caught and logged, and the launch then falls back to the
default window (16 draft tokens for DFLASH, gamma 7 for DSpark) as if the file named none.
So a file whose block size is fine but whose selector, convolution, mask token or layer ids
the parser rejects gets the default too. This module answers what that parse would give,
field by field as SGLang 0.5.23 checks them (the same in 0.5.21 and 0.5.22).
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral
from typing import Any


class _Rejected(Exception):
    """The draft-config parse would raise: SGLang catches it and uses its default."""


def dflash_block_size(config: Mapping | None) -> int | None:
    """``parse_dflash_draft_config(...).block_size``, None when the parse fails or the file
    names no block size."""
    if not config:
        return None
    try:
        return _dflash_parse(config)
    except _Rejected:
        return None


def dspark_gamma(config: Mapping | None, release: str) -> int | None:
    """``parse_dspark_draft_config(...).gamma``: a top-level ``dspark_block_size``, else the
    DFLASH block size; None when either parse fails or neither names one."""
    if not config:
        return None
    try:
        block = _dflash_parse(config)
        _dspark_checks(config, release)
        prefixed = config.get("dspark_block_size")
        return _int(prefixed) if prefixed is not None else block
    except _Rejected:
        return None


def _int(value: Any, minimum: int | None = None) -> int:
    """Python's ``int()`` as SGLang applies it, with its lower bound."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise _Rejected from None
    if minimum is not None and number < minimum:
        raise _Rejected
    return number


def _optional(value: Any, minimum: int) -> int | None:
    return None if value is None else _int(value, minimum)


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise _Rejected from None


def _dflash_parse(config: Mapping) -> int | None:
    nested = config.get("dflash_config")
    block = nested if isinstance(nested, Mapping) else {}
    text = config.get("text_config", config)
    text = text if isinstance(text, Mapping) else config

    def either(key: str) -> Any:  # the block's key, else the top level's
        return block[key] if key in block else config.get(key)

    _optional(text.get("num_hidden_layers"), 1)
    _optional(either("num_target_layers"), 1)
    size = _optional(either("block_size"), 1)
    for first, second in (("conv_kernel_size", "conv_group_size"),
                          ("selector_rank", "selector_top_k")):
        one, two = _optional(block.get(first, 0), 0), _optional(block.get(second, 0), 0)
        if bool(one) != bool(two):
            raise _Rejected
    if _float(block.get("output_multiplier", 1.0)) <= 0:
        raise _Rejected
    _float(block.get("final_logit_softcapping") or 0.0)
    ids = either("target_layer_ids")
    if ids is not None:
        if not isinstance(ids, (list, tuple)) or not ids:
            raise _Rejected
        for x in ids:
            _int(x)
    mask = either("mask_token")
    if mask is not None and (not isinstance(mask, str) or not mask):
        raise _Rejected
    mask_id = either("mask_token_id")
    if mask_id is not None and (not isinstance(mask_id, Integral) or isinstance(mask_id, bool)
                                or mask_id < 0):
        raise _Rejected
    if not isinstance(block.get("attention_sink_bias", False), bool):
        raise _Rejected
    scale = block.get("attention_value_scale")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise _Rejected
    if either("projector_type") == "domino":
        _domino_checks(block, config, size)
    return size


def _domino_checks(block: Mapping, config: Mapping, size: int | None) -> None:
    def either(key: str) -> Any:
        return block[key] if key in block else config.get(key)

    prefix = _optional(either("pure_draft_prefix_len"), 0)
    gru = _optional(either("gru_hidden_dim"), 1)
    nested, top = _optional(block.get("emb_dim"), 1), _optional(config.get("emb_dim"), 1)
    if nested is not None and top is not None and nested != top:
        raise _Rejected
    if not isinstance(either("shift_label"), bool) or prefix != 1 or gru is None \
            or (nested if nested is not None else top) is None \
            or (size is not None and size <= 1):
        raise _Rejected


#: DSpark's Markov head kinds (``SUPPORTED_DSPARK_MARKOV_HEAD_TYPES``, every release)
_MARKOV_HEADS = frozenset({"vanilla", "gated", "rnn"})
#: the nested settings a DSpark draft's config is read from, later keys overlaying earlier
#: ones, by release (releases not listed read the latest's): 0.5.23 reads ``dflash_config``,
#: where published drafts keep them, overlaid by ``dspark_config``
_DSPARK_SETTINGS_LATEST = ("dflash_config", "dspark_config")
_DSPARK_SETTINGS_KEYS = {"0.5.21": ("dspark_config",), "0.5.22": ("dspark_config",)}


def dspark_settings(config: Mapping, release: str) -> dict[str, Any]:
    """The nested DSpark settings of a draft's config as ``release`` merges them."""
    out: dict[str, Any] = {}
    for key in _DSPARK_SETTINGS_KEYS.get(release, _DSPARK_SETTINGS_LATEST):
        if isinstance(config.get(key), Mapping):
            out.update(config[key])
    return out


def _dspark_checks(config: Mapping, release: str) -> None:
    """What ``parse_dspark_draft_config`` adds to the DFLASH parse."""
    merged = dspark_settings(config, release)
    text = config.get("text_config", config)
    text = text if isinstance(text, Mapping) else config
    prefixed = {k: config.get(f"dspark_{k}") for k in (
        "block_size", "markov_rank", "markov_head_type", "noise_token_id",
        "target_layer_ids")}
    uses_prefixed = any(prefixed[k] is not None for k in (
        "block_size", "markov_rank", "noise_token_id", "target_layer_ids"))

    def read(key: str, given: Any, default: Any) -> Any:
        if given is not None:
            return given
        if key in merged:
            return merged[key]
        return text.get(key, config.get(key, default))

    rank = read("markov_rank", prefixed["markov_rank"], 0)
    rank = _int(rank) if rank is not None else 0
    if rank < 0:
        raise _Rejected
    head = read("markov_head_type", prefixed["markov_head_type"], None)
    if rank > 0 and head is None and not uses_prefixed:
        raise _Rejected
    if head is not None and str(head).lower() not in _MARKOV_HEADS:
        raise _Rejected
    mask_id = read("mask_token_id", prefixed["noise_token_id"], None)
    if mask_id is not None and _int(mask_id) < 0:
        raise _Rejected
    ids = prefixed["target_layer_ids"]
    if ids is not None:
        if not isinstance(ids, (list, tuple)) or not ids:
            raise _Rejected
        for x in ids:
            _int(x)

