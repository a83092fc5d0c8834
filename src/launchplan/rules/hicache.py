"""The hierarchical KV cache's host pool: its size default, and its layout and I/O settings.

SGLang sizes the host pool early (``handle_hicache_ratio_default``, in the bootstrap steps),
and normalises the HiCache layout, I/O backend and host-memory mode once the attention
settings are known (``handle_hicache``, just before data parallelism). The external cache
linker, which replaces HiCache, is checked there too.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.struct import Struct

# the keys a dynamic linker's JSON config may hold (SGLang's UnifiedCacheLinkerConfig)
LINKER_KEYS = frozenset({"linker", "linker_module_path", "linker_extra_config"})
# storage backends that cannot read a layer_first host pool
PAGE_STORAGE = ("mooncake", "npu_memcache")


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("hicache_ratio", "hicache_size", "hicache_host_memory_fraction",
           "hicache_host_memory_mode", "disaggregation_mode"),
    writes=("hicache_ratio", "hicache_host_memory_fraction"),
    sglang="handle_hicache_ratio_default",
)
def hicache_ratio_default(v: View) -> dict | Refuse | None:
    """The host pool's size relative to the device pool defaults to 2 (1.2 for buffer-only).

    When: whenever its promises hold (every launch: SGLang sizes the pool whether or not
        HiCache is on).
    Effect: refuses a host memory fraction outside (0, 1]; outside PD decode an unset
        ``hicache_ratio`` becomes 1.2 with the buffer-only host mode, else 2.0; an explicit
        ratio or a positive ``hicache_size`` sets ``hicache_host_memory_fraction`` to None.
    Why: a buffer-only host stages pages on their way to storage and needs little room; a
        size the user gives is kept as given, so the automatic fraction is off. A decode
        server sizes its host pool later, from its retraction backup.
    Assumes: nothing.
    """
    fraction = v.hicache_host_memory_fraction
    if fraction is not None and not 0 < fraction <= 1:
        return Refuse(f"--hicache-host-memory-fraction must be in (0, 1]; got {fraction}")
    out: dict[str, Any] = {}
    if v.hicache_ratio is None and v.disaggregation_mode != "decode":
        out["hicache_ratio"] = 1.2 if v.hicache_host_memory_mode == "buffer_only" else 2.0
    if v.hicache_ratio is not None or v.hicache_size > 0:
        out["hicache_host_memory_fraction"] = None
    return out or None


class _Form(Struct):  # not a dataclass: importing dataclasses costs a cold start ~10 ms
    """What a release's ``handle_hicache`` does differently (the defaults are 0.5.23's)."""

    linker_config: bool = True  # the linker config's JSON and dynamic-backend checks
    linker_radix: bool = True  # the linker needs the built-in radix cache
    unified_memory: bool = True  # unified memory moves page_first_direct to page_first
    mooncake_dcp_keeps_layout: bool = True  # Mooncake storage under DCP keeps layer_first
    dcp_any_storage: bool = False  # with DCP, any storage backend (L3) is refused
    write_back_refused: bool = False  # buffer-only refuses write_back (else write_through)
    receive_below_one: bool = True  # host receive is on below 1 (0.5.21: above 0)


_HICACHE = dict(
    phase=Phase.MISC,
    reads=("enable_unified_cache_external_linker", "unified_cache_external_linker_backend",
           "unified_cache_external_linker_config", "enable_linker_mla_dedup",
           "disable_radix_cache", "radix_cache_backend", "enable_hierarchical_cache",
           "hicache_storage_backend", "disaggregation_decode_enable_offload_kvcache",
           "disaggregation_mode", "disaggregation_decode_retraction_backup",
           "hicache_host_memory_mode", "hicache_write_policy",
           "disaggregation_decode_host_receive_threshold", "hicache_mem_layout",
           "hicache_io_backend", "enable_unified_memory", "dcp_size", "speculative_algorithm",
           "enable_lmcache", "enable_hisparse"),
    writes=("hicache_write_policy", "hicache_mem_layout", "hicache_io_backend"),
    facts=("model.is_mla",),
    triggers=("enable_hierarchical_cache", "disaggregation_decode_enable_offload_kvcache",
              "disaggregation_mode", "enable_unified_cache_external_linker",
              "enable_linker_mla_dedup", "unified_cache_external_linker_config"),
)


@rule(**_HICACHE,
      sglang=("handle_hicache (validate_hicache_host_memory_mode, "
              "resolve_layout_io_compatibility, resolve_storage_layout_compatibility, "
              "resolve_unified_memory_layout_io, resolve_hicache_dcp_compatibility)"))
def hicache_normalization(v: View) -> Declare | dict | Refuse | None:
    """The external cache linker's checks, then HiCache's host mode, layout and I/O backend.

    When: HiCache, decode KV offload, a PD decode server with the host-pool (or no)
        retraction backup, or the external linker (its switch, MLA dedup or its config).
    Effect: refuses a linker config that is not a JSON object (or, for the dynamic backend,
        not a valid one); MLA dedup without the Mooncake linker; the linker with the radix
        cache off or replaced, with HiCache or with a storage backend. Then, with HiCache
        active: buffer-only hosts need a storage backend and no PD decode role (write_back
        becomes write_through); a decode host-receive threshold below 1 forces layer_first;
        page_first_direct takes the direct I/O backend, page_first under direct I/O becomes
        page_first_direct; Mooncake/NPU MemCache storage turns layer_first into a page-first
        layout (not with DCP on Mooncake); unified memory turns page_first_direct into
        page_first with kernel I/O; refuses a final layout other than layer_first under the
        host-receive threshold; with DCP, refuses buffer-only L3, speculation other than
        DSPARK, LMCache, HiSparse and non-MLA models.
    Why: the host pool's layout has to match what its copy kernels, its storage backend and
        the decode transfer buffers can address (``handle_hicache``).
    Assumes: the dynamic linker's class and module load where SGLang serves.
    """
    return _normalize(v, _Form())


@rule(**_HICACHE, name="hicache_normalization", variant="0.5.22",
      sglang="handle_hicache (0.5.22)")
def hicache_normalization_0_5_22(v: View) -> Declare | dict | Refuse | None:
    """0.5.22's HiCache normalisation: no linker config or radix checks, L3 refused under DCP.

    When: as ``hicache_normalization``.
    Effect: as ``hicache_normalization``, without the linker config's checks, the linker's
        radix-cache check or the unified-memory layout step; Mooncake storage under DCP has
        its layer_first layout rewritten too, and DCP refuses any storage backend.
    Why: 0.5.23 added those checks and taught HiCache's DCP path Mooncake storage
        (``handle_hicache`` of each release).
    Assumes: nothing.
    """
    return _normalize(v, _Form(linker_config=False, linker_radix=False, unified_memory=False,
                               mooncake_dcp_keeps_layout=False, dcp_any_storage=True))


@rule(**_HICACHE, name="hicache_normalization", variant="0.5.21",
      sglang="handle_hicache (0.5.21)")
def hicache_normalization_0_5_21(v: View) -> Declare | dict | Refuse | None:
    """0.5.21's HiCache normalisation: 0.5.22's, host receive above 0, write_back refused.

    When: as ``hicache_normalization``.
    Effect: as ``hicache_normalization_0_5_22``, except that a host-receive threshold above 0
        forces layer_first, and a buffer-only host with write_back is refused.
    Why: 0.5.22 turned the receive threshold around and resolved write_back to write_through
        (``handle_hicache`` of each release).
    Assumes: nothing.
    """
    return _normalize(v, _Form(linker_config=False, linker_radix=False, unified_memory=False,
                               mooncake_dcp_keeps_layout=False, dcp_any_storage=True,
                               write_back_refused=True, receive_below_one=False))


def _normalize(v: View, form: _Form) -> Declare | dict | Refuse | None:
    refusal = _linker_refusal(v, form)
    if refusal is not None or v.enable_unified_cache_external_linker:
        return refusal
    decode = v.disaggregation_mode == "decode"
    if not (v.enable_hierarchical_cache or v.disaggregation_decode_enable_offload_kvcache
            or (decode and v.disaggregation_decode_retraction_backup in (None, "host_pool"))):
        return None
    out: dict[str, Any] = {}
    notes = []
    if v.hicache_host_memory_mode == "buffer_only":
        if v.hicache_storage_backend is None:
            return Refuse("--hicache-host-memory-mode buffer_only needs "
                          "--hicache-storage-backend (the host only stages pages for storage)")
        if v.hicache_write_policy == "write_back":
            if form.write_back_refused:
                return Refuse("--hicache-host-memory-mode buffer_only does not take "
                              "--hicache-write-policy write_back")
            out["hicache_write_policy"] = "write_through"
            notes.append("a buffer-only host has nothing to write back: write_through")
        if decode:
            return Refuse("--hicache-host-memory-mode buffer_only is not supported on a PD "
                          "decode server")
    threshold = v.disaggregation_decode_host_receive_threshold
    receive = threshold < 1 if form.receive_below_one else threshold > 0
    # each step declares what it sets, as SGLang does (also a value already in place)
    layout, io = v.hicache_mem_layout, v.hicache_io_backend
    if receive:
        layout = out["hicache_mem_layout"] = "layer_first"
    if layout == "page_first_direct" and io == "kernel":
        io = out["hicache_io_backend"] = "direct"
        notes.append("the kernel I/O backend cannot copy page_first_direct: direct I/O")
    if layout == "page_first" and io == "direct":
        layout = out["hicache_mem_layout"] = "page_first_direct"
        notes.append("direct I/O cannot copy page_first: page_first_direct")
    kept = (form.mooncake_dcp_keeps_layout and v.hicache_storage_backend == "mooncake"
            and v.dcp_size > 1)
    if v.hicache_storage_backend in PAGE_STORAGE and layout == "layer_first" and not kept:
        layout = {"direct": "page_first_direct", "kernel": "page_first"}.get(io, layout)
        out["hicache_mem_layout"] = layout
        notes.append(f"{v.hicache_storage_backend} storage cannot read layer_first: {layout}")
    if form.unified_memory and v.enable_unified_memory and layout == "page_first_direct":
        layout = out["hicache_mem_layout"] = "page_first"
        io = out["hicache_io_backend"] = "kernel"
        notes.append("unified memory's strided KV rows need page_first with kernel I/O")
    if receive and layout != "layer_first":
        return Refuse(f"the HiCache layout {layout!r} cannot share the layer_first decode "
                      "host pool that host-side KV receive uses")
    if v.dcp_size > 1 and v.enable_hierarchical_cache:
        refusal = _dcp_refusal(v, form)
        if refusal is not None:
            return refusal
    if not out:
        return None
    return Declare(out, "; ".join(notes)) if notes else out


def _linker_refusal(v: Any, form: _Form) -> Refuse | None:
    config = v.unified_cache_external_linker_config
    if form.linker_config and config is not None and not isinstance(config, dict):
        return Refuse("--unified-cache-external-linker-config must be a JSON object")
    if form.linker_config and v.unified_cache_external_linker_backend == "dynamic" and (
            v.enable_unified_cache_external_linker or config is not None):
        problem = _dynamic_linker_problem(config)
        if problem:
            return Refuse(f"--unified-cache-external-linker-config: {problem}")
    if v.enable_linker_mla_dedup and not (
            v.enable_unified_cache_external_linker
            and v.unified_cache_external_linker_backend == "mooncake"):
        return Refuse("--enable-linker-mla-dedup needs the external linker on Mooncake")
    if not v.enable_unified_cache_external_linker:
        return None
    for failed, what in (
        (form.linker_radix and (v.disable_radix_cache or v.radix_cache_backend is not None),
         "needs the built-in radix cache, enabled"),
        (v.enable_hierarchical_cache, "excludes --enable-hierarchical-cache"),
        (v.hicache_storage_backend is not None, "does not take --hicache-storage-backend"),
    ):
        if failed:
            return Refuse(f"--enable-unified-cache-external-linker {what}")
    return None


def _dynamic_linker_problem(config: Any) -> str | None:
    """What a dynamic linker's config lacks (None when it is valid)."""
    if not isinstance(config, dict):
        return "the dynamic backend needs a JSON object"
    unknown = sorted(set(config) - LINKER_KEYS)
    if unknown:
        return f"unknown keys {unknown}"
    for key in ("linker", "linker_module_path"):
        entry = config.get(key)
        if not isinstance(entry, str) or not entry.strip():
            return f"{key} must be a non-empty string"
    if not isinstance(config.get("linker_extra_config", {}), dict):
        return "linker_extra_config must be a JSON object"
    return None


def _dcp_refusal(v: Any, form: _Form) -> Refuse | None:
    for failed, what in (
        (v.hicache_storage_backend is not None
         and (form.dcp_any_storage or v.hicache_host_memory_mode == "buffer_only"),
         "storage (L3)" if form.dcp_any_storage else "a buffer-only host with storage (L3)"),
        (v.speculative_algorithm not in (None, "DSPARK"), "speculative decoding other than "
                                                          "DSPARK"),
        (v.enable_lmcache, "--enable-lmcache"),
        (v.enable_hisparse, "--enable-hisparse"),
        (not v.model.is_mla, "a non-MLA model (only the MLA host pool translates DCP indices)"),
    ):
        if failed:
            return Refuse(f"HiCache with --dcp-size > 1 does not support {what}")
    return None
