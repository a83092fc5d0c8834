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


def test_an_expert_pack_on_this_machine_has_its_manifest_and_source_checked(tmp_path):
    """A DeepSeek-V4 pack without manifest_path keeps its manifest beside the pack
    (``PACK.manifest.json``), as SGLang reads it; a pack here without it, or a named source
    GGUF missing, is refused. A pack that is not here is taken to exist where SGLang starts
    (noted), unless the plan is for this machine (``--gpu auto``)."""
    import json

    from launchplan.engine.declarations import Refuse
    from launchplan.facts.targets import get_target
    from launchplan.rules.weight_loading import expert_pack_checks
    from tests.rules.conftest import decide, fake_model

    v4 = fake_model(model_type="deepseek_v4", config={})
    pack, source = tmp_path / "pack.bin", tmp_path / "src.gguf"
    pack.write_bytes(b"x")
    source.write_bytes(b"x")
    loader = {"pack_path": str(pack), "source_path": str(source), "source_sha256": "a",
              "model_identity_sha256": "b", "config_sha256": "c"}

    def checked(target="h100", **changes):
        return decide(expert_pack_checks, make_view(
            target, model=v4, load_format="expert_pack",
            model_loader_extra_config=json.dumps({**loader, **changes})))

    refused = checked()
    assert isinstance(refused, Refuse) and "pack.bin.manifest.json does not exist" in \
        refused.message
    (tmp_path / "pack.bin.manifest.json").write_text("{}")
    assert checked().fields["disable_cuda_graph"]
    refused = checked(source_path=str(tmp_path / "gone.gguf"))
    assert isinstance(refused, Refuse) and "gone.gguf does not exist" in refused.message
    refused = checked(manifest_path=str(tmp_path / "m.json"))
    assert isinstance(refused, Refuse) and "m.json does not exist" in refused.message
    away = checked(pack_path="/nonexistent/pack.bin")
    assert away.fields["disable_cuda_graph"] and "not on this machine" in away.note
    here = get_target("h100").replace(name="auto")
    refused = checked(here, pack_path="/nonexistent/pack.bin")
    assert isinstance(refused, Refuse) and "/nonexistent/pack.bin does not exist" in \
        refused.message
