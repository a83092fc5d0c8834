"""MiniCPM / MiniCPM-SALA: sparse and lightning attention backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import (
    BACKEND_FIELDS,
    BATCH,
    attn_dp_enabled,
    backends_unset,
    config,
    dp_attention_switch_0_5_21,
    env_true,
)

ARCHS = frozenset({"MiniCPMForCausalLM", "MiniCPMSALAForCausalLM"})
SPARSE_BACKENDS = ("minicpm_flashattn", "minicpm_flashinfer")
# MiniCPM-SALA's mixer spellings: "minicpm4" layers are (sparse) attention, the rest lightning.
_MIXERS = {"minicpm4": "minicpm4", "minicpm": "minicpm4", "standard": "minicpm4",
           "attention": "minicpm4", "attn": "minicpm4", "lightning": "lightning-attn",
           "lightning_attn": "lightning-attn", "lightning-attn": "lightning-attn"}


def sparse_and_lightning(v: Any) -> tuple[bool, bool]:
    """(sparse attention layers, lightning layers) of the checkpoint.

    A ``minicpm_sala`` config derives both from ``mixer_types`` (default: attention only)
    and ``sparse_config``; other configs must state them.
    """
    cfg = config(v)
    if v.model.model_type != "minicpm_sala":
        return (bool(cfg.get("has_minicpm_sparse_attention", False)),
                bool(cfg.get("has_lightning_layers", False)))
    mixers = [_MIXERS.get(m, m) for m in cfg.get("mixer_types") or ("minicpm4",)]
    return (cfg.get("sparse_config") is not None and "minicpm4" in mixers,
            "lightning-attn" in mixers)


_OVERRIDES = dict(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=ARCHS,
    reads=BACKEND_FIELDS + ("attn_dp_size", "ep_join_mode", "enable_hierarchical_cache",
                            "disaggregation_mode"),
    writes=BACKEND_FIELDS + ("disable_radix_cache",),
    facts=("model.arch0", "model.model_type", "model.config", "target.is_blackwell"),
)


@rule(**_OVERRIDES, sglang="_minicpm_sala_overrides (model_overrides/minicpm.py)")
def minicpm_sala_overrides(v: View) -> dict | Refuse | None:
    """MiniCPM sparse attention picks its own backends; hybrid layers turn the radix cache off.

    When: whenever its promises hold; sparse and lightning layers come from the config
        (``mixer_types`` and ``sparse_config`` for ``minicpm_sala``).
    Effect: refuses attention DP, a hierarchical cache on a hybrid model, and PD disaggregation
        with a sparse backend; a hybrid model gets ``disable_radix_cache`` = true; with no backend
        chosen a sparse model gets ``minicpm_flashinfer`` on Blackwell, else
        ``minicpm_flashattn``; ``SGLANG_MINICPM_FORCE_DENSE`` maps those two to their dense
        kernels (fa4 on Blackwell or fa3, and flashinfer) instead.
    Why: SGLang serves MiniCPM sparse attention on its own ``minicpm_*`` backends and runs the
        hybrid (sparse or lightning) layers without the radix or hierarchical cache
        (``_minicpm_sala_overrides``, arg_groups/model_overrides/minicpm.py).
    Assumes: ``SGLANG_MINICPM_FORCE_DENSE`` is off unless the given environment sets it.
    """
    return _overrides(v, attn_dp_enabled)


@rule(name="minicpm_sala_overrides", variant="0.5.21",
      **{**_OVERRIDES, "reads": _OVERRIDES["reads"] + ("enable_dp_attention",)},
      sglang="_minicpm_sala_overrides (0.5.21)")
def minicpm_sala_overrides_0_5_21(v: View) -> dict | Refuse | None:
    """0.5.21: as the current rule, with attention DP read from 0.5.21's switch.

    When: as ``minicpm_sala_overrides``.
    Effect: as ``minicpm_sala_overrides``, but ``--enable-dp-attention`` is refused with one
        DP group too, and a scale-up joiner without the switch is not.
    Why: 0.5.21 tests ``enable_dp_attention``, which it clears with one DP group only later,
        in ``handle_data_parallelism``.
    Assumes: as ``minicpm_sala_overrides``.
    """
    return _overrides(v, dp_attention_switch_0_5_21)


def _overrides(v: View, attn_dp: Callable[[Any], bool]) -> dict | Refuse | None:
    if attn_dp(v):
        return Refuse("MiniCPM does not support attention data parallelism")
    sparse, lightning = sparse_and_lightning(v)
    hybrid = sparse or lightning
    out: dict[str, Any] = {}
    if hybrid:
        if v.enable_hierarchical_cache:
            return Refuse("MiniCPM SALA does not support the hierarchical cache")
        out["disable_radix_cache"] = True
    blackwell = v.target.is_blackwell
    if env_true(v, "SGLANG_MINICPM_FORCE_DENSE"):
        dense = {"minicpm_flashattn": "fa4" if blackwell else "fa3",
                 "minicpm_flashinfer": "flashinfer"}
        for field in BACKEND_FIELDS:
            if v[field] in dense:
                out[field] = dense[v[field]]
    elif sparse:
        unset = backends_unset(v)
        if ((unset or any(v[f] in SPARSE_BACKENDS for f in BACKEND_FIELDS))
                and v.disaggregation_mode != "null"):
            return Refuse("MiniCPM sparse attention does not support PD disaggregation")
        if unset:
            out["attention_backend"] = "minicpm_flashinfer" if blackwell else "minicpm_flashattn"
    return out or None
