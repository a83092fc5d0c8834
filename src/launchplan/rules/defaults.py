"""Defaults SGLang fills before anything reads them: paths, device, draft quantization."""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.rules.graph_config import DECODE, is_locked, with_phase


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("model_path", "tokenizer_path", "served_model_name", "mm_process_config",
           "speculative_draft_model_quantization", "quantization",
           "_speculative_draft_quantization_explicitly_set"),
    writes=("tokenizer_path", "served_model_name", "mm_process_config",
            "speculative_draft_model_quantization", "quantization",
            "_speculative_draft_quantization_explicitly_set"),
    sglang="handle_missing_default_values",
)
def missing_default_values(v: View) -> dict | None:
    """The tokenizer and served name default to the model path; drafts inherit quantization.

    When: whenever its promises hold (it fills only what is unset).
    Effect: unset ``tokenizer_path`` and ``served_model_name`` become ``model_path``, an unset
        ``mm_process_config`` ``{}``; the draft's quantization defaults to the target's input
        value (and records whether it was explicit); ``unquant`` becomes None on either.
    Why: SGLang fills these before anything reads them (``handle_missing_default_values``);
        ``--quantization unquant`` means "no quantization".
    Assumes: ``random_seed`` is drawn at start-up, so a plan leaves it unknown.
    """
    out: dict = {}
    if v.tokenizer_path is None:
        out["tokenizer_path"] = v.model_path
    if v.served_model_name is None:
        out["served_model_name"] = v.model_path
    if v.mm_process_config is None:
        out["mm_process_config"] = {}
    if v._speculative_draft_quantization_explicitly_set is None:
        out["_speculative_draft_quantization_explicitly_set"] = (
            v.speculative_draft_model_quantization is not None)
    draft_quant = v.speculative_draft_model_quantization
    if draft_quant is None:
        draft_quant = out["speculative_draft_model_quantization"] = v.quantization
    if v.quantization == "unquant":
        out["quantization"] = None
    if draft_quant == "unquant":
        out["speculative_draft_model_quantization"] = None
    return out or None


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("device",),
    writes=("device",),
    facts=("target.vendor",),
    sglang="handle_missing_default_values (device)",
    normalizes=True,
)
def device_default(v: View) -> dict | None:
    """The device is the GPU's (``cuda`` on NVIDIA and on ROCm); ``cuda:0`` loses its index.

    When: whenever its promises hold.
    Effect: an unset ``device`` becomes cuda; an indexed one (``cuda:0``) is stripped to its
        type, and a given one (``--device cuda``) is declared again as it is.
    Why: ROCm builds of torch also call their device ``cuda``
        (``handle_missing_default_values``, device); SGLang strips the index of whatever
        device it has, so the field is always that step's (a pasted ``--device cuda`` too).
    Assumes: the target profile's GPU is the device present (SGLang probes the platform).
    """
    device = v.device
    if device is None:
        return {"device": "cuda"}
    return {"device": str(device).split(":")[0]}


@rule(
    phase=Phase.DEVICE,
    reads=("device", "attention_backend"),
    writes=("attention_backend", "sampling_backend"),
    facts=("target.host_arm64",),
    sglang="handle_cpu_backends",
)
def cpu_backends(v: View) -> dict | None:
    """A CPU server (``--device cpu``) samples with PyTorch and attends with CPU kernels.

    When: ``device`` is cpu.
    Effect: declares ``sampling_backend`` pytorch (even a given one) and, when unset,
        ``attention_backend`` intel_amx (torch_native on an Arm host).
    Why: SGLang's CPU hook sets both (``handle_cpu_backends``); a CPU without AMX falls back
        later (``cpu_attention_fallback``).
    Assumes: the host CPU is the one the target profile's GPUs come with (Grace on GH200 and
        GB200, x86-64 elsewhere).
    """
    if v.device != "cpu":
        return None
    out: dict = {"sampling_backend": "pytorch"}
    if v.attention_backend is None:
        out["attention_backend"] = "torch_native" if v.target.host_arm64 else "intel_amx"
    return out


@rule(
    phase=Phase.DEVICE,
    reads=("device", "sampling_backend", "cuda_graph_config", "disable_cuda_graph",
           "disable_decode_cuda_graph", "cuda_graph_backend_decode",
           "enable_fused_qk_norm_rope"),
    writes=("sampling_backend", "cuda_graph_config", "enable_fused_qk_norm_rope"),
    sglang="handle_xpu_backends",
    triggers={"device": ("xpu",)},
)
def xpu_backends(v: View) -> dict | None:
    """An Intel XPU server (``--device xpu``) samples with XPU kernels, decode graphs opt-in.

    When: ``device`` is xpu.
    Effect: declares ``sampling_backend`` intel_xpu when unset, the fused q/k-norm + RoPE
        kernel on when unset (0.5.23, whose switch defaults to unset; older releases default
        it off), and the decode phase of ``cuda_graph_config`` disabled unless the user chose
        its backend (a chosen backend other than full is disabled too).
    Why: SGLang's XPU hook keys on the device, not the platform (``handle_xpu_backends``,
        0.5.21 on): decode graph capture is opt-in there, and the memory defaults after it
        see the decode graph off; 0.5.23's hook turns the fused kernel on, a pure win on XPU.
    Assumes: a pasted ``--device xpu`` on a GPU target resolves so, then fails at start-up
        (preflight says so).
    """
    out: dict = {}
    if v.sampling_backend is None:
        out["sampling_backend"] = "intel_xpu"
    if v.enable_fused_qk_norm_rope is None:
        out["enable_fused_qk_norm_rope"] = True
    config = v.cuda_graph_config
    if not is_locked(v, DECODE, "backend") or config[DECODE]["backend"] not in (
            "disabled", "full"):
        out["cuda_graph_config"] = with_phase(config, DECODE, backend="disabled")
    return out


@rule(
    phase=Phase.ATTENTION,
    reads=("device", "attention_backend"),
    writes=("attention_backend",),
    sglang="_attention_backend_platform_fallbacks",
)
def cpu_attention_fallback(v: View) -> Declare | None:
    """Intel AMX attention on a host CPU without AMX falls back to torch_native.

    When: ``device`` is cpu and ``attention_backend`` is intel_amx.
    Effect: declares ``attention_backend`` torch_native, with a note: an AMX host (Intel
        Sapphire Rapids and later) keeps intel_amx.
    Why: SGLang checks the host for AMX after the attention compatibility checks
        (``_attention_backend_platform_fallbacks``), so the CUDA-graph settings those made
        for intel_amx stay.
    Assumes: the host CPU has no AMX (AMD EPYC, Intel before Sapphire Rapids): the target
        profile describes the GPUs, not the host's instruction set; give
        ``--attention-backend torch_native`` or run on an AMX host to be sure.
    """
    if v.device != "cpu" or v.attention_backend != "intel_amx":
        return None
    return Declare({"attention_backend": "torch_native"},
                   "--device cpu: intel_amx attention falls back to torch_native on a host "
                   "CPU without Intel AMX, as planned here; an AMX host (Sapphire Rapids and "
                   "later) keeps intel_amx")
