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
from launchplan.rules.rdma_devices import assumed_present, checked_devices

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


# Architectures a --language-model-only server runs without their encoders (SGLang
# ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES; 0.5.22 added DeepSeek-V4).
LANGUAGE_MODEL_ONLY_ARCHS = ("DeepseekV4ForCausalLM", "MuseGlimmerForConditionalGeneration",
                             "Cosmos3ForConditionalGeneration",
                             "Cosmos3EdgeForConditionalGeneration")
LANGUAGE_MODEL_ONLY_ARCHS_0_5_21 = LANGUAGE_MODEL_ONLY_ARCHS[1:]
_LMO = dict(
    phase=Phase.SERVING,
    reads=("language_model_only", "encoder_only", "language_only", "enable_prefix_mm_cache",
           "enable_broadcast_mm_inputs_process", "mm_enable_dp_encoder", "disaggregation_mode"),
    facts=("model.architectures", "model.model_type"),
    triggers=("language_model_only",),
)


@rule(sglang="handle_language_model_only", **_LMO)
def language_model_only_checks(v: View) -> Refuse | None:
    """A language-model-only server drops the encoders of a model that allows it.

    When: ``--language-model-only`` is given.
    Effect: refuses it with ``--encoder-only``, ``--language-only``,
        ``--enable-prefix-mm-cache``, ``--enable-broadcast-mm-inputs-process`` or
        ``--mm-enable-dp-encoder``; with a PD role (except DeepSeek-V4.1); and for an
        architecture outside DeepSeek-V4, Muse Glimmer, Cosmos3 and Cosmos3 Edge.
    Why: only those model implementations can load without their multimodal encoders
        (``handle_language_model_only``, first step of ``handle_encoder_disaggregation``).
    Assumes: nothing.
    """
    return _language_model_only(v, LANGUAGE_MODEL_ONLY_ARCHS, v41_pd=True)


@rule(name="language_model_only_checks", variant="0.5.21",
      sglang="handle_language_model_only (0.5.21)", **_LMO)
def language_model_only_checks_0_5_21(v: View) -> Refuse | None:
    """As later, without DeepSeek-V4 in the list and without its PD exemption.

    When: ``--language-model-only`` is given.
    Effect: as ``language_model_only_checks``; DeepSeek-V4 and any PD role are refused.
    Why: 0.5.21 predates DeepSeek-V4's text-only workers (``handle_language_model_only``).
    Assumes: nothing.
    """
    return _language_model_only(v, LANGUAGE_MODEL_ONLY_ARCHS_0_5_21, v41_pd=False)


def _language_model_only(v: View, archs: tuple[str, ...], v41_pd: bool) -> Refuse | None:
    if not v.language_model_only:
        return None
    for on, flag in ((v.encoder_only, "--encoder-only"), (v.language_only, "--language-only"),
                     (v.enable_prefix_mm_cache, "--enable-prefix-mm-cache"),
                     (v.enable_broadcast_mm_inputs_process,
                      "--enable-broadcast-mm-inputs-process"),
                     (v.mm_enable_dp_encoder, "--mm-enable-dp-encoder")):
        if on:
            return Refuse(f"--language-model-only cannot be combined with {flag}")
    if v.disaggregation_mode != "null" and not (
            v41_pd and v.model.model_type == "deepseek_v41"):
        return Refuse("--language-model-only does not work with --disaggregation-mode "
                      f"{v.disaggregation_mode}")
    if not any(a in archs for a in v.model.architectures):
        return Refuse(f"--language-model-only supports {', '.join(archs)} only; this model is "
                      f"{', '.join(v.model.architectures)}")
    return None


_SPLIT = dict(
    phase=Phase.SERVING,
    reads=("encoder_only", "language_only", "enable_prefix_mm_cache", "disaggregation_mode",
           "enable_adaptive_dispatch_to_encoder", "disaggregation_transfer_backend",
           "encoder_transfer_backend", "disaggregation_ib_device", "tp_size"),
    writes=("disaggregation_ib_device", "encoder_transfer_backend"),
    facts=("model.arch0", "target.ib_devices", "target.name"),
)


@rule(**_SPLIT, sglang="handle_encoder_disaggregation (pd_disaggregation_hook.py)")
def encoder_disaggregation_checks(v: View) -> Declare | Refuse | None:
    """An encoder-only or language-only server needs a model that splits at the encoder.

    When: whenever its promises hold (every check tests its own flag).
    Effect: refuses ``--enable-prefix-mm-cache`` without ``--encoder-only``, both
        ``--encoder-only`` and ``--language-only``, an encoder server with a PD role, a model
        outside the split list, and a Muse Spark language server with adaptive dispatch to a
        local encoder; re-declares ``disaggregation_ib_device`` for a Mooncake transfer (PD or
        encoder) in the form SGLang's device check returns (``rdma_devices``: a list
        stripped, de-duplicated and re-joined, a GPU mapping re-serialised), refusing one
        that names no device or is malformed; resolves an ``auto`` encoder
        transfer backend (on every launch): ZMQ to the tokenizer for Kimi-K3 VL over TP > 1,
        else ZMQ to the scheduler.
    Why: splitting needs a model implementation that ships encoder outputs to the language
        server (``handle_encoder_disaggregation`` in ``pd_disaggregation_hook.py``).
    Assumes: the named RDMA devices exist unless the host's are stated (``rdma_devices``;
        unset means auto-discovery); a mapping file (``X.json``) is read when it is on this
        machine, and one that is not is taken to exist where SGLang starts (noted; refused
        under ``--gpu auto``) (the language-model-only checks run just before, in
        ``language_model_only_checks``).
    """
    return _encoder_split(v, ENCODER_SPLIT_ARCHS)


def _encoder_split(v: View, archs: frozenset[str]) -> Declare | Refuse | None:
    refusal = _split_refusal(v, archs)
    if refusal is not None:
        return refusal
    out = {}
    note = None
    if ((v.disaggregation_transfer_backend == "mooncake"
         and v.disaggregation_mode in ("prefill", "decode"))
            or v.encoder_transfer_backend == "mooncake"):
        devices = checked_devices("--disaggregation-ib-device", v.disaggregation_ib_device,
                                  v.target.ib_devices, this_host=v.target.name == "auto")
        if isinstance(devices, Refuse):
            return devices
        out["disaggregation_ib_device"] = devices
        note = assumed_present("--disaggregation-ib-device", v.disaggregation_ib_device,
                               v.target.ib_devices)
    if v.encoder_transfer_backend == "auto":
        # Kimi-K3's sharded vision tower hands its features to the tokenizer process
        out["encoder_transfer_backend"] = (
            "zmq_to_tokenizer" if v.model.arch0 == "KimiK3ForConditionalGeneration"
            and v.tp_size > 1 else "zmq_to_scheduler")
    return Declare(out, note) if out else None


def _split_refusal(v: View, archs: frozenset[str]) -> Refuse | None:
    if v.enable_prefix_mm_cache and not v.encoder_only:
        return Refuse("--enable-prefix-mm-cache needs --encoder-only")
    if not (v.encoder_only or v.language_only):
        return None
    if v.encoder_only and v.language_only:
        return Refuse("--encoder-only and --language-only exclude each other")
    if v.encoder_only and v.disaggregation_mode != "null":
        return Refuse("an --encoder-only server takes no --disaggregation-mode role")
    arch = v.model.arch0
    if arch not in archs:
        flag = "--encoder-only" if v.encoder_only else "--language-only"
        return Refuse(f"{flag}: {arch} does not support encoder disaggregation")
    if (arch == "MuseSparkForConditionalGeneration" and v.language_only
            and v.enable_adaptive_dispatch_to_encoder):
        return Refuse("Muse Spark language-only servers load no encoder: "
                      "--enable-adaptive-dispatch-to-encoder is not supported")
    return None


# 0.5.21-0.5.22's split list: MiniMax-M3 VL and Muse Spark came in 0.5.23.
ENCODER_SPLIT_ARCHS_0_5_22 = ENCODER_SPLIT_ARCHS - {
    "MiniMaxM3SparseForConditionalGeneration", "MuseSparkForConditionalGeneration"}


@rule(name="encoder_disaggregation_checks", variant="0.5.22", **_SPLIT,
      sglang="handle_encoder_disaggregation (0.5.21-0.5.22)")
def encoder_disaggregation_checks_0_5_22(v: View) -> Declare | Refuse | None:
    """0.5.21-0.5.22: as ``encoder_disaggregation_checks``, with a shorter split list.

    When: as ``encoder_disaggregation_checks``.
    Effect: as ``encoder_disaggregation_checks``, but MiniMax-M3 VL and Muse Spark are not
        split models: ``--encoder-only``/``--language-only`` on them are refused.
    Why: 0.5.23 added both to the encoder-disaggregation list
        (``handle_encoder_disaggregation`` in 0.5.22).
    Assumes: as ``encoder_disaggregation_checks``.
    """
    return _encoder_split(v, ENCODER_SPLIT_ARCHS_0_5_22)
