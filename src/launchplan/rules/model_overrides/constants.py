"""The registry's constant table: fields some architectures always get, whatever the input."""

from __future__ import annotations

from types import MappingProxyType

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.model_overrides import BATCH, arch0

# arch -> {field: value}. Mistral Large 3 and Pixtral ship weights that are only served in
# bfloat16, so a requested dtype is replaced.
MODEL_OVERRIDES = MappingProxyType({
    "MistralLarge3ForCausalLM": MappingProxyType({"dtype": "bfloat16"}),
    "PixtralForConditionalGeneration": MappingProxyType({"dtype": "bfloat16"}),
})


@rule(
    phase=Phase.MODEL,
    batch=BATCH,
    archs=MODEL_OVERRIDES.keys(),
    writes=("dtype",),
    facts=("model.arch0",),
    sglang="MODEL_OVERRIDES (model_override_base.py)",
)
def model_override_constants(v: View) -> dict | None:
    """Mistral Large 3 and Pixtral run in bfloat16: ``dtype`` is forced, even over the input.

    When: whenever its promises hold (the architecture is in the constant table).
    Effect: the table's fields (``dtype`` = ``bfloat16``), replacing a requested value. First in
        the batch, so any provider declaring the same field would win over it.
    Why: these checkpoints are served only in bfloat16 (SGLang's ``MODEL_OVERRIDES`` table,
        arg_groups/model_override_base.py).
    Assumes: nothing.
    """
    fixed = MODEL_OVERRIDES.get(arch0(v))
    return dict(fixed) if fixed else None
