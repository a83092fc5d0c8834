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
radix cache, chunked prefill and prefill CUDA graph switched off). Its module does not import
under the stubs either, so this script reads the installed module's file
with ``ast`` and builds the class from it: its literal class attributes over the base class's,
and its ``configure_server_args`` compiled from the file as it stands (same lines, so a
traceback points into it), run with the names it uses that the module imports (SGLang's
resolution helpers and graph-config types, which import under the stubs) bound as the module
binds them. Nothing of the algorithm is written here: a release whose method differs (0.5.21
has no FULL prefill-graph exception) runs its own. Left out is only what resolution never
reaches: the module's kernels, sampling and denoising code. Everything else is
``targets_oracle.py``'s (the further GPU targets, simulated InfiniBand and IMEX).
"""

from __future__ import annotations
import __future__

import ast
import importlib
import importlib.util
import os
from pathlib import Path
from typing import Any

import targets_oracle

#: The attributes of SGLang's diffusion algorithm base class that resolution reads, as the
#: base class sets them (0.5.21-0.5.23).
BASE_ATTRIBUTES = {"supported_architectures": (), "requires_separate_context_encoding": False,
                   "required_attention_backend": None, "reuse_forward_metadata": False,
                   "supported_attention_backends": (), "capture_input_preparation": False}
#: The algorithms each release ships (Gemma4Renoise aside), by class name.
ALGORITHMS = ("LowConfidence", "JointThreshold", "JointThresholdInDel")
#: The algorithm built from its installed source, and the one method of it resolution calls.
REAL, REAL_MODULE, METHOD = ("Gemma4Renoise", "sglang.srt.dllm.algorithm.gemma4_renoise",
                             "configure_server_args")


def real_algorithm(name: str = REAL, module: str = REAL_MODULE) -> type:
    """The class ``name`` of the installed ``module``, built from its file without importing
    it: the base class's attributes, then the class body's literal assignments, then
    ``configure_server_args`` compiled from its own lines, with the names it uses that the
    module imports bound as the module binds them (an unbound one fails the case loudly)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    path = Path(spec.origin)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    attributes = dict(BASE_ATTRIBUTES)
    methods = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            try:
                attributes[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except ValueError:
                pass  # not a literal: nothing resolution reads
        elif isinstance(stmt, ast.FunctionDef) and stmt.name == METHOD:
            methods.append(stmt)
    (method,) = methods
    used = {n.id for n in ast.walk(method) if isinstance(n, ast.Name)}
    namespace: dict[str, Any] = {"__name__": module, "__file__": str(path)}
    for node in tree.body:  # the module's imports of the names the method uses, as it binds them
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) in used:
                    namespace[alias.asname or alias.name] = getattr(
                        importlib.import_module(node.module), alias.name)
    code = compile(ast.Module([method], []), str(path), "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, namespace)  # the decorator list (classmethod) is the file's own
    return type(name, (), {**attributes, METHOD: namespace[METHOD]})


def _with_algorithms(run_case: Any) -> Any:
    def run(case: Any, facts: Any) -> Any:
        import sglang
        import sglang.srt.dllm.algorithm as algorithms

        names = ALGORITHMS if sglang.__version__ != "0.5.21" else ALGORITHMS[:2]
        for name in names:
            algorithms.algo_name_to_cls.setdefault(name, type(name, (), {
                **BASE_ATTRIBUTES, "configure_server_args": classmethod(lambda cls, a: None)}))
        algorithms.algo_name_to_cls.setdefault(REAL, real_algorithm())
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
