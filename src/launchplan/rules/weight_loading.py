"""Remote-instance weight loading (SGLang's ``handle_load_format``, after the MoE budgets).

A server started with ``--remote-instance-weight-loader-start-seed-via-transfer-engine`` seeds
other instances' weights over Mooncake's TransferEngine; SGLang keeps the switch only where
that engine can run.
"""

from __future__ import annotations

from launchplan.encoding import json_object
from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

SEED_FLAG = "remote_instance_weight_loader_start_seed_via_transfer_engine"


@rule(
    phase=Phase.SERVING,
    reads=(SEED_FLAG, "enable_memory_saver"),
    writes=(SEED_FLAG,),
    sglang="handle_load_format (validate_transfer_engine)",
    triggers=(SEED_FLAG,),
)
def transfer_engine_seed(v: View) -> Declare | None:
    """The TransferEngine weight seed is switched off under the memory saver.

    When: ``--remote-instance-weight-loader-start-seed-via-transfer-engine`` is on.
    Effect: declares it False with ``--enable-memory-saver``, True otherwise.
    Why: the memory saver's virtual allocations cannot be registered with the TransferEngine
        (``validate_transfer_engine``); SGLang logs this and serves without the seed.
    Assumes: Mooncake's ``mooncake.engine`` is importable on the serving host (SGLang also
        switches the seed off, with a warning, where it is not).
    """
    if not v.get(SEED_FLAG):
        return None
    if v.enable_memory_saver:
        return Declare({SEED_FLAG: False}, "the TransferEngine weight seed does not work with "
                                           "--enable-memory-saver: switched off")
    return Declare({SEED_FLAG: True})


REMOTE = "remote_instance_weight_loader_"


@rule(
    phase=Phase.SERVING,
    reads=("custom_weight_loader", "load_format", "enable_memory_saver", REMOTE + "backend",
           REMOTE + "seed_instance_ip", REMOTE + "seed_instance_service_port",
           REMOTE + "send_weights_group_ports"),
    writes=("custom_weight_loader", "load_format"),
    sglang="handle_load_format",
)
def load_format_resolution(v: View) -> Declare | None:
    """No custom weight loaders is an empty list; an unusable remote-instance load falls back.

    When: always (the list is declared on every launch).
    Effect: ``custom_weight_loader`` = [] when none is given; ``load_format`` remote_instance
        becomes auto without a seed instance's IP and port (unless the backend is
        modelexpress), without the NCCL group's ports (nccl backend), or under the memory
        saver (transfer_engine backend).
    Why: the loader list is iterated unconditionally, and a remote-instance load that cannot
        reach its seed loads from disk instead, with a warning (``handle_load_format``,
        the same in 0.5.21-0.5.23).
    Assumes: Mooncake's ``mooncake.engine`` is importable on the serving host (as
        ``transfer_engine_seed`` does).
    """
    out: dict = {}
    if v.custom_weight_loader is None:
        out["custom_weight_loader"] = []
    backend = v[REMOTE + "backend"]
    if v.load_format == "remote_instance" and (
            (backend != "modelexpress" and (v[REMOTE + "seed_instance_ip"] is None
                                            or v[REMOTE + "seed_instance_service_port"] is None))
            or (backend == "nccl" and v[REMOTE + "send_weights_group_ports"] is None)
            or (backend == "transfer_engine" and v.enable_memory_saver)):
        return Declare({**out, "load_format": "auto"},
                       "--load-format remote_instance cannot reach its seed instance here: "
                       "weights load from disk (auto)")
    return Declare(out) if out else None


@rule(
    phase=Phase.SERVING,
    reads=("weight_cache_mode", "speculative_algorithm", "load_format"),
    sglang="handle_load_format",
    triggers=("weight_cache_mode", "load_format"),
)
def weight_cache_checks(v: View) -> Refuse | None:
    """The weight cache daemon serves the target model only, and ipc_cache is internal.

    When: ``--weight-cache-mode`` or a load format is given.
    Effect: refuses ``load_format`` ipc_cache (only the weight cache selects it), and a weight
        cache mode other than off with speculative decoding.
    Why: the daemon exports the target model's weights, never a draft model's; ipc_cache is the
        format the weight cache picks itself (``handle_load_format``).
    Assumes: nothing.
    """
    if v.load_format == "ipc_cache":
        return Refuse("--load-format ipc_cache is internal: use --weight-cache-mode client or "
                      "daemon")
    if v.weight_cache_mode != "off" and v.speculative_algorithm is not None:
        return Refuse("--weight-cache-mode does not work with speculative decoding (the daemon "
                      "does not export the draft model's weights)")
    return None


#: what the expert-pack loader serves: DeepSeek-V4, and Kimi-K3's text-only config, whose
#: shape the pack layout is cut for (``expert_pack_config.py``)
EXPERT_PACK_MODELS = ("deepseek_v4", "kimi_linear")
KIMI_K3_PACK_SHAPE = {"num_hidden_layers": 93, "num_experts": 896, "num_experts_per_token": 16,
                      "first_k_dense_replace": 1, "routed_expert_hidden_size": 3584,
                      "moe_intermediate_size": 3072, "num_shared_experts": 2,
                      "hidden_act": "situ", "activation_situ_beta": 4.0,
                      "activation_situ_linear_beta": 25.0}
DEEPSEEK_V4_PACK_KEYS = ("source_path", "source_sha256", "model_identity_sha256",
                         "config_sha256")


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("load_format", "tp_size", "dp_size", "attn_dp_size", "ep_size",
           "enforce_shared_experts_fusion", "enable_waterfill", "cuda_graph_config",
           "cuda_graph_backend_decode", "cuda_graph_backend_prefill",
           "model_loader_extra_config"),
    writes=("disable_cuda_graph", "disable_shared_experts_fusion"),
    facts=("model.model_type", "model.config", "target.name"),
    sglang="handle_expert_pack",
    triggers=("load_format",),
)
def expert_pack_checks(v: View) -> Declare | Refuse | None:
    """The expert-pack load format: one rank, eager, a named pack, DeepSeek-V4 or Kimi-K3.

    When: ``--load-format expert_pack``.
    Effect: refuses, listing every reason at once, any TP, DP, attention-DP or EP width other
        than 1, ``--enforce-shared-experts-fusion``, ``--enable-waterfill``, a CUDA-graph
        backend given as anything but disabled, a loader config that is not a JSON object, no
        ``pack_path`` (in ``--model-loader-extra-config`` or ``SGLANG_EXPERT_PACK_PATH``), a
        model other than DeepSeek-V4 or Kimi-K3's text config (whose shape must be the
        released one), Kimi-K3 without ``manifest_path`` and DeepSeek-V4 without its source
        GGUF and checksums; otherwise declares CUDA graphs and shared-experts fusion off.
    Why: the pack streams every expert of one rank from a file laid out for those two models,
        which neither a captured graph nor fused shared experts can follow
        (``handle_expert_pack``, the same in 0.5.21-0.5.23 but for 0.5.21's DP layout).
        A pack on this machine is checked as SGLang checks it where it starts: its manifest
        (``manifest_path``, or for DeepSeek-V4 without one ``PACK.manifest.json`` beside the
        pack) and DeepSeek-V4's source GGUF must exist too; under ``--gpu auto`` (the plan
        is for this machine) a pack that is not here is refused as well.
    Assumes: on a named target, a pack that is not on this machine and the files beside it
        exist where SGLang starts (the plan says so); the model path is a config folder (a
        raw GGUF file, which SGLang converts first, is not modelled).
    """
    if v.load_format != "expert_pack":
        return None
    errors = [f"{label} must be 1, got {size}" for label, size in (
        ("--tp-size", v.tp_size), ("--dp-size", v.dp_size), ("--attn-dp-size", v.attn_dp_size),
        ("--ep-size", v.ep_size)) if size != 1]
    if v.enforce_shared_experts_fusion:
        errors.append("--enforce-shared-experts-fusion cannot be used")
    if v.enable_waterfill:
        errors.append("--enable-waterfill cannot be used")
    graphs = v.cuda_graph_config if isinstance(v.cuda_graph_config, dict) else {}
    for phase, given in (("decode", v.cuda_graph_backend_decode),
                         ("prefill", v.cuda_graph_backend_prefill)):
        backend = (graphs.get(phase) or {}).get("backend", given)
        if backend not in (None, "disabled"):
            errors.append(f"the {phase} CUDA graph backend must be disabled, got {backend}")
    loader = _loader_config(v.model_loader_extra_config, errors)
    pack = loader.get("pack_path") or v.env.get("SGLANG_EXPERT_PACK_PATH")
    if not pack:
        errors.append("no pack_path in --model-loader-extra-config or SGLANG_EXPERT_PACK_PATH")
    kind, config = v.model.model_type, v.model.config
    note = _pack_files(str(pack), loader, kind, v.target.name == "auto", errors) \
        if pack else None
    if kind not in EXPERT_PACK_MODELS:
        errors.append(f"the model must be DeepSeek-V4 or Kimi-K3's text config, not {kind!r}")
    elif kind == "kimi_linear":
        errors += [f"Kimi-K3's {key} must be {want!r}, got {config.get(key)!r}"
                   for key, want in KIMI_K3_PACK_SHAPE.items() if config.get(key) != want]
        if not loader.get("manifest_path"):
            errors.append("Kimi-K3 needs manifest_path in the loader config")
    else:
        errors += [f"DeepSeek-V4 needs {key} in the loader config"
                   for key in DEEPSEEK_V4_PACK_KEYS if not loader.get(key)]
    if errors:
        return Refuse("--load-format expert_pack: " + "; ".join(errors))
    return Declare({"disable_cuda_graph": True, "disable_shared_experts_fusion": True},
                   "expert_pack runs eager, without fused shared experts"
                   + (f"; {note}" if note else ""))


def _pack_files(pack: str, loader: dict, kind: str, this_host: bool,
                errors: list[str]) -> str | None:
    """Check the files an expert pack names where they can be checked (see
    ``expert_pack_checks``), adding to ``errors``; the note a plan carries when the pack is
    not on this machine."""
    from pathlib import Path

    def missing(path: object) -> bool:
        return not Path(str(path)).expanduser().is_file()

    if missing(pack):
        if this_host:
            errors.append(f"the expert-pack file {pack} does not exist")
            return None
        return (f"the expert pack {pack} is not on this machine: it, its manifest and source "
                "are taken to exist where SGLang starts (it refuses a missing one)")
    manifest = loader.get("manifest_path") or (
        f"{pack}.manifest.json" if kind == "deepseek_v4" else None)
    if manifest and missing(manifest):
        errors.append(f"the expert-pack manifest {manifest} does not exist"
                      + ("" if loader.get("manifest_path") else " (a DeepSeek-V4 pack without "
                         "manifest_path keeps it beside the pack)"))
    source = loader.get("source_path")
    if kind == "deepseek_v4" and source and missing(source):
        errors.append(f"the DeepSeek-V4 source GGUF {source} does not exist")
    return None


def _loader_config(given: object, errors: list[str]) -> dict:
    """The loader's extra config as a dict (an error noted when it is not a JSON object)."""
    if isinstance(given, str):
        parsed = json_object(given)
        if parsed is None:
            errors.append("--model-loader-extra-config is not a JSON object")
        return parsed or {}
    if not isinstance(given, dict):
        errors.append("--model-loader-extra-config must be a JSON object")
        return {}
    return given
