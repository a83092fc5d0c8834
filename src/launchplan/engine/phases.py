"""The phases of a resolution, in SGLang 0.5.23's pipeline order (mechanics.md §2.3).

Phases exist so a rule set can be checked for order (a rule never runs before a phase it
belongs after) and so later rules slot in without reordering what is there.
"""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    BOOTSTRAP = 10  # steps 1-11: model-independent normalisations and validations
    MODEL_SOURCE = 20  # steps 12-21: deprecated args, missing defaults, PD, DCP
    GRAPH_DEFAULTS = 30  # steps 22-24: model defaults for the CUDA-graph flags
    CUDA_GRAPH = 40  # step 25: parse, cascade, roles, validation of cuda_graph_config
    DEVICE = 50  # steps 26-28: per-device backend defaults
    MEMORY = 60  # step 29: capacity tiers, graph sizing, mem_fraction_static
    MODEL = 70  # steps 30-32: model-specific adjustments and overrides
    KERNEL = 80  # steps 33-35: sampling, deterministic inference, NVFP4 KV
    ATTENTION = 90  # step 36: attention backend defaults, snaps and checks
    ATTENTION_LATE = 100  # steps 37-38: DeepSeek trtllm_mla graph rule, KV4/MXFP8 checks
    PAGE_DEFAULT = 110  # step 39: page_size default
    MISC = 120  # steps 40-42: AMD specifics, grammar, multi-item scoring
    PARALLEL = 130  # steps 43-47: caches, data and context parallelism
    MOE = 140  # steps 48-49: MoE kernels, A2A, pipeline-parallel overlap
    SPECULATIVE = 150  # steps 50-52: speculative decoding
    SERVING = 160  # step 53: load format, environment, caches, DLLM
    LATE = 170  # steps 54-58: capability gates, prefill max-context, final checks
    LAUNCHER = 180  # after the pipeline: SGLang's check_server_args
