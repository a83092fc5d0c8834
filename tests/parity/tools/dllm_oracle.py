"""The oracle with SGLang's diffusion-LLM algorithms importable, for the ``dllm`` suite.

    ~/sglang-oracle/bin/python tests/parity/tools/dllm_oracle.py CASES --out OUT [--jobs N]

SGLang registers each module of ``srt/dllm/algorithm`` under its class name; under the
oracle's stubs those modules fail to import (their kernels are absent), SGLang skips them,
and every ``--dllm-algorithm`` then reads as an unknown name (``HARNESS_MESSAGES``). This
script registers a stand-in class for each algorithm the release ships, carrying the class
attributes SGLang's resolution reads (the base class's defaults: no supported architecture
list, no required or accepted attention backends), with a ``configure_server_args`` that
changes nothing. That is what the real classes do: LowConfidence, JointThreshold and
JointThresholdInDel override none of these attributes and inherit the base class's
``configure_server_args``, which changes no server argument (checked on 0.5.21, 0.5.22 and
0.5.23). So the lookup by name, the diffusion-model table, the edit-token checks and every
rewrite ``handle_dllm_inference`` makes of an accepted launch run as in a real install.
Gemma4Renoise sets its own attributes and ``configure_server_args`` (launch checks, and the
radix cache, chunked prefill and prefill CUDA graph switched off); it is not simulated, and
the suite leaves that algorithm out. Everything else is ``targets_oracle.py``'s (the further GPU
targets, simulated InfiniBand and IMEX).
"""

from __future__ import annotations

import os
from typing import Any

import targets_oracle

#: The attributes of SGLang's diffusion algorithm base class that resolution reads, as the
#: base class sets them (0.5.21-0.5.23).
BASE_ATTRIBUTES = {"supported_architectures": (), "requires_separate_context_encoding": False,
                   "required_attention_backend": None, "reuse_forward_metadata": False,
                   "supported_attention_backends": (), "capture_input_preparation": False}
#: The algorithms each release ships (Gemma4Renoise aside), by class name.
ALGORITHMS = ("LowConfidence", "JointThreshold", "JointThresholdInDel")


def _with_algorithms(run_case: Any) -> Any:
    def run(case: Any, facts: Any) -> Any:
        import sglang
        import sglang.srt.dllm.algorithm as algorithms

        names = ALGORITHMS if sglang.__version__ != "0.5.21" else ALGORITHMS[:2]
        for name in names:
            algorithms.algo_name_to_cls.setdefault(name, type(name, (), {
                **BASE_ATTRIBUTES, "configure_server_args": classmethod(lambda cls, a: None)}))
        return run_case(case, facts)
    return run


def main() -> None:
    targets_oracle.simulate_infiniband()
    targets_oracle.simulate_imex_channel()
    oracle = targets_oracle._oracle()
    for name, entry in targets_oracle.platforms().items():
        oracle.PLATFORMS.setdefault(name, entry)
    oracle.run_case = _with_algorithms(oracle.run_case)
    oracle.__file__ = os.path.abspath(__file__)  # its workers start through this script
    oracle.main()


if __name__ == "__main__":
    main()
