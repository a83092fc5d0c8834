"""The HiCache host pool: its size default and its layout and I/O normalisation."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules.hicache import (
    hicache_normalization,
    hicache_normalization_0_5_21,
    hicache_normalization_0_5_22,
    hicache_ratio_default,
)
from tests.rules.conftest import MLA, decide, fake_model, make_view

HICACHE = {"enable_hierarchical_cache": True}


def _fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_host_ratio_defaults_by_host_mode_outside_pd_decode():
    assert hicache_ratio_default(make_view()) == {"hicache_ratio": 2.0}
    assert hicache_ratio_default(make_view(hicache_host_memory_mode="buffer_only")) == {
        "hicache_ratio": 1.2}
    assert hicache_ratio_default(make_view(disaggregation_mode="decode")) is None
    # a size the user gives turns the automatic host fraction off
    assert hicache_ratio_default(make_view(hicache_ratio=3.0)) == {
        "hicache_host_memory_fraction": None}
    assert hicache_ratio_default(make_view(hicache_size=10)) == {
        "hicache_ratio": 2.0, "hicache_host_memory_fraction": None}


def test_host_fraction_outside_zero_one_is_refused():
    for fraction in (0.0, 1.5, -1.0):
        out = hicache_ratio_default(make_view(hicache_host_memory_fraction=fraction))
        assert isinstance(out, Refuse)
    assert hicache_ratio_default(make_view(hicache_host_memory_fraction=1.0)) == {
        "hicache_ratio": 2.0}


def test_buffer_only_host_needs_storage_and_no_decode_role():
    out = hicache_normalization(make_view(**HICACHE, hicache_host_memory_mode="buffer_only"))
    assert isinstance(out, Refuse) and "storage" in out.message
    out = hicache_normalization(make_view(**HICACHE, hicache_host_memory_mode="buffer_only",
                                          hicache_storage_backend="file",
                                          hicache_write_policy="write_back"))
    assert _fields(out) == {"hicache_write_policy": "write_through"}
    out = hicache_normalization(make_view(**HICACHE, hicache_host_memory_mode="buffer_only",
                                          hicache_storage_backend="file",
                                          disaggregation_mode="decode"))
    assert isinstance(out, Refuse) and "decode" in out.message
    # 0.5.21 refused write_back instead of resolving it
    out = hicache_normalization_0_5_21(make_view(
        **HICACHE, hicache_host_memory_mode="buffer_only", hicache_storage_backend="file",
        hicache_write_policy="write_back"))
    assert isinstance(out, Refuse)


def test_layout_and_io_backend_are_made_compatible():
    out = hicache_normalization(make_view(**HICACHE, hicache_mem_layout="page_first_direct"))
    assert _fields(out) == {"hicache_io_backend": "direct"}
    out = hicache_normalization(make_view(**HICACHE, hicache_io_backend="direct"))
    assert _fields(out) == {"hicache_mem_layout": "page_first_direct"}
    out = hicache_normalization(make_view(**HICACHE, hicache_storage_backend="mooncake",
                                          hicache_mem_layout="layer_first"))
    assert _fields(out) == {"hicache_mem_layout": "page_first"}
    out = hicache_normalization(make_view(**HICACHE, hicache_storage_backend="npu_memcache",
                                          hicache_mem_layout="layer_first",
                                          hicache_io_backend="direct"))
    assert _fields(out) == {"hicache_mem_layout": "page_first_direct"}
    out = hicache_normalization(make_view(**HICACHE, hicache_io_backend="direct",
                                          enable_unified_memory=True))
    assert _fields(out) == {"hicache_mem_layout": "page_first", "hicache_io_backend": "kernel"}
    # 0.5.22 had no unified-memory step
    out = hicache_normalization_0_5_22(make_view(**HICACHE, hicache_io_backend="direct",
                                                 enable_unified_memory=True))
    assert _fields(out) == {"hicache_mem_layout": "page_first_direct"}
    assert hicache_normalization(make_view(**HICACHE)) is None


def test_decode_host_receive_needs_the_layer_first_pool():
    decode = {"disaggregation_mode": "decode", "disaggregation_decode_host_receive_threshold": 0.5}
    out = decide(hicache_normalization, make_view(**decode))
    assert _fields(out) == {"hicache_mem_layout": "layer_first"}
    out = hicache_normalization(make_view(**decode, **HICACHE, hicache_storage_backend="mooncake",
                                          hicache_mem_layout="layer_first"))
    assert isinstance(out, Refuse) and "layer_first" in out.message
    # without HiCache, offload or a decode role there is nothing to normalise
    assert decide(hicache_normalization, make_view(hicache_io_backend="direct")) is None


def test_hicache_with_dcp_needs_an_mla_model_and_no_other_speculation():
    dcp = {**HICACHE, "dcp_size": 2}
    assert hicache_normalization(make_view(model=fake_model(**MLA), **dcp)) is None
    out = hicache_normalization(make_view(**dcp))
    assert isinstance(out, Refuse) and "MLA" in out.message
    out = hicache_normalization(make_view(model=fake_model(**MLA), speculative_algorithm="EAGLE",
                                          **dcp))
    assert isinstance(out, Refuse) and "DSPARK" in out.message
    assert hicache_normalization(make_view(model=fake_model(**MLA),
                                           speculative_algorithm="DSPARK", **dcp)) is None
    # Mooncake storage under DCP keeps its layer_first layout; 0.5.22 refused any storage
    mooncake = {**dcp, "hicache_storage_backend": "mooncake", "hicache_mem_layout": "layer_first"}
    assert hicache_normalization(make_view(model=fake_model(**MLA), **mooncake)) is None
    out = hicache_normalization_0_5_22(make_view(model=fake_model(**MLA), **mooncake))
    assert isinstance(out, Refuse) and "storage" in out.message


def test_external_linker_checks():
    linker = {"enable_unified_cache_external_linker": True}
    for extra in ({"disable_radix_cache": True}, {"radix_cache_backend": "x"}, HICACHE,
                  {"hicache_storage_backend": "file"}):
        assert isinstance(hicache_normalization(make_view(**linker, **extra)), Refuse), extra
    assert hicache_normalization(make_view(**linker)) is None
    assert hicache_normalization(make_view(**linker, enable_linker_mla_dedup=True)) is None
    out = hicache_normalization(make_view(enable_linker_mla_dedup=True))
    assert isinstance(out, Refuse) and "Mooncake" in out.message
    out = hicache_normalization(make_view(**linker, unified_cache_external_linker_config=[1]))
    assert isinstance(out, Refuse) and "JSON object" in out.message
    dynamic = {**linker, "unified_cache_external_linker_backend": "dynamic"}
    for config, valid in (({"linker": "A"}, False), ({"linker": "A", "linker_module_path": "m"},
                                                     True),
                          ({"linker": "A", "linker_module_path": "m", "x": 1}, False),
                          ({"linker": "A", "linker_module_path": "m",
                            "linker_extra_config": 1}, False)):
        out = hicache_normalization(make_view(**dynamic,
                                              unified_cache_external_linker_config=config))
        assert (out is None) == valid, config
    # 0.5.22 did not check the linker's config nor its radix cache
    assert hicache_normalization_0_5_22(make_view(**linker, disable_radix_cache=True)) is None
