"""GLM-5-Next: no override provider; outside the batch, its speculative verify default."""

from __future__ import annotations

from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View


@rule(
    phase=Phase.MODEL,
    reads=("speculative_algorithm", "linear_attn_verify_backend"),
    writes=("linear_attn_verify_backend",),
    facts=("model.arch0", "target.is_sm100"),
    archs=("Glm5NextForConditionalGeneration",),
    sglang="apply_glm5_next_spec_backend_defaults (glm5_next_hook.py)",
)
def glm5_next_spec_backend_defaults(v: View) -> dict | None:
    """GLM-5-Next verifies speculative drafts with the CuTeDSL kernel on SM10x."""
    if (v.speculative_algorithm is not None
            and v.linear_attn_verify_backend is None and v.target.is_sm100):
        return {"linear_attn_verify_backend": "nv_cutedsl"}
    return None
