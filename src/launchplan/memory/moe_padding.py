"""How SGLang 0.5.23 pads routed-expert weights for the MoE kernel that will run them.

Some MoE kernels need the hidden size and each GPU's slice of the expert intermediate size
rounded up; SGLang allocates the expert buffers at the rounded sizes, so a GPU holds more
than the checkpoint's share. The facts (``layers/moe/fused_moe_triton/layer.py`` and
``layers/quantization/mxfp4.py``):

* every quantization but ModelOpt NVFP4 under the ``flashinfer_trtllm`` runner (or
  ``flashinfer_trtllm_routed``, ``experimental_sgl_trtllm``): the per-GPU intermediate size
  up to a multiple of 128;
* mxfp4 under ``flashinfer_mxfp4``: the hidden size up to a multiple of 256 first; then on
  SM10x the intermediate slice and the hidden size up to multiples of 128, and on SM90/SM12x
  (CUTLASS kernels, which rebuild the buffers padded after loading) the same 128 rounding;
* mxfp4 under ``marlin``: intermediate slice to 128, hidden size to 256;
* mxfp4 on SM10x under any other runner: the intermediate slice to a multiple of 64;
* mxfp4 on ROCm with ``SGLANG_USE_AITER``: intermediate slice to 256 (128 with
  ``SGLANG_AITER_K3_OPT``), hidden size to 256;
* mxfp4 under ``deep_gemm`` or with the MegaMoE all-to-all backend: the checkpoint layout,
  no padding.

Assumed, as in the resolution rules: the ``triton_kernels`` package is absent, so mxfp4 on
other GPUs is not padded to 64. ModelOpt NVFP4's own alignment is not modelled.
"""

from __future__ import annotations

from typing import NamedTuple


class ExpertPadding(NamedTuple):
    """Multiples the hidden size and the per-GPU expert intermediate size are rounded to."""

    hidden: int = 1
    intermediate: int = 1

    def __bool__(self) -> bool:
        return self.hidden > 1 or self.intermediate > 1

    def sizes(self, hidden: int, intermediate_per_gpu: int) -> tuple[int, int]:
        """(hidden, intermediate slice) as SGLang allocates them."""
        return _up(hidden, self.hidden), _up(intermediate_per_gpu, self.intermediate)


NONE = ExpertPadding()
#: runners SGLang treats as FlashInfer TRT-LLM (the experimental one shares its layout)
_TRTLLM = frozenset({"flashinfer_trtllm", "experimental_sgl_trtllm", "flashinfer_trtllm_routed"})
_MARLIN = frozenset({"marlin", "experimental_sgl_marlin"})


def expert_padding(quant: str | None, runner: str | None, *, sm100: bool = False,
                   sm90: bool = False, sm120: bool = False, hip: bool = False,
                   aiter: bool = False, aiter_k3: bool = False, a2a: str | None = None,
                   ) -> ExpertPadding:
    """The padding of routed experts stored as ``quant`` (the checkpoint's method, or None)
    and run by ``runner`` (the resolved ``moe_runner_backend``) on the named GPU family."""
    runner = (runner or "auto").lower()
    # FusedMoE rounds first; the quantization method's create_weights may round further
    inter = 128 if runner in _TRTLLM and quant != "modelopt_fp4" else 1
    hidden = 256 if quant == "mxfp4" and runner == "flashinfer_mxfp4" else 1
    if quant != "mxfp4":
        return _PADDINGS[hidden, inter]
    h, i = 1, 1
    if runner in _MARLIN and a2a != "megamoe":
        h, i = 256, 128
    elif runner == "deep_gemm" or a2a == "megamoe":
        pass
    elif sm100:
        h, i = (128, 128) if runner == "flashinfer_mxfp4" else (1, 64)
    elif runner == "flashinfer_mxfp4" and (sm90 or sm120):
        h, i = 128, 128  # buffers rebuilt padded after loading
    elif hip and aiter:
        h, i = 256, 128 if aiter_k3 else 256
    # powers of two: the larger is the lcm
    return _PADDINGS[hidden if hidden > h else h, inter if inter > i else i]


#: every padding ``expert_padding`` can give, made once (a launch picks one of them)
_PADDINGS = {(h, i): ExpertPadding(h, i) for h in (1, 128, 256) for i in (1, 64, 128, 256)}
_PADDINGS[1, 1] = NONE


def _up(n: int, to: int) -> int:
    return -(-n // to) * to if to > 1 else n
