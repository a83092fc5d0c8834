"""Encoder disaggregation (SGLang's ``handle_encoder_disaggregation``): a multimodal model's
vision/audio encoder on its own servers (``--encoder-only``), the language model on others
(``--language-only``).

Splitting the model needs a model implementation that can ship encoder outputs to the
language server, which exists for a fixed list of architectures only.
"""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

# Architectures whose encoder can run on its own server (SGLang 0.5.23, by the first
# architecture of the config).
ENCODER_SPLIT_ARCHS = frozenset({
    "Qwen2VLForConditionalGeneration", "Qwen3VLForConditionalGeneration",
    "Qwen2_5_VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration",
    "Qwen2AudioForConditionalGeneration", "Qwen2_5OmniForConditionalGeneration",
    "Dots3NoteForCausalLM", "KimiVLForConditionalGeneration",
    "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration", "MiMoV2ForCausalLM",
    "Glm5NextForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
    "MuseSparkForConditionalGeneration"})


@rule(
    phase=Phase.SERVING,
    reads=("encoder_only", "language_only", "enable_prefix_mm_cache", "disaggregation_mode",
           "enable_adaptive_dispatch_to_encoder", "disaggregation_transfer_backend",
           "encoder_transfer_backend", "disaggregation_ib_device"),
    writes=("disaggregation_ib_device",),
    facts=("model.arch0",),
    sglang="handle_encoder_disaggregation (pd_disaggregation_hook.py)",
)
def encoder_disaggregation_checks(v: View) -> Declare | Refuse | None:
    """An encoder-only or language-only server needs a model that splits at the encoder.

    When: whenever its promises hold (every check tests its own flag).
    Effect: refuses ``--enable-prefix-mm-cache`` without ``--encoder-only``, both
        ``--encoder-only`` and ``--language-only``, an encoder server with a PD role, a model
        outside the split list, and a Muse Spark language server with adaptive dispatch to a
        local encoder; re-declares ``disaggregation_ib_device`` for a Mooncake transfer (PD or
        encoder).
    Why: splitting needs a model implementation that ships encoder outputs to the language
        server (``handle_encoder_disaggregation`` in ``pd_disaggregation_hook.py``).
    Assumes: the named RDMA devices exist (unset means auto-discovery); the language-model-only
        checks and the encoder transfer backend are not modelled.
    """
    refusal = _split_refusal(v)
    if refusal is not None:
        return refusal
    if ((v.disaggregation_transfer_backend == "mooncake"
         and v.disaggregation_mode in ("prefill", "decode"))
            or v.encoder_transfer_backend == "mooncake"):
        return Declare({"disaggregation_ib_device": v.disaggregation_ib_device})
    return None


def _split_refusal(v: View) -> Refuse | None:
    if v.enable_prefix_mm_cache and not v.encoder_only:
        return Refuse("--enable-prefix-mm-cache needs --encoder-only")
    if not (v.encoder_only or v.language_only):
        return None
    if v.encoder_only and v.language_only:
        return Refuse("--encoder-only and --language-only exclude each other")
    if v.encoder_only and v.disaggregation_mode != "null":
        return Refuse("an --encoder-only server takes no --disaggregation-mode role")
    arch = v.model.arch0
    if arch not in ENCODER_SPLIT_ARCHS:
        flag = "--encoder-only" if v.encoder_only else "--language-only"
        return Refuse(f"{flag}: {arch} does not support encoder disaggregation")
    if (arch == "MuseSparkForConditionalGeneration" and v.language_only
            and v.enable_adaptive_dispatch_to_encoder):
        return Refuse("Muse Spark language-only servers load no encoder: "
                      "--enable-adaptive-dispatch-to-encoder is not supported")
    return None
