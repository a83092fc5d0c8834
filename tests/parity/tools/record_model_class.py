#!/usr/bin/env python3
"""Record which class SGLang's loader picks for a checkpoint, or why it stops picking.

    PYTHONPATH=<transformers 5.19.0 unpacked> /root/sglang-oracle/bin/python \\
        tests/parity/tools/record_model_class.py --release 0.5.23

Each case resolves a launch with SGLang's ``ServerArgs`` and publishes it as a scheduler
would (``record_vision_params.py``'s machinery), then asks SGLang's own
``get_model_architecture`` for the model's class: a class of SGLang's registry, its
transformers backend's, or the ValueError the backend's compatibility gate raises; a backend
class is then built on the ``meta`` device (no memory, no weights), which checks the first
architecture's transformers class again. Run each release under the transformers version it
pins (0.5.22 and 0.5.23: 5.19.0; 0.5.21: 5.12.1), unpacked on ``PYTHONPATH`` before the
venv's own 5.24; 5.12.1 also needs httpx, tokenizers 0.22 and huggingface-hub 1.x unpacked
there, and a stand-in ``torchvision`` (a version and names that raise when called: the
0.5.21 venv has none, and 5.12.1's image processors import it). The rows go to
``results-model-class-RELEASE.jsonl``, which ``tests/checks/test_transformers_backend.py``
holds preflight's ``transformers-backend`` row to.

A case may swap a config's ``architectures`` for other names (the config class stays the
file's): the gate reads the names only.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
LLAMA = "src/launchplan/facts/data/models/llama-3.1-8b"
MODELS = "tests/parity/models"

#: (case name, config folder from the repository root, architectures swapped in or None, flags)
CASES: tuple[tuple[str, str, tuple[str, ...] | None, list[str]], ...] = (
    ("gpt-neox", f"{MODELS}/gpt-neox-synth", None, []),
    ("gpt-neox-impl-sglang", f"{MODELS}/gpt-neox-synth", None, ["--model-impl", "sglang"]),
    ("falcon", f"{MODELS}/falcon-synth", None, []),
    ("falcon-impl-transformers", f"{MODELS}/falcon-synth", None,
     ["--model-impl", "transformers"]),
    ("falcon-impl-sglang", f"{MODELS}/falcon-synth", None, ["--model-impl", "sglang"]),
    ("bloom", f"{MODELS}/bloom-synth", None, []),
    ("llama-native", LLAMA, None, []),
    ("llama-impl-transformers", LLAMA, None, ["--model-impl", "transformers"]),
    # names the gate reads on a Llama config: one transformers lacks, compatible and
    # incompatible transformers classes, one whose answer moved between transformers pins
    ("unknown-name", LLAMA, ("MyLlamaForCausalLM",), []),
    ("unknown-name-impl-transformers", LLAMA, ("MyLlamaForCausalLM",),
     ["--model-impl", "transformers"]),
    ("unknown-name-impl-sglang", LLAMA, ("MyLlamaForCausalLM",), ["--model-impl", "sglang"]),
    ("unknown-then-native", LLAMA, ("MyLlamaForCausalLM", "LlamaForCausalLM"), []),
    ("falcon-name", LLAMA, ("FalconForCausalLM",), []),
    ("olmo3-name", LLAMA, ("Olmo3ForCausalLM",), []),
    ("codegen-name", LLAMA, ("CodeGenForCausalLM",), []),
    ("difflama-name", LLAMA, ("DiffLlamaForCausalLM",), []),
    ("compatible-then-incompatible", LLAMA, ("Olmo3ForCausalLM", "FalconForCausalLM"), []),
    ("transformers-backend-name", LLAMA, ("TransformersForCausalLM",), []),
    # a class SGLang registers, served by the backend on request: Falcon-Mamba's transformers
    # class takes no pluggable attention backend
    ("falcon-mamba-impl-transformers", f"{MODELS}/falcon-mamba-7b", None,
     ["--model-impl", "transformers"]),
    ("falcon-mamba", f"{MODELS}/falcon-mamba-7b", None, []),
    # over two GPUs the backend splits the model by its config class's tensor-parallel plan
    ("gpt-neox-tp2", f"{MODELS}/gpt-neox-synth", None, ["--tp-size", "2"]),
    ("llama-impl-transformers-tp2", LLAMA, None, ["--model-impl", "transformers",
                                                  "--tp-size", "2"]),
    ("opt-impl-transformers-tp2", f"{MODELS}/opt-125m", None, ["--model-impl", "transformers",
                                                               "--tp-size", "2"]),
    ("opt-impl-transformers", f"{MODELS}/opt-125m", None, ["--model-impl", "transformers"]),
    ("diffllama", f"{MODELS}/diffllama-synth", None, []),
    ("diffllama-tp2", f"{MODELS}/diffllama-synth", None, ["--tp-size", "2"]),
    ("olmo3-name-tp2", LLAMA, ("Olmo3ForCausalLM",), ["--tp-size", "2"]),
    # and over two pipeline stages by its pipeline-parallel plan
    ("gpt-neox-pp2", f"{MODELS}/gpt-neox-synth", None, ["--pp-size", "2"]),
    ("llama-impl-transformers-pp2", LLAMA, None, ["--model-impl", "transformers",
                                                  "--pp-size", "2"]),
    ("opt-impl-transformers-pp2", f"{MODELS}/opt-125m", None, ["--model-impl", "transformers",
                                                               "--pp-size", "2"]),
)


def cases() -> list[dict]:
    return [dict(name=n, model=m, architectures=list(a) if a else None, argv=list(f),
                 platform="h100") for n, m, a, f in CASES]


def _rank0_groups(par) -> None:
    """The TP, attention-TP, MoE and pipeline groups the backend's class reads while it is
    built, left unwritten (or written for one stage) by the published launch: rank 0 of the
    launch's TP size (one expert rank) and the first of its pipeline stages."""
    import types

    def group(size: int):
        device = types.SimpleNamespace(rank=lambda: 0, size=lambda: size)
        return types.SimpleNamespace(world_size=size, rank_in_group=0, rank=0,
                                     ranks=list(range(size)), device_group=device,
                                     cpu_group=None, ca_comm=None, is_first_rank=True,
                                     is_last_rank=True)

    sizes = {"tp_group": par.tp_size, "attn_tp_group": par.tp_size,
             "moe_ep_group": 1, "moe_tp_group": par.tp_size}
    missing = {}
    for name, size in sizes.items():
        try:
            getattr(par, name)
        except RuntimeError:
            missing[name] = group(size)
    pp = int(getattr(par, "pp_size", 1) or 1)
    if pp > 1 or not hasattr(par.pp_group, "rank"):  # rank 0, the first of ``pp`` stages
        missing["pp_group"] = group(pp)
        missing["pp_group"].is_last_rank = pp == 1
    if missing:
        par.override_permanently(**missing)


def run_class_case(case: dict, facts: dict, oracle) -> dict:
    import torch
    import transformers
    from record_model_params import _cuda_to_meta, swapped_folder
    from record_vision_params import scheduler_model_config
    from sglang.srt.model_loader.utils import get_model_architecture

    out = dict(name=case["name"], model=case["model"], architectures=case["architectures"],
               argv=case["argv"], transformers=transformers.__version__, ok=False,
               error=None)
    argv = ["--model-path", swapped_folder(case["model"], case["architectures"]), *case["argv"]]
    with scheduler_model_config(argv, facts) as (mc, par):
        _rank0_groups(par)
        stage = "class"
        try:
            cls, arch = get_model_architecture(mc)
            out["class"] = arch
            if arch.startswith("Transformers"):  # the backend checks its class when built
                stage = "build"
                with torch.device("meta"), _cuda_to_meta():
                    cls(config=mc.hf_config, quant_config=None)
        except ValueError as e:  # the backend's gates: an answer, not a harness failure
            out["stage"] = stage
            out["error"] = f"ValueError: {e}"[:400]
            return out
        out["ok"] = True
    return out


def main() -> None:
    sys.path.insert(0, HERE)
    import record_kv_pool
    from record_model_params import SERVER_STUBS
    from record_vision_params import record_main

    record_kv_pool.EXTRA_STUBS.update(SERVER_STUBS)
    release = sys.argv[sys.argv.index("--release") + 1] if "--release" in sys.argv else "0.5.23"
    if "--release" in sys.argv:
        at = sys.argv.index("--release")
        del sys.argv[at:at + 2]
    results = os.path.join(DATA, f"results-model-class-{release}.jsonl")
    record_main(__doc__, results, cases(), run_class_case, __file__)


if __name__ == "__main__":
    main()
