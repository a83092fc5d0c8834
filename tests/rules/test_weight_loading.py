"""Remote-instance weight loading: the TransferEngine seed switch (wild3/aimed/seed-*)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.rules.weight_loading import SEED_FLAG, transfer_engine_seed
from tests.rules.conftest import make_view


def test_transfer_engine_seed_is_off_under_the_memory_saver():
    out = transfer_engine_seed(make_view(**{SEED_FLAG: True, "enable_memory_saver": True}))
    assert isinstance(out, Declare) and out.fields == {SEED_FLAG: False}
    out = transfer_engine_seed(make_view(**{SEED_FLAG: True}))
    assert isinstance(out, Declare) and out.fields == {SEED_FLAG: True}
    assert transfer_engine_seed(make_view()) is None


def test_expert_pack_checks():
    """expert_pack serves DeepSeek-V4 or Kimi-K3 on one eager rank from a named pack; every
    reason it cannot is listed at once, and a servable line turns graphs and fusion off."""
    from launchplan.engine.declarations import Refuse
    from launchplan.rules.weight_loading import KIMI_K3_PACK_SHAPE, expert_pack_checks
    from tests.rules.conftest import decide, fake_model

    v4 = fake_model(model_type="deepseek_v4", config={})
    loader = ('{"pack_path": "/p", "source_path": "/s", "source_sha256": "a", '
              '"model_identity_sha256": "b", "config_sha256": "c"}')
    out = decide(expert_pack_checks, make_view(model=v4, load_format="expert_pack",
                                               model_loader_extra_config=loader))
    assert out.fields == {"disable_cuda_graph": True, "disable_shared_experts_fusion": True}
    refused = decide(expert_pack_checks, make_view(
        model=fake_model(model_type="llama", config={}), load_format="expert_pack", tp_size=2,
        cuda_graph_backend_decode="full"))
    assert isinstance(refused, Refuse)
    for reason in ("--tp-size must be 1, got 2", "decode CUDA graph backend", "pack_path",
                   "not 'llama'"):
        assert reason in refused.message, reason
    # the pack path may come from the environment; Kimi-K3 needs its shape and a manifest
    kimi = fake_model(model_type="kimi_linear", config=dict(KIMI_K3_PACK_SHAPE))
    refused = decide(expert_pack_checks, make_view(
        model=kimi, load_format="expert_pack", env={"SGLANG_EXPERT_PACK_PATH": "/p"}))
    assert isinstance(refused, Refuse) and refused.message.endswith(
        "Kimi-K3 needs manifest_path in the loader config")
    assert decide(expert_pack_checks, make_view(
        model=kimi, load_format="expert_pack", env={"SGLANG_EXPERT_PACK_PATH": "/p"},
        model_loader_extra_config='{"manifest_path": "/m"}')).fields["disable_cuda_graph"]
    assert decide(expert_pack_checks, make_view(model=v4, load_format="auto")) is None


def test_load_format_resolution():
    """An empty custom-loader list on every launch; a remote-instance load that cannot reach
    its seed falls back to auto."""
    from launchplan.rules.weight_loading import load_format_resolution
    from tests.rules.conftest import decide

    assert decide(load_format_resolution, make_view()).fields == {"custom_weight_loader": []}
    assert decide(load_format_resolution, make_view(custom_weight_loader=["m.f"])) is None
    seed = {"remote_instance_weight_loader_seed_instance_ip": "10.0.0.2",
            "remote_instance_weight_loader_seed_instance_service_port": 9000}
    for values in ({}, seed,  # nccl without its group ports
                   {**seed, "remote_instance_weight_loader_backend": "transfer_engine",
                    "enable_memory_saver": True}):
        out = decide(load_format_resolution, make_view(load_format="remote_instance", **values))
        assert out.fields["load_format"] == "auto", values
    for values in ({**seed, "remote_instance_weight_loader_send_weights_group_ports": [1, 2]},
                   {**seed, "remote_instance_weight_loader_backend": "transfer_engine"},
                   {"remote_instance_weight_loader_backend": "modelexpress"}):
        out = decide(load_format_resolution, make_view(load_format="remote_instance", **values))
        assert "load_format" not in out.fields, values
