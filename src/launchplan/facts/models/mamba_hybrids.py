"""SGLang's own config classes for the Mamba-2 hybrids (Granite 4.0-H, Falcon-H1).

SGLang registers these classes in place of transformers' (``configs/granitemoehybrid.py``,
``configs/falcon_h1.py``), so their defaults fill a key a file leaves out, and Granite's
constructor refuses a file whose layer kinds or Mamba head shape do not add up: the launch
stops while the config loads, before any argument is resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from launchplan.errors import InputError
from launchplan.facts.models.attention import granite_hybrid_kinds
from launchplan.facts.models.fields import _as_int

#: the defaults of SGLang 0.5.23's classes for the keys launchplan reads (the same in 0.5.21
#: and 0.5.22); Granite's differ from transformers' class (a 128-wide state, 64 heads of 64)
HYBRID_MAMBA2_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    "granitemoehybrid": {"mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2,
                         "mamba_n_heads": 64, "mamba_n_groups": 1, "mamba_d_head": 64,
                         "mamba_conv_bias": True, "mamba_proj_bias": False,
                         "num_local_experts": 0, "shared_intermediate_size": 8192,
                         "intermediate_size": 8192, "position_embedding_type": "nope"},
    "falcon_h1": {"mamba_d_ssm": 1024, "mamba_d_state": 256, "mamba_d_conv": 4,
                  "mamba_expand": 2, "mamba_n_heads": 128, "mamba_n_groups": 1,
                  "mamba_conv_bias": True, "mamba_proj_bias": False, "mamba_rms_norm": False,
                  "intermediate_size": 14336},
}

_GRANITE_KINDS = ("mamba", "attention")


def check_granite_hybrid(config: Mapping[str, Any],
                         fail: Callable[..., InputError]) -> None:
    """What ``GraniteMoeHybridConfig.__init__`` refuses: layer kinds not one a layer or not
    Mamba/attention, a Mamba width (``mamba_expand`` x ``hidden_size``) the heads do not
    divide, or heads of a width that does not make it up. Values of the wrong type are left
    to the typed reads. ``fail(key, expected, got)`` makes the error naming the field."""
    layers = _as_int(config.get("num_hidden_layers"))
    given = config.get("layer_types") or config.get("layers_block_type")
    if layers is not None and isinstance(given, (list, tuple)):
        key = "layer_types" if config.get("layer_types") else "layers_block_type"
        if len(given) != layers:
            raise fail(key, f"one entry a layer ({layers}, num_hidden_layers; SGLang's "
                       "GraniteMoeHybridConfig refuses the file otherwise)",
                       f"{len(given)} entries")
        odd = [k for k in granite_hybrid_kinds(config) if k not in _GRANITE_KINDS]
        if odd:
            raise fail(key, "'mamba' or 'attention' in every entry (transformers 5's "
                       "linear_attention and full_attention read as those)", odd[0])
    defaults = HYBRID_MAMBA2_DEFAULTS["granitemoehybrid"]

    def value(key: str) -> int | None:
        return _as_int(config.get(key, defaults.get(key)))

    expand, hidden, heads, head = (value(k) for k in ("mamba_expand", "hidden_size",
                                                       "mamba_n_heads", "mamba_d_head"))
    if None in (expand, hidden, heads, head) or heads == 0:
        return
    width = expand * hidden
    if width % heads:
        raise fail("mamba_n_heads", f"a divisor of mamba_expand x hidden_size ({width}; "
                   "SGLang's GraniteMoeHybridConfig refuses the file otherwise)", heads)
    if head * heads != width:
        raise fail("mamba_d_head", f"mamba_expand x hidden_size / mamba_n_heads ({width} / "
                   f"{heads} = {width // heads}; SGLang's GraniteMoeHybridConfig refuses the "
                   "file otherwise)", head)
