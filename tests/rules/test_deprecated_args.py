"""Retired flags and the gRPC settings (SGLang's handle_deprecated_args).

Recorded: the wild suite's wild/120 (--enable-flashinfer-allreduce-fusion: SGLang reports the
switch false and the fusion backend auto) and wild/38 (--sidecar without a gRPC port).
"""

from __future__ import annotations

import pytest

from launchplan import resolve
from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import deprecated_args as d
from tests.rules.conftest import make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_deprecated_flags():
    assert fields(d.deprecated_flags(make_view(enable_flashinfer_allreduce_fusion=True))) == {
        "flashinfer_allreduce_fusion_backend": "auto", "enable_flashinfer_allreduce_fusion": False}
    assert fields(d.deprecated_flags(make_view(
        enable_flashinfer_allreduce_fusion=True, flashinfer_allreduce_fusion_backend="trtllm"))) \
        == {"enable_flashinfer_allreduce_fusion": False}
    assert fields(d.deprecated_flags(make_view(tool_call_parser="qwen25"))) == {
        "tool_call_parser": "qwen"}
    assert fields(d.deprecated_flags(make_view(disable_fast_image_processor=True))) == {
        "image_processor_backend": "pil"}
    assert isinstance(d.deprecated_flags(make_view(disable_fast_image_processor=True,
                                                   image_processor_backend="torchvision")),
                      Refuse)
    assert d.deprecated_flags(make_view(tool_call_parser="qwen")) is None


def test_grpc_settings():
    assert fields(d.grpc_settings(make_view())) == {"grpc_worker_threads": 4}
    assert fields(d.grpc_settings(make_view(grpc_mode=True))) == {
        "smg_grpc_mode": True, "grpc_worker_threads": 4, "grpc_port": 40000}
    assert fields(d.grpc_settings(make_view(env={"SGLANG_GRPC_PORT": "50051",
                                                 "SGLANG_GRPC_WORKER_THREADS": "8"}))) == {
        "grpc_worker_threads": 8, "grpc_port": 50051}
    assert not isinstance(d.grpc_settings(make_view(sidecar="tool", grpc_port=50051)), Refuse)
    assert isinstance(d.grpc_settings(make_view(grpc_port=50051,
                                                env={"SGLANG_GRPC_WORKER_THREADS": "0"})), Refuse)
    for bad in (dict(sidecar="tool"), dict(sidecar=" ", grpc_port=1),
                dict(sidecar="tool", smg_grpc_mode=True), dict(sidecar_args=["a"]),
                dict(grpc_response_timeout_secs=0), dict(grpc_port=70000),
                dict(smg_grpc_mode=True, port=60000),
                dict(grpc_port=50051, tokenizer_worker_num=2),
                dict(grpc_port=50051, api_key="k"), dict(grpc_port=50051, use_ray=True)):
        assert isinstance(d.grpc_settings(make_view(**bad)), Refuse), bad
    # the legacy server owns the port: the native server's limits do not apply
    assert not isinstance(d.grpc_settings(make_view(smg_grpc_mode=True, api_key="k")), Refuse)


def test_a_legacy_grpc_port_too_long_to_print_is_refused_by_its_length(capsys):
    """``fuzz_lines.py --seed 61607``: a 4,300-digit ``--port`` (the most the command line
    takes) with ``--grpc-mode`` makes the legacy port ``--port`` + 10000 one digit longer than
    Python prints by default; the refusal names its length instead of failing as a rule bug."""
    from launchplan.commands.main import main

    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--grpc-mode",
                 "--port", "9" * 4300])
    err = capsys.readouterr()[1]
    assert code == 3 and "an integer of 4,301 digits" in err and "internal error" not in err


@pytest.mark.parametrize("compat", ["default", "0.5.22", "0.5.21"])
def test_a_bare_launch_warns_of_nothing(compat: str) -> None:
    """Rules that declare on every launch (the gRPC thread count, the empty media-domain
    list) warn only when they changed something the launch is about: a warnings list that is
    never empty trains readers to skip it (h24 F5)."""
    result = resolve(["--model-path", "llama-3.1-8b"], gpu="h100", compat=compat)
    assert result.warnings == []
    assert result.value("grpc_worker_threads") == 4
    assert result.value("allowed_media_domains") == []


def test_the_grpc_and_media_notes_stay_when_they_say_something() -> None:
    result = resolve(["--model-path", "llama-3.1-8b", "--allowed-media-domains", "Example.COM",
                      "a.org", "--smg-grpc-mode"], gpu="h100")
    assert "the media-URL policy: allowed domains normalised" in result.warnings
    assert "gRPC: grpc_worker_threads 4, grpc_port 40000" in result.warnings
    kept = resolve(["--model-path", "llama-3.1-8b", "--allowed-media-domains", "a.org"],
                   gpu="h100")
    assert kept.warnings == []
    threads = resolve(["--model-path", "llama-3.1-8b"], gpu="h100",
                      env={"SGLANG_GRPC_WORKER_THREADS": "8"})
    assert threads.warnings == ["gRPC: grpc_worker_threads 8"]
