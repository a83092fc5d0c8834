"""Retired spellings and the gRPC server settings (SGLang's ``handle_deprecated_args``).

Old flags keep working: each is rewritten into its current form before any rule reads it. The
same hook settles which gRPC server runs (the legacy SMG one, or the native one on
``--grpc-port``) and refuses the launch paths the native server does not wire into.
The attention-backend aliases of this hook live in ``kv_cache.py``.
"""

from __future__ import annotations

from launchplan.encoding import int_text
from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment

TOOL_CALL_PARSER_RENAMES = {"qwen25": "qwen", "glm45": "glm"}


@rule(
    phase=Phase.MODEL_SOURCE,
    reads=("disable_fast_image_processor", "image_processor_backend", "tool_call_parser",
           "enable_flashinfer_allreduce_fusion", "flashinfer_allreduce_fusion_backend"),
    writes=("image_processor_backend", "tool_call_parser", "flashinfer_allreduce_fusion_backend",
            "enable_flashinfer_allreduce_fusion"),
    sglang="handle_deprecated_args (retired flags)",
    triggers=("disable_fast_image_processor", "tool_call_parser",
              "enable_flashinfer_allreduce_fusion"),
)
def deprecated_flags(v: View) -> Declare | Refuse | None:
    """Retired flags become their current spelling.

    When: ``--disable-fast-image-processor``, a retired tool-call parser name, or
        ``--enable-flashinfer-allreduce-fusion`` is given.
    Effect: ``--disable-fast-image-processor`` declares ``image_processor_backend`` pil
        (refused with a backend other than auto or pil); tool-call parser qwen25 becomes qwen
        and glm45 glm; ``--enable-flashinfer-allreduce-fusion`` declares
        ``flashinfer_allreduce_fusion_backend`` auto when no backend is given, and the switch
        itself false.
    Why: the backend flag replaced the switch, so later rules read the backend only
        (``handle_deprecated_args``).
    Assumes: nothing.
    """
    out: dict[str, object] = {}
    if v.disable_fast_image_processor:
        if v.image_processor_backend not in ("auto", "pil"):
            return Refuse("--disable-fast-image-processor conflicts with "
                          f"--image-processor-backend {v.image_processor_backend}")
        out["image_processor_backend"] = "pil"
    if v.tool_call_parser in TOOL_CALL_PARSER_RENAMES:
        out["tool_call_parser"] = TOOL_CALL_PARSER_RENAMES[v.tool_call_parser]
    if v.enable_flashinfer_allreduce_fusion:
        if v.flashinfer_allreduce_fusion_backend is None:
            out["flashinfer_allreduce_fusion_backend"] = "auto"
        out["enable_flashinfer_allreduce_fusion"] = False
    if not out:
        return None
    return Declare(out, "retired flags rewritten: " + ", ".join(
        f"{field} {value}" for field, value in out.items()))


_GRPC = dict(
    phase=Phase.MODEL_SOURCE,
    reads=("grpc_mode", "smg_grpc_mode", "grpc_port", "port", "grpc_response_timeout_secs",
           "sidecar", "sidecar_args", "use_ray", "encoder_only", "tokenizer_worker_num",
           "api_key", "admin_api_key"),
    writes=("smg_grpc_mode", "grpc_port", "grpc_worker_threads"),
)


@rule(**_GRPC, sglang="handle_deprecated_args (gRPC)")
def grpc_settings(v: View) -> Declare | Refuse | dict[str, object]:
    """Which gRPC server runs, on which port, and what it cannot run with.

    When: whenever its promises hold.
    Effect: ``--grpc-mode`` declares ``smg_grpc_mode``; ``grpc_worker_threads`` is declared
        from SGLANG_GRPC_WORKER_THREADS (4 when unset) on every launch; without
        ``--grpc-port``, SGLANG_GRPC_PORT declares it, else the legacy SMG server takes
        ``--port`` + 10000. Refuses a non-positive
        ``--grpc-response-timeout-secs``; a gRPC port outside 1..65535 or fewer than one worker
        thread; ``--sidecar-args`` without ``--sidecar`` or not a list of strings; an empty
        ``--sidecar``, one with the legacy server, or one without a gRPC port; the native
        server (a gRPC port, no legacy mode) with Ray, ``--encoder-only``, more than one
        tokenizer worker, or an API key. Warns only when gRPC is in play (a mode, a port or
        the thread variable set), not of the default thread count every launch declares.
    Why: the native gRPC listener bypasses the HTTP launch path, its auth middleware and the
        tokenizer-worker pool; the sidecar talks to it (``handle_deprecated_args``).
    Assumes: SGLANG_GRPC_PORT and SGLANG_GRPC_WORKER_THREADS are unset (no port, 4 threads)
        unless the environment given sets them.
    """
    return _grpc(v, rust_sidecar=True)


def _grpc(v: View, *, rust_sidecar: bool) -> Declare | Refuse | dict[str, object]:
    """``rust_sidecar`` False: 0.5.22, which refuses a sidecar under SGLANG_RUST_SERVER."""
    out: dict[str, object] = {}
    legacy = bool(v.smg_grpc_mode or v.grpc_mode)
    if v.grpc_mode and not v.smg_grpc_mode:
        out["smg_grpc_mode"] = True
    out["grpc_worker_threads"] = threads = environment.value(v.env, "SGLANG_GRPC_WORKER_THREADS")
    port = v.grpc_port
    if port is None:
        port = environment.value(v.env, "SGLANG_GRPC_PORT")
        if port is None and legacy:
            port = v.port + 10000
        if port is not None:
            out["grpc_port"] = port
    if v.grpc_response_timeout_secs <= 0:
        return Refuse("--grpc-response-timeout-secs must be positive, got "
                      f"{v.grpc_response_timeout_secs}")
    if port is not None:
        if not 1 <= port <= 65535:
            shown = _shown_port(port)
            return Refuse(f"--grpc-port (or SGLANG_GRPC_PORT) must be in 1..65535, got {shown}")
        if threads < 1:
            return Refuse(f"SGLANG_GRPC_WORKER_THREADS must be at least 1, got {threads}")
    if v.sidecar_args is not None:
        if v.sidecar is None:
            return Refuse("--sidecar-args needs --sidecar")
        if not isinstance(v.sidecar_args, list) or not all(
                isinstance(arg, str) for arg in v.sidecar_args):
            return Refuse("--sidecar-args must be a JSON list of strings")
    if v.sidecar is not None:
        if not str(v.sidecar).strip():
            return Refuse("--sidecar must not be empty")
        if legacy:
            return Refuse("--sidecar talks to the native gRPC server, not the legacy "
                          "--smg-grpc-mode/--grpc-mode one")
        if port is None:
            return Refuse("--sidecar needs --grpc-port (or SGLANG_GRPC_PORT)")
        if not rust_sidecar and v.record.env_flag("SGLANG_RUST_SERVER"):
            return Refuse("--sidecar does not run with SGLANG_RUST_SERVER in this release: "
                          "the Rust server has no Python sidecar lifecycle")
    if port is not None and not legacy:
        for bad, what in ((v.use_ray, "--use-ray"), (v.encoder_only, "--encoder-only"),
                          (v.tokenizer_worker_num > 1, "--tokenizer-worker-num above 1"),
                          (v.api_key or v.admin_api_key, "--api-key/--admin-api-key")):
            if bad:
                return Refuse(f"the native gRPC server (--grpc-port) does not support {what}")
    if len(out) == 1 and not environment.given(v.env, "SGLANG_GRPC_WORKER_THREADS"):
        return out  # only the default thread count: nothing about gRPC to warn of
    return Declare(out, "gRPC: " + ", ".join(f"{k} {val}" for k, val in out.items()))


def _shown_port(port: object) -> object:
    """A port as a message shows it: a number past a few dozen digits by its length (``--port``
    takes up to 4,300 digits, and the legacy port, ``--port`` + 10000, may pass the most
    Python prints by default)."""
    if type(port) is not int:
        return port
    text = int_text(port)
    return text if len(text) <= 24 else f"an integer of {len(text.lstrip('-')):,} digits"


@rule(name="grpc_settings", variant="0.5.22", **_GRPC,
      sglang="handle_deprecated_args (gRPC, 0.5.22)")
def grpc_settings_0_5_22(v: View) -> Declare | Refuse | dict[str, object]:
    """0.5.22: as ``grpc_settings``; a sidecar cannot run under SGLANG_RUST_SERVER.

    When: whenever its promises hold.
    Effect: as ``grpc_settings``; besides, ``--sidecar`` with SGLANG_RUST_SERVER set is refused
        (after the sidecar's own checks, before the native server's).
    Why: 0.5.22's Rust server did not run the Python sidecar lifecycle; 0.5.21 had no such
        check and 0.5.23 dropped it (``handle_deprecated_args`` in 0.5.22).
    Assumes: SGLANG_RUST_SERVER is unset unless the environment given sets it.
    """
    return _grpc(v, rust_sidecar=False)
