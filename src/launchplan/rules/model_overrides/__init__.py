"""SGLang's model-override registry: per-architecture defaults, one module per model family.

SGLang 0.5.23 collects these in one batch inside ``handle_model_specific_adjustments``: the
constant table first, then every exact-architecture provider in the import order of its
``model_overrides`` package (alphabetical by module), then the predicate providers. All of
them read the state *before* the batch and cannot see one another; their declarations land
together afterwards, in that order, so a later provider wins a field both declare.

Here every provider is one rule with ``batch=BATCH``; ``rulesets.PIPELINE`` lists them in
SGLang's application order. A provider decides only for the architectures it names
(``hf_config.architectures[0]``) and may declare only resolvable fields. A family's module
also holds that family's own pass of ``handle_model_specific_adjustments`` outside the batch
(its defaults, checks and SGLang asserts: Kimi, GLM-5-Next, DeepSeek-V4, the DeepSeek/DSA
branch, GPT-OSS, MiMo-V2, Llama 4, Gemma 4, EXAONE, OLMo 2, LFM2), after the provider;
``PIPELINE`` places those rules after the batch, where SGLang runs them.

Platform probes SGLang makes at run time that a plan cannot make (an installed kernel
package, the NVIDIA driver version) are explicit assumptions, stated in each rule's
docstring: where SGLang reads an environment variable, the rule reads ``v.env``; otherwise it
assumes what the oracle harness assumes (GPU kernel packages such as ``triton_kernels``
absent, NVIDIA driver 580).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.facts.environment import flag
from launchplan.facts.quantization import fp4_experts
from launchplan.rules.parallel import attn_dp_enabled as attn_dp_enabled  # for the providers
from launchplan.rules.parallel import (
    dp_attention_switch_0_5_21 as dp_attention_switch_0_5_21,
)
from launchplan.vocabulary import BACKEND_FIELDS as BACKEND_FIELDS

BATCH = "model_overrides"


def backends_unset(v: Any) -> bool:
    """No attention backend chosen at all: base, prefill and decode are all unset."""
    return (v.attention_backend is None and v.prefill_attention_backend is None
            and v.decode_attention_backend is None)


def sm100_base_default(v: Any, backend: str) -> dict | None:
    """On SM10x an unset base backend becomes ``backend`` instead of the generic trtllm_mha.

    The shape of several family providers whose kernels SGLang keeps off trtllm_mha on
    Blackwell; elsewhere the generic default applies.
    """
    if v.target.is_sm100 and v.attention_backend is None:
        return {"attention_backend": backend}
    return None


def arch0(v: Any) -> str:
    """The architecture the registry keys on: the first entry of ``architectures``."""
    return v.model.arch0


def config(v: Any) -> Mapping[str, Any]:
    """The model's parsed ``config.json`` (top level)."""
    return v.model.config


def text_config(v: Any) -> Mapping[str, Any]:
    """The language-model config (SGLang's ``hf_text_config``; the top level for plain LLMs)."""
    return v.model.text_config


# ``--dtype`` spellings and the torch dtype each names.
_DTYPE_NAMES = {"half": "float16", "float": "float32", "bf16": "bfloat16"}


def model_dtype(v: Any) -> str:
    """The dtype the model config runs in: ``--dtype`` as given, or the checkpoint's."""
    given = v.raw("dtype")
    if given in (None, "auto"):
        return v.model.dtype
    return _DTYPE_NAMES.get(given, given)


def quantization_config(v: Any) -> Mapping[str, Any]:
    """The checkpoint's ``quantization_config`` (empty when it has none)."""
    qc = v.model.quantization_config
    return qc if isinstance(qc, Mapping) else {}


def checkpoint_quant_method(v: Any) -> str | None:
    """``quantization_config.quant_method`` exactly as the checkpoint writes it."""
    return quantization_config(v).get("quant_method")


def model_quantization(v: Any) -> str | None:
    """The method SGLang's model config verified: checkpoint and ``--quantization`` reconciled.

    ``--quantization unquant`` clears the field, yet the checkpoint's method is still
    detected, as SGLang does. (A combination SGLang refuses was refused when the model
    config was built, before any rule here runs.)
    """
    from launchplan.facts.quantization import (
        QuantizationError,
        QuantPlatform,
        verify_quantization,
    )

    try:
        return verify_quantization(v.model.quant_config, v.quantization,
                                   QuantPlatform.from_target(v.target)).method
    except QuantizationError:
        return v.quantization or v.model.quant_method


def quantization_unset_explicitly(v: Any) -> bool:
    """``--quantization unquant``: the user asked that no checkpoint method be copied in."""
    return v.raw("quantization") == "unquant"


def routed_experts_fp4(v: Any) -> bool:
    """Routed experts stored as MXFP4 (SGLang's ``is_fp4_experts``; ``facts.quantization``)."""
    return fp4_experts(v.model, v.env)


def mxfp4_pack_quantized(v: Any) -> bool:
    """An llm-compressor checkpoint whose config groups use an mxfp4 pack format."""
    top = v.model.config
    sub = top.get("text_config")
    qc = (sub if isinstance(sub, Mapping) else top).get("quantization_config")
    if not isinstance(qc, Mapping):
        return False
    groups = qc.get("config_groups") or {}
    return any("mxfp4" in str(g.get("format", "")) for g in groups.values()
               if isinstance(g, Mapping))


def env_true(v: Any, name: str) -> bool:
    """An SGLang boolean environment variable, true as SGLang reads it (its default when
    unset or unreadable: ``facts.environment``)."""
    return flag(v.env, name)


def env_set(v: Any, name: str) -> bool:
    """Whether the environment sets ``name`` at all (SGLang's ``is_set``)."""
    return name in v.env


