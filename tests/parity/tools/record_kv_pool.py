#!/usr/bin/env python3
"""Record SGLang's own KV-pool sizing for launchplan's KV-pool parity suite.

    # write tests/parity/data/kv-pool-cases.json from the bundled and parity models
    python tests/parity/tools/record_kv_pool.py --generate
    # run SGLang's configurator on every case (the oracle venv's python)
    /root/sglang-oracle/bin/python tests/parity/tools/record_kv_pool.py \\
        tests/parity/data/kv-pool-cases.json --out tests/parity/data/results-kv-pool.jsonl

The same script runs under an older release's venv (``/root/sglang-oracle-0.5.22``,
``-0.5.21``: the functions it calls have the same names in all three); ``test_kv_pool.py``
replays those recordings of the bundled-model cases, kept compact, under ``--compat``.

A case is an oracle case (``name``, ``platform``, ``model``, ``argv``; optional ``env`` and
``platform_overrides``) plus the memory a GPU shows: ``before_load_bytes`` (free before
the weights are loaded) and ``weights_bytes`` (what the loaded weights take). The model is
a bundled model name (``src/launchplan/facts/data/models/<name>``), so models added there
are picked up by ``--generate`` and recorded without touching the oracle; a shipped Hub
config (``shipped/<ORG--NAME>``, under ``src/launchplan/facts/data/hub/``); or a test
config's path from the repository root.

How it runs. The oracle's own machinery (``/work/shared/oracle/sglang_oracle.py``,
imported as a module: device fakes, stubs for GPU-only packages, platform facts) sets up
one worker per platform; each case runs in a forked child that resolves the launch with
SGLang's ``ServerArgs``, publishes it as a scheduler process would, builds SGLang's
``ModelConfig``, layer info, speculative aux config and KV dtype the way ``ModelRunner``
does (with a stand-in for the loaded model: nothing here needs its tensors), and then runs
SGLang's ``KVCacheConfigurator._resolve_memory_pool_config`` with the faked device memory
reporting ``before_load_bytes`` before and ``before_load_bytes - weights_bytes`` after
loading. The answer is SGLang's: bytes per token (the pool configurator's cell size), the
byte budget, ``max_total_num_tokens``, the SWA split, ``max_running_requests`` and the
decode CUDA-graph batch sizes that survive it (``get_batch_sizes_to_capture``).

Under ``--pp-size`` > 1 every pipeline rank is sized in its own child, its stand-in model
holding that rank's stage (``get_pp_indices``), and the row is the binding rank's: the one
whose own token capacity is the smallest, which SGLang's MIN all-reduce over the stages
gives every rank (``pp_rank`` and its ``pp_local_tokens`` say which). The free-memory
figures are one GPU's: ``weights_bytes`` stands for the most loaded rank's weights, which
the free-memory MIN all-reduce makes every rank's.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import select
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUNDLED = os.path.join(ROOT, "src", "launchplan", "facts", "data", "models")
SHIPPED, SHIPPED_PREFIX = os.path.join(os.path.dirname(BUNDLED), "hub"), "shipped/"
ORACLE = os.environ.get("SGLANG_ORACLE", "/work/shared/oracle/sglang_oracle.py")
CASES = os.path.join(DATA, "kv-pool-cases.json")
RESULTS = os.path.join(DATA, "results-kv-pool.jsonl")
GIB = 1 << 30
MIB = 1 << 20
# Packages a GPU install has that the sizing path imports (through the CUDA-graph and MoE
# modules) beyond what resolution needs: stubbed like the oracle's own list, only for
# importers inside sglang and only when really missing.
EXTRA_STUBS = {"einops", "partial_json_parser"}
# Imported by model modules (through the scheduler's parsers) for the OpenAI API types only;
# its pydantic classes cannot be built over stubbed ``openai`` types, so the whole module is
# a permissive stand-in. The model classes are needed for their sliding-window hook.
STUB_MODULES = ("sglang.srt.entrypoints.openai.protocol",)


# The config attributes by which SGLang's scheduler tells a MoE model (its per-token expert
# count), 0.5.21-0.5.23.
_TOP_K_NAMES = ("num_experts_per_tok", "num_experts_per_token", "top_k_experts", "moe_top_k",
                "moe_topk")

def _oracle():
    spec = importlib.util.spec_from_file_location("sglang_oracle", ORACLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["sglang_oracle"] = module
    spec.loader.exec_module(module)
    return module


def _model_path(name: str) -> str:
    """A bundled model's name, ``shipped/<ORG--NAME>`` (a Hub config launchplan ships), or a
    test fixture's path from the repository root."""
    if os.path.isabs(name):
        return name
    if name.startswith(SHIPPED_PREFIX):
        return os.path.join(SHIPPED, name[len(SHIPPED_PREFIX):])
    return os.path.join(ROOT, name) if "/" in name else os.path.join(BUNDLED, name)


# ---------------------------- one case (in the forked child) ------------------------------
class _FakeModel:
    """Stands in for the loaded model: the few attributes the sizing code asks of it.

    A multimodal wrapper (Gemma-3's) answers the sliding-window question by asking its
    ``language_model``: that is a stand-in too, of the class the wrapper builds it from
    (read from the wrapper's source), over the text config."""

    def __init__(self, cls, hf_config, pp_size: int = 1, pp_rank: int = 0):
        self.config = hf_config
        self._cls = cls
        self._pp_size = pp_size
        self._pp_rank = pp_rank
        self.quant_config = None

    def __getattr__(self, name):
        if name == "get_attention_sliding_window_size" and self._cls is not None \
                and hasattr(self._cls, name):
            return types.MethodType(getattr(self._cls, name), self)
        if name in ("start_layer", "end_layer") and self._cls is not None \
                and _defines_layer_range(self._cls):
            # resolve_layer_indices reads the built model's range when the class has one
            # (Nanbeige's properties) and otherwise takes the config's, which loop models
            # have already looped (IQuest LoopCoder): answer as the real class would
            start, end = _stage_range(self.config, self._pp_size, self._pp_rank)
            return start if name == "start_layer" else end
        if name == "language_model" and self._cls is not None:
            inner = _inner_class(self._cls, name)
            if inner is not None:
                text = getattr(self.config, "text_config", None) or self.config
                self.__dict__[name] = _FakeModel(_model_class([inner]), text, self._pp_size,
                                                     self._pp_rank)
                return self.__dict__[name]
        raise AttributeError(name)


def _defines_layer_range(cls) -> bool:
    """Whether instances of ``cls`` have ``start_layer``/``end_layer``: a class attribute or
    property (Nanbeige's), or one its own constructor (or a base's) assigns. Most top-level
    classes leave them to their inner model (IQuest LoopCoder's ``IQuestLoopCoderModel``)."""
    import inspect

    if hasattr(cls, "start_layer") and hasattr(cls, "end_layer"):
        return True
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            source = inspect.getsource(init)
        except (OSError, TypeError):
            continue
        if "self.start_layer" in source and "self.end_layer" in source:
            return True
    return False


def _stage_range(hf_config, pp_size: int, pp_rank: int = 0) -> tuple[int, int]:
    """The stored layers pipeline rank ``pp_rank`` builds: SGLang's own split of the text
    config's ``num_hidden_layers`` (``SGLANG_PP_LAYER_PARTITION`` included)."""
    from sglang.srt.distributed.utils import get_pp_indices

    text = getattr(hf_config, "text_config", None) or hf_config
    return get_pp_indices(int(text.num_hidden_layers), pp_rank, pp_size)


def _inner_class(cls, attribute: str) -> str | None:
    """The class name a model class assigns to ``self.<attribute>`` in its constructor."""
    import inspect
    import re

    try:
        source = inspect.getsource(cls.__init__)
    except (OSError, TypeError):
        return None
    m = re.search(rf"self\.{attribute}\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\(", source)
    return m.group(1) if m else None


def _quant_config(mc):
    """The quantization config the loaded model would carry (SGLang's own
    ``get_quant_config``, as ``ModelRunner`` loads it): ``configure_kv_cache_dtype`` reads
    its ``kv_cache_quant_algo`` under ``--kv-cache-dtype auto`` (a ModelOpt or
    compressed-tensors checkpoint that declares an FP8 KV cache gets an FP8 pool). None
    for an unquantized model, with the error when SGLang's config cannot be built here."""
    if not mc.quantization:
        return None, None
    try:
        from sglang.srt.configs.load_config import LoadConfig
        from sglang.srt.model_loader.weight_utils import get_quant_config

        return get_quant_config(mc, LoadConfig(), {}), None
    except BaseException as e:  # noqa: BLE001 - noted with the answer, never a crash
        return None, f"{type(e).__name__}: {e}"[:300]


def _model_class(architectures):
    """SGLang's model class for the first architecture, imported from the module that
    defines it (the registry's import-everything sweep drops modules that fail under the
    stubs; one model module alone imports)."""
    import sglang.srt.models as models

    arch = architectures[0]
    if arch in _MODEL_CLASSES:
        return _MODEL_CLASSES[arch]
    folder = list(models.__path__)[0]
    for file in sorted(os.listdir(folder)):
        if not file.endswith(".py"):
            continue
        with open(os.path.join(folder, file)) as f:
            if f"class {arch}(" not in f.read():
                continue
        try:
            module = importlib.import_module(f"sglang.srt.models.{file[:-3]}")
            _MODEL_CLASSES[arch] = getattr(module, arch)
            return _MODEL_CLASSES[arch]
        except Exception as e:  # noqa: BLE001 - without its class, no window hook
            _MODEL_CLASS_ERRORS.append(f"{file}: {type(e).__name__}: {e}")
    return None


_MODEL_CLASS_ERRORS: list = []
#: architecture -> its class, once imported (the worker fills it before forking)
_MODEL_CLASSES: dict = {}


def run_kv_case(case: dict, facts: dict, oracle, pp_rank: int = 0) -> dict:
    """One case as pipeline rank ``pp_rank`` sizes it (its own stage's layers). The token
    capacity SGLang then agrees on across the stages (a MIN all-reduce) is the driver's to
    take (``_pp_binding``): the rank's own capacity is noted as ``pp_local_tokens``."""
    import torch
    import torch.distributed
    from sglang.srt.runtime_context import (
        SpawnRanks,
        get_exec,
        get_model,
        get_parallel,
        get_schedule,
        get_spec,
        override_platform,
        publish,
    )
    from sglang.srt.server_args import ServerArgs

    before = int(case["before_load_bytes"])
    after = before - int(case["weights_bytes"])
    free = {"bytes": before}
    torch.cuda.mem_get_info = lambda device=None: (free["bytes"], free["bytes"])
    # One process stands for every rank of its stage: the free-memory MIN all-reduce of
    # equal values is identity, but SGLang still passes the figure through its float32
    # tensor. The int64 one is the pipeline stages' token capacity: noted, left as it is.
    synced: list = []

    def all_reduce(tensor, *a, **k):
        if tensor.dtype == torch.int64:
            synced.append(int(tensor.item()))

    torch.distributed.all_reduce = all_reduce
    for k, v in (case.get("env") or {}).items():
        os.environ[k] = str(v)
    _tensors_on_cpu(torch)

    class _Parser(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(f"argparse: {message}")

    parser = _Parser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    argv = ["--model-path", _model_path(case["model"])]
    for i, a in enumerate(case.get("argv", [])):
        prev = case["argv"][i - 1] if i else None
        argv.append(_model_path(a) if prev == "--speculative-draft-model-path" else str(a))

    out = dict(name=case["name"], ok=False, stage="resolve", result={}, error=None)
    with override_platform(**facts):
        try:
            sa = ServerArgs.from_cli_args(parser.parse_args(argv))
            sa.resolve_once()
        except BaseException as e:  # noqa: BLE001 - SGLang refusing the launch is an answer
            out["error"] = f"{type(e).__name__}: {e}"
            return out
        out["stage"] = "setup"
        out["resolved"] = {f: oracle._jsonable(oracle._read(sa, f)) for f in (
            "page_size", "kv_cache_dtype", "mem_fraction_static", "tp_size", "dp_size",
            "max_running_requests", "max_total_tokens", "speculative_algorithm",
            "speculative_num_draft_tokens", "cuda_graph_config.decode.bs")}
        publish(sa, role="scheduler", ranks=SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
        par = get_parallel()
        out["pp_size"] = par.pp_size
        # DeepSeek-V4's pool configurator slices its layers by this rank under PP
        group = types.SimpleNamespace(cpu_group=None, world_size=par.pp_size,
                                      rank_in_group=pp_rank)
        par.override_permanently(world_group=types.SimpleNamespace(
            cpu_group=None, world_size=par.tp_size * par.pp_size))
        from sglang.srt.configs.model_config import AttentionArch, ModelConfig
        from sglang.srt.mem_cache import kv_cache_dtype as kvd
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
        from sglang.srt.model_executor.model_runner_components.layer_setup import (
            resolve_layer_indices,
        )
        from sglang.srt.model_executor.model_runner_components.load_model_utils import (
            resolve_sliding_window_size,
        )
        from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
            resolve_spec_aux_hidden_state_config,
        )
        from sglang.srt.model_executor.pool_configurator import (
            create_memory_pool_configurator,
        )
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
        from sglang.srt.utils.common import get_available_gpu_memory

        world = par.tp_size * par.pp_size
        pre = get_available_gpu_memory("cuda", 0, distributed=world > 1, cpu_group=None)
        free["bytes"] = after
        try:
            mc = ModelConfig.from_server_args(sa)
        except BaseException as e:  # noqa: BLE001 - the scheduler refusing the model is an answer
            out["stage"], out["error"] = "model", f"{type(e).__name__}: {e}"
            return out
        # The scheduler seeds the MoE runtime flags (the all-to-all backend the capture
        # sizes' alignment reads) for a model with a per-token expert count, before any
        # runner exists; without it every model would look like one without all-to-all.
        if any(hasattr(mc.hf_text_config, name) for name in _TOP_K_NAMES):
            from sglang.srt.layers.moe.utils import initialize_moe_config

            initialize_moe_config()
        model = _FakeModel(_model_class(mc.hf_config.architectures), mc.hf_config,
                           par.pp_size, pp_rank)
        model.quant_config, quant_error = _quant_config(mc)
        spec_algorithm = SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm)
        layer_info = resolve_layer_indices(model=model, model_config=mc,
                                           is_draft_worker=False)
        try:  # the draft's config is read here: a draft the scheduler refuses is an answer
            aux = resolve_spec_aux_hidden_state_config(
                server_args=sa, model_config=mc, spec_algorithm=spec_algorithm,
                is_draft_worker=False)
        except (ValueError, AssertionError) as e:
            out["stage"], out["error"] = "model", f"{type(e).__name__}: {e}"
            return out
        resolved_str, kv_dtype = kvd.configure_kv_cache_dtype(
            server_args_kv_cache_dtype=get_model().kv_cache_dtype, model=model,
            model_dtype=mc.dtype, is_draft_worker=False, is_dflash=False,
            speculative_draft_attention_backend=None,
            speculative_draft_kv_cache_dtype=get_spec().speculative_draft_kv_cache_dtype)
        kvc = KVCacheConfigurator(
            device="cuda", gpu_id=0, attn_dp_size=par.attn_dp_size, pp_size=par.pp_size,
            pp_group=group, model=model, model_config=mc, server_args=sa,
            kv_cache_dtype=kv_dtype,
            kv_cache_dtype_str=resolved_str if resolved_str is not None
            else get_model().kv_cache_dtype,
            model_dtype=mc.dtype, page_size=get_schedule().page_size,
            sliding_window_size=resolve_sliding_window_size(model, mc),
            spec_algorithm=spec_algorithm, is_draft_worker=False,
            post_capture_kv_active=False, spec_aux_config=aux,
            is_hybrid_swa=mc.is_hybrid_swa, is_hybrid_swa_compress=mc.is_hybrid_swa_compress,
            use_mla_backend=mc.attention_arch == AttentionArch.MLA, layer_info=layer_info,
            forward_stream=None, req_to_token_pool=None, token_to_kv_pool_allocator=None,
            memory_pool_config=None)
        out["stage"] = "sizing"
        partial = out["result"]
        try:
            configurator = create_memory_pool_configurator(kvc)
            partial["kv_bytes_per_token"] = _cell(configurator)
            # Profiling has side effects (it settles max_mamba_cache_size), so it runs once,
            # inside SGLang's own sequence; the budget it returns is noted on the way out.
            profile = KVCacheConfigurator._profile_available_bytes

            def noted(self, pre_model_load_memory):
                partial["kv_budget_bytes"] = profile(self, pre_model_load_memory)
                return partial["kv_budget_bytes"]

            KVCacheConfigurator._profile_available_bytes = noted
            config = kvc._resolve_memory_pool_config(pre)
        except BaseException as e:  # noqa: BLE001 - SGLang refusing to start is an answer
            import traceback
            out["error"] = f"{type(e).__name__}: {e}"
            out["where"] = traceback.format_exc()[-1500:]
            return out
        budget = partial["kv_budget_bytes"]
        mrr = config.max_running_requests
        get_batch_sizes_to_capture = _capture_sizes_function()
        runner = types.SimpleNamespace(req_to_token_pool=types.SimpleNamespace(size=mrr),
                                       server_args=sa)
        try:
            capture_bs = get_batch_sizes_to_capture(runner, 1)[0] \
                if get_exec().graph.cuda_graph_config.decode.bs else []
        except BaseException as e:  # noqa: BLE001
            capture_bs = f"<{type(e).__name__}: {e}>"
        out["ok"], out["stage"] = True, "done"
        out["result"] = dict(
            configurator=type(configurator).__name__,
            kv_dtype=str(kv_dtype).replace("torch.", ""),
            kv_cache_quant_algo=getattr(model.quant_config, "kv_cache_quant_algo", None),
            **({"quant_config_error": quant_error} if quant_error else {}),
            kv_bytes_per_token=_cell(configurator),
            pre_model_load_gib=pre,
            kv_budget_bytes=budget,
            max_total_num_tokens=config.max_total_num_tokens,
            full_max_total_num_tokens=config.full_max_total_num_tokens,
            swa_max_total_num_tokens=config.swa_max_total_num_tokens,
            max_running_requests=mrr,
            max_mamba_cache_size=get_schedule().max_mamba_cache_size,
            mamba_state_bytes_per_slot=(
                kvc.mambaish_config.mamba2_cache_params.mamba_cache_per_req
                if kvc.mambaish_config is not None else None),
            sliding_window_size=kvc.sliding_window_size,
            eagle_draft_num_layers=aux.eagle_draft_num_layers,
            capture_bs=capture_bs,
            model_class_errors=_MODEL_CLASS_ERRORS,
            **_compressed(config),
        )
        if par.pp_size > 1:
            out["result"].update(pp_rank=pp_rank,
                                 pp_local_tokens=synced[0] if synced else None)
    return out


def _tensors_on_cpu(torch) -> None:
    """Some sizing objects (FP4 KV recipes) allocate small scale tensors on the device;
    there is none here, so factory calls asking for CUDA get CPU tensors (same sizes)."""
    def on_cpu(factory):
        def make(*args, **kwargs):
            if "cuda" in str(kwargs.get("device", "")):
                kwargs["device"] = "cpu"
            return factory(*args, **kwargs)
        return make

    for name in ("ones", "zeros", "empty", "full", "tensor", "arange"):
        setattr(torch, name, on_cpu(getattr(torch, name)))


def _capture_sizes_function():
    """SGLang's ``get_batch_sizes_to_capture``. Its package and base class pull in the whole
    scheduler; should that fail to import here, only the function is needed, so the package
    is entered without its ``__init__`` and the base class module is a bare stand-in."""
    package = "sglang.srt.model_executor.runner"
    try:
        module = importlib.import_module(package + ".base_cuda_graph_runner")
        return module.get_batch_sizes_to_capture
    except ImportError:
        for name in [n for n in sys.modules if n.startswith(package)]:
            del sys.modules[name]
    if package not in sys.modules:
        import sglang.srt.model_executor as executor
        module = types.ModuleType(package)
        module.__path__ = [os.path.join(list(executor.__path__)[0], "runner")]
        sys.modules[package] = module
    sys.modules.setdefault(package + ".base_runner", types.SimpleNamespace(BaseRunner=object))
    module = importlib.import_module(package + ".base_cuda_graph_runner")
    return module.get_batch_sizes_to_capture


def _cell(configurator) -> int | float | None:
    """The configurator's bytes per ``max_total_num_tokens`` token: its cell size, or, for
    DeepSeek-V4's compressed pools (which keep none), its bytes per full token."""
    cell = getattr(configurator, "_cell_size", None)
    if cell is None:
        cell = getattr(configurator, "bytes_per_full_token", None)
    return cell if cell is None or isinstance(cell, int) else float(cell)


def _compressed(config) -> dict:
    """DeepSeek-V4's compressed-pool token counts and compress-state slots (none for
    other pools: their config leaves them at 0)."""
    names = ("c4_max_total_num_tokens", "c128_max_total_num_tokens", "c4_state_pool_size",
             "c128_state_pool_size")
    if not any(getattr(config, n, 0) for n in names):
        return {}
    return {n: getattr(config, n) for n in names}


# ---------------------------- worker and driver ------------------------------------------
def worker(platform: str, cases: list, timeout: float) -> None:
    oracle = _oracle()
    p = dict(oracle.PLATFORMS[platform], **(cases[0].get("platform_overrides") or {}))
    for k in [k for k in os.environ if k.startswith(("SGLANG_", "SGL_"))]:
        del os.environ[k]
    oracle._STUB_ACTIVE.update(oracle.STUB_ROOTS["common"] | oracle.STUB_ROOTS[p["vendor"]]
                               | EXTRA_STUBS)
    sys.meta_path.append(oracle._StubFinder())
    oracle.install_device_fakes(p)
    import sglang.srt.server_args  # noqa: F401
    oracle.install_sglang_probe_patches(p)
    for name in STUB_MODULES:
        sys.modules.setdefault(name, oracle._StubModule(name))
    import sglang.srt.arg_groups.pipeline  # noqa: F401
    import sglang.srt.mem_cache.kv_cache_configurator  # noqa: F401

    # Import what every case needs once, so the forked children share it.
    import sglang.srt.model_executor.model_runner_components.layer_setup  # noqa: F401
    import sglang.srt.model_executor.model_runner_components.load_model_utils  # noqa: F401
    import sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state  # noqa
    import sglang.srt.model_executor.pool_configurator  # noqa: F401
    _capture_sizes_function()
    _preload_model_classes(cases)
    from sglang.srt.runtime_context import get_platform
    facts = oracle.platform_facts(p)
    facts = {k: v for k, v in facts.items() if hasattr(get_platform(), k)}
    emit = sys.__stdout__
    for case in cases:
        res = _forked(case, facts, oracle, timeout, 0)
        pp = int(res.pop("pp_size", 1) or 1)
        if pp > 1 and res["ok"]:
            ranks = [res] + [_forked(case, facts, oracle, timeout, rank)
                             for rank in range(1, pp)]
            for row in ranks:
                row.pop("pp_size", None)
            res = _pp_binding(ranks)
        emit.write(json.dumps(res, default=repr) + "\n")
        emit.flush()


def _forked(case: dict, facts: dict, oracle, timeout: float, pp_rank: int) -> dict:
    """``run_kv_case`` for one pipeline rank, in a forked child (SGLang's globals stay the
    worker's)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            res = run_kv_case(case, facts, oracle, pp_rank)
        except BaseException as e:  # noqa: BLE001
            import traceback
            res = dict(name=case.get("name"), ok=False, stage="harness", result={},
                       error=f"harness: {type(e).__name__}: {e}",
                       where=traceback.format_exc()[-1500:])
        with os.fdopen(w, "w") as fw:
            fw.write(json.dumps(res, default=repr) + "\n")
        os._exit(0)
    os.close(w)
    deadline, data = time.time() + timeout, b""
    while time.time() < deadline:
        if select.select([r], [], [], 0.5)[0]:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            data += chunk
    else:
        os.kill(pid, 9)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        return json.loads(data.decode())
    except ValueError:
        return dict(name=case.get("name"), ok=False, stage="harness", result={},
                    error="harness: case process died")


def _pp_binding(ranks: list) -> dict:
    """The launch's answer from every pipeline rank's: a rank that fails fails the launch;
    otherwise SGLang's scheduler takes the smallest stage capacity (its MIN all-reduce over
    the stages in ``_apply_token_constraints``), so the rank holding it (the first such) is
    the one whose figures are the launch's: its own bytes per token and budget, and the
    token count, requests and capture sizes every rank then shares."""
    for row in ranks:
        if not row["ok"]:
            return row
    local = [row["result"].get("pp_local_tokens") for row in ranks]
    if None in local:
        return ranks[0]
    return ranks[local.index(min(local))]


def _preload_model_classes(cases: list) -> None:
    """Import each case model's class once in the worker, so that the forked children
    find its module loaded (importing a model module is most of a case's time). A class
    that fails to import here is tried again, and its error noted, in the child."""
    seen: set = set()
    for case in cases:
        path = os.path.join(_model_path(case["model"]), "config.json")
        try:
            with open(path) as f:
                archs = tuple(json.load(f).get("architectures") or ())
        except (OSError, ValueError):
            continue
        if archs and archs[0] not in seen:
            seen.add(archs[0])
            try:
                _model_class(archs)
            except BaseException:  # noqa: BLE001 - the child meets it again
                pass
    _MODEL_CLASS_ERRORS.clear()


def run_all(cases: list, jobs: int, timeout: float) -> list:
    from concurrent.futures import ThreadPoolExecutor

    groups: dict = {}
    for i, c in enumerate(cases):
        key = (c["platform"], json.dumps(c.get("platform_overrides") or {}, sort_keys=True))
        groups.setdefault(key, []).append(i)

    def run_group(key, idx):
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--worker", key[0],
             "--timeout", str(timeout)],
            input=json.dumps([cases[i] for i in idx]), capture_output=True, text=True)
        rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
        for i in idx[len(rows):]:
            rows.append(dict(name=cases[i]["name"], ok=False, stage="harness", result={},
                             error="harness: worker died: " + proc.stderr[-1500:]))
        return rows

    results: dict = {}
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        futs = {key: ex.submit(run_group, key, idx) for key, idx in groups.items()}
        for key, idx in groups.items():
            for i, row in zip(idx, futs[key].result()):
                results[i] = row
    return [results[i] for i in range(len(cases))]


#: Cases added from a fuzz round's findings (``kv/arch10/...``), not by the generator.
FUZZ_PREFIX = "kv/arch"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="?", default=CASES)
    ap.add_argument("--out", default=None, help=f"default: {RESULTS} for the default cases")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--generate", action="store_true",
                    help="write the cases file from the bundled models and stop")
    ap.add_argument("--only", help="record only the cases whose name contains this text and "
                    "merge them into the existing results (e.g. a newly bundled model)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, json.load(sys.stdin), a.timeout)
        return
    if a.generate:
        sys.path.insert(0, HERE)
        from gen_kv_pool_cases import generate  # noqa: PLC0415

        cases = generate()
        if os.path.exists(a.cases):  # the fuzz rounds' recorded findings are no generated
            with open(a.cases) as f:  # cases: keep them, after the generated ones
                cases += [c for c in json.load(f) if c["name"].startswith(FUZZ_PREFIX)]
        with open(a.cases, "w") as f:
            json.dump(cases, f, indent=1)
            f.write("\n")
        print(f"{len(cases)} cases -> {a.cases}", file=sys.stderr)
        return
    cases = json.load(sys.stdin if a.cases == "-" else open(a.cases))
    out_path = a.out or (RESULTS if a.cases == CASES else None)
    kept: dict = {}
    if a.only:
        if out_path and os.path.exists(out_path):
            with open(out_path) as f:
                kept = {r["name"]: r for r in map(json.loads, f) if a.only not in r["name"]}
        cases_all, cases = cases, [c for c in cases if a.only in c["name"]]
    t0 = time.perf_counter()
    rows = run_all(cases, a.jobs, a.timeout)
    if a.only:
        fresh = {r["name"]: r for r in rows}
        rows = [fresh.get(c["name"]) or kept[c["name"]] for c in cases_all
                if c["name"] in fresh or c["name"] in kept]
    out = open(out_path, "w") if out_path else None
    for row in rows:
        line = json.dumps(row, sort_keys=True)
        print(line) if out is None else out.write(line + "\n")
    if out:
        out.close()
    n_ok = sum(1 for r in rows if r["ok"])
    print(f"# {n_ok}/{len(rows)} sized in {time.perf_counter() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
