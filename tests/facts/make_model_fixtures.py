#!/usr/bin/env python3
"""Record what SGLang 0.5.23 itself derives for the model cases in ``data/model_cases.json``.

Runs inside the oracle venv (see ../shared/oracle/README.md), never in CI:

    ~/sglang-oracle/bin/python tests/facts/make_model_fixtures.py [--defaults-only]

It builds SGLang's own ``ModelConfig`` for every case on the case's simulated platform and
writes ``data/sglang_model_facts.json``, which ``models/test_derive.py`` compares launchplan
against. It also records transformers' class defaults for the model types launchplan
tabulates and the set of model types transformers knows, so the tables in
``launchplan.facts.models`` can be checked against the library they emulate.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE = os.environ.get("LAUNCHPLAN_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))
CASES = os.path.join(HERE, "data", "model_cases.json")
OUT = os.path.join(HERE, "data", "sglang_model_facts.json")
BUNDLED = os.path.join(ROOT, "src", "launchplan", "facts", "data", "models")
TP_SIZES = (1, 2, 4, 8, 16)


def _setup(platform: str) -> None:
    """Fake the platform below SGLang the way the oracle harness does, then import it."""
    sys.path.insert(0, ORACLE)
    import sglang_oracle as so

    p = dict(so.PLATFORMS[platform])
    so._STUB_ACTIVE.update(so.STUB_ROOTS["common"] | so.STUB_ROOTS[p["vendor"]])
    sys.meta_path.append(so._StubFinder())
    so.install_device_fakes(p)
    import sglang.srt.server_args  # noqa: F401

    so.install_sglang_probe_patches(p)
    from sglang.srt.runtime_context import override_platform

    override_platform(**so.platform_facts(p)).__enter__()
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")


def _folder(case: dict) -> str:
    if "model" in case:
        return os.path.join(BUNDLED, case["model"])
    folder = tempfile.mkdtemp(prefix="lp-facts-")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(case["config"], f)
    for name, content in (case.get("files") or {}).items():
        with open(os.path.join(folder, name), "w") as f:
            json.dump(content, f)
    return folder


def _facts(mc) -> dict:
    from sglang.srt.configs import hybrid_arch as ha
    from sglang.srt.configs.model_config import is_deepseek_dsa, uses_kda_attention

    kind = None
    if ha.mamba2_config(mc):
        kind = "mamba"
    elif ha.hybrid_gdn_config(mc):
        kind = "gdn"
    elif ha.hybrid_kda_config(mc):
        kind = "kda"
    elif ha.hybrid_lightning_config(mc):
        kind = "lightning"
    elif ha.linear_attn_model_spec(mc):
        kind = "gdn"
    dsa = is_deepseek_dsa(mc.hf_config)
    out = {
        "architectures": list(mc.hf_config.architectures),
        "model_type": mc.hf_config.model_type,
        "attention_arch": mc.attention_arch.name,
        "num_hidden_layers": mc.num_hidden_layers,
        "hidden_size": mc.hidden_size,
        "vocab_size": mc.vocab_size,
        "num_attention_heads": mc.num_attention_heads,
        "total_num_kv_heads": mc.get_total_num_kv_heads(),
        "kv_heads_per_rank": {str(tp): mc.get_num_kv_heads(tp) for tp in TP_SIZES},
        "head_dim": mc.head_dim,
        "v_head_dim": mc.v_head_dim,
        "swa_head_dim": mc.swa_head_dim,
        "swa_v_head_dim": mc.swa_v_head_dim,
        "has_asymmetric_kv": mc.has_asymmetric_kv,
        "context_len": mc.context_len,
        "dtype": str(mc.dtype).replace("torch.", ""),
        "quantization": mc.quantization,
        "sliding_window": mc.sliding_window_size,
        "attention_chunk_size": mc.attention_chunk_size,
        "is_hybrid_swa": mc.is_hybrid_swa,
        "has_attention_sinks": mc.has_attention_sinks,
        "is_multimodal": bool(mc.is_multimodal),
        "mm_chunked_prefill_supported": bool(mc.is_multimodal_chunked_prefill_supported),
        "mm_breakable_graph_supported": bool(mc.is_multimodal_breakable_cuda_graph_supported),
        "is_encoder_decoder": mc.is_encoder_decoder,
        "is_generation": mc.is_generation,
        "num_nextn_predict_layers": mc.num_nextn_predict_layers,
        "is_deepseek_dsa": dsa,
        "index_topk": getattr(mc.hf_config, "index_topk", None) if dsa else None,
        "uses_kda": uses_kda_attention(mc.hf_config),
        "linear_attn_kind": kind,
    }
    for name in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim"):
        if mc.attention_arch.name == "MLA" and hasattr(mc, name):
            out[name] = getattr(mc, name)
    return out


def _build(case: dict, context_length: int | None = None, is_draft: bool = False):
    from sglang.srt.configs.model_config import ModelConfig

    for k, v in (case.get("env") or {}).items():
        os.environ[k] = str(v)
    try:
        return ModelConfig(
            _folder(case), trust_remote_code=False,
            context_length=context_length if is_draft else case.get("context_length"),
            model_override_args=json.dumps(case.get("override") or {}),
            quantization=case.get("quantization"), is_draft_model=is_draft,
            speculative_algorithm=case.get("algorithm"))
    finally:
        for k in case.get("env") or {}:
            os.environ.pop(k, None)


def run_platform(platform: str, names: list[str]) -> dict:
    _setup(platform)
    cases = {c["name"]: c for c in json.load(open(CASES))}
    out = {}
    for name in names:
        case = cases[name]
        try:
            if "draft_of" in case:
                target = _build(cases[case["draft_of"]])
                mc = _build(case, context_length=target.context_len, is_draft=True)
            else:
                mc = _build(case)
            out[name] = {"facts": _facts(mc)}
        except BaseException as e:  # noqa: BLE001 - every failure is a recorded fact
            out[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    return out


def _declared_default(cls, key: str):
    """The plain default a config class declares for ``key`` (a heterogeneous class, like
    EmbeddingGemma 2's, refuses to read it back from an instance)."""
    for klass in cls.__mro__:
        value = vars(klass).get(key)
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            return value
    return None


def _probe(config, key: str):
    """``config.key``, or None where the class refuses the read (a per-layer attribute)."""
    try:
        return getattr(config, key, None)
    except Exception:  # noqa: BLE001
        return None


def class_defaults(types: list[str]) -> dict:
    """transformers' (or SGLang's registry) class defaults for the tabulated types."""
    _setup("h100")
    from sglang.srt.utils.hf_transformers.common import _CONFIG_REGISTRY
    from transformers import CONFIG_MAPPING

    keys = ("max_position_embeddings", "hidden_size", "num_attention_heads",
            "num_hidden_layers", "vocab_size", "num_key_value_heads", "head_dim",
            "sliding_window", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
            "v_head_dim", "num_nextn_predict_layers", "attention_chunk_size", "multi_query",
            "max_seq_len", "index_topk", "mamba_chunk_size", "num_attention_groups",
            "intermediate_size", "moe_intermediate_size")
    out = {}
    for t in types:
        cls = _CONFIG_REGISTRY.get(t)
        if cls is None:
            cls = CONFIG_MAPPING[t]
        plain = cls()
        try:
            probe = cls(hidden_size=1200, num_attention_heads=12)
        except Exception:  # noqa: BLE001 - some classes validate shapes
            probe = None
        row = {}
        for k in keys:
            try:
                v = getattr(plain, k) if hasattr(plain, k) else None
            except Exception:  # noqa: BLE001 - a per-layer config refuses the read: its
                v = _declared_default(cls, k)  # base (first-layer-kind) value is declared
            if v is None or v is False:
                continue
            if probe is not None and k == "head_dim" and _probe(probe, k) == 100:
                continue  # derived from hidden_size // heads, as SGLang would
            if probe is not None and k == "num_key_value_heads" \
                    and _probe(probe, k) == 12:
                continue  # derived from the head count, as SGLang would
            row[k] = v
        out[t] = row
    known = sorted(set(CONFIG_MAPPING.keys()) | set(_CONFIG_REGISTRY))
    return {"class_defaults": out, "known_model_types": known}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        kind, arg = sys.argv[2], json.loads(sys.stdin.read())
        result = class_defaults(arg) if kind == "defaults" else run_platform(kind, arg)
        sys.stdout.write(json.dumps(result))
        return
    if "--defaults-only" in sys.argv:  # the class tables again, the recorded cases kept
        sys.path.insert(0, os.path.join(ROOT, "src"))
        from launchplan.facts.models.hf_classes import _TYPE_DEFAULTS

        done = subprocess.run([sys.executable, __file__, "--worker", "defaults"],
                              input=json.dumps(sorted(_TYPE_DEFAULTS)), capture_output=True,
                              text=True, check=True)
        with open(OUT) as f:
            recorded = json.load(f)
        recorded.update(json.loads(done.stdout))
        with open(OUT, "w") as f:
            json.dump(recorded, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"rewrote the class rows of {OUT}")
        return
    cases = json.load(open(CASES))
    by_platform: dict[str, list[str]] = {}
    for case in cases:
        if case.get("oracle", True):
            by_platform.setdefault(case.get("platform", "h100"), []).append(case["name"])

    def worker(kind: str, arg) -> dict:
        done = subprocess.run([sys.executable, __file__, "--worker", kind],
                              input=json.dumps(arg), capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    results: dict = {}
    for platform, names in sorted(by_platform.items()):
        results.update(worker(platform, names))
    sys.path.insert(0, os.path.join(ROOT, "src"))
    from launchplan.facts.models.hf_classes import _TYPE_DEFAULTS

    tables = worker("defaults", sorted(_TYPE_DEFAULTS))
    with open(OUT, "w") as f:
        json.dump({"cases": results, **tables}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(results)} cases and {len(tables['class_defaults'])} class rows to {OUT}")


if __name__ == "__main__":
    main()
