"""Vision towers: their tensors, and how SGLang 0.5.23 splits each one over the GPUs.

One table, ``FAMILIES``, says per tower family which group each kind of tensor is split over
(established from SGLang 0.5.23's model code, the file named in each row):

* ``attn`` the attention projections (qkv, output), ``mlp`` the block MLPs, ``merger`` the
  patch merger / projector into the LM, ``pos`` a learned position table;
* a split is one of the shard kinds below, or ``replicated``. A column-parallel linear
  splits its weight and bias; a row-parallel one splits its weight and keeps its bias
  whole on every GPU, so builders list that bias as a replicated vector of its own;
* patch embeddings, norms and anything a family builds as a plain ``nn.Linear`` /
  ``ReplicatedLinear`` / ``nn.Parameter`` are replicated;
* ``every_stage``: the model class builds its tower on every pipeline rank (Qwen-VL, Kimi,
  Gemma 3), or only on the first (Gemma 4). A tensor built only on the first rank (Qwen3-VL's
  position table) says so itself.

Shard kinds (``weights.Parallel.group`` asks ``group`` for them):

* ``vision_tp``: the full TP group; one GPU's whole copy under ``--mm-enable-dp-encoder``
  (the model then builds its tower with ``use_data_parallel``);
* ``vision_attn_tp``: the attention-TP group (``tp / (attn_dp x attn_cp)``, as
  ``VisionAttention`` reads ``attn_tp_size``); whole under ``--mm-enable-dp-encoder``;
* ``vision_pos``: a vocabulary-parallel position table (padded as SGLang pads a
  vocabulary) over TP, over attention TP under attention DP; whole under the DP encoder;
* ``vision_pos_tp``: the same over TP whatever the flags (SigLIP's, which Gemma 3 builds
  without ``use_data_parallel``);
* ``vision_pos_attn``: a vocabulary-parallel position table over the attention-TP group
  whatever ``--mm-enable-dp-encoder`` says (Qwen3-Omni's, built without
  ``use_data_parallel``);
* ``vision_attn_heads``: ``vision_attn_tp``, the heads first padded to a multiple of the
  group with dummy heads (``vision_utils.update_vit_attn_dummy_heads_config``, which GLM-4V's
  class calls): a GPU holds ``ceil(heads / group)`` heads' rows (the tensor's ``heads``);
* the plain ``tp`` / ``attn_tp`` kinds: split whatever ``--mm-enable-dp-encoder`` says
  (families whose class never reads it).

Not modelled: a launch SGLang refuses when it builds the tower (heads or widths that the
group does not divide; a tower sharded over an attention TP narrower than TP that reduces
over full TP); Gemma 4's K/V heads replicated beyond their count (16 heads). Qwen2.5-VL's
MLP width, rounded up to a multiple of 8 (``Qwen2_5_VisionTransformer``), is counted as
padding rows: loaded and split, not in the checkpoint's size.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from launchplan.memory.config_ints import config_int as _int

if TYPE_CHECKING:
    from launchplan.memory.params import Tensor

REP = "replicated"
TP = "vision_tp"
ATTN = "vision_attn_tp"
POS = "vision_pos"
POS_TP = "vision_pos_tp"
HEADS = "vision_attn_heads"
POS_ATTN = "vision_pos_attn"
#: the shard kinds of this module that a vocabulary-style padding applies to
POS_KINDS = frozenset({POS, POS_TP, POS_ATTN})


class Family(NamedTuple):
    """How one tower family splits its tensors (see the module docstring)."""

    source: str  # SGLang 0.5.23's model file and class
    attn: str
    mlp: str
    merger: str
    pos: str
    every_stage: bool


#: family -> split per kind of tensor (SGLang 0.5.23, ``sglang/srt/models``)
FAMILIES: dict[str, Family] = {
    # VisionAttention over attn_tp; Qwen2_5_VLMLP and Qwen2_5_VisionPatchMerger over
    # parallel_group "tp"; all "replicated" with use_data_parallel; built on every PP rank
    "qwen2_5_vl": Family("qwen2_5_vl.py Qwen2_5_VisionTransformer", ATTN, TP, TP, REP, True),
    # Qwen2-VL's: the same splits (its fc1/fc2 and merger Column/RowParallelLinear over "tp")
    "qwen2_vl": Family("qwen2_vl.py Qwen2VisionTransformer", ATTN, TP, TP, REP, True),
    # every linear over "attn_tp" (_resolve_vision_parallel_group), pos_embed a
    # VocabParallelEmbedding on the first PP rank (attn-TP group under DP attention)
    "qwen3_vl": Family("qwen3_vl.py Qwen3VLMoeVisionModel", ATTN, ATTN, ATTN, POS, True),
    # VisionAttention over attn_tp; MLP2 built without use_tensor_parallel (nn.Linear);
    # K2VLMultiModalProjector of ReplicatedLinear; the position table an nn.Parameter
    "moonvit": Family("kimi_k25.py MoonViT3dPretrainedModel", ATTN, REP, REP, REP, True),
    # nn.Linear / nn.Conv2d / nn.RMSNorm throughout: a whole copy on every GPU
    "moonvit_k3": Family("kimi_k3_vl.py KimiK3VisionTower", REP, REP, REP, REP, True),
    # VisionAttention over attn_tp, SiglipMLP over "tp", position table vocab-parallel over
    # tp; Gemma3ForConditionalGeneration never passes use_data_parallel; projector a Parameter
    "siglip": Family("siglip.py SiglipVisionModel (gemma3_mm.py)", "attn_tp", "tp", REP,
                     POS_TP, True),
    # Clippable QKV/GateUp/Row parallel linears on the default "tp" group; patch embedder
    # and embed_vision replicated; built on the first PP rank only
    "gemma4": Family("gemma4_vision.py Gemma4VisionEncoder", "tp", "tp", REP, REP, False),
    # VisionAttention over attn_tp (biased: its defaults), MllamaVisionMLP's fc1/fc2 and the
    # patch linear over "tp", never use_data_parallel; position and tile tables nn.Parameter
    # / nn.Embedding, projector a ReplicatedLinear
    "mllama": Family("mllama.py MllamaVisionModel", "attn_tp", "tp", REP, REP, True),
    # VisionAttention over attn_tp, the block MLPs and the vision adapter Column/Row over "tp";
    # the patch linear a ReplicatedLinear, the position grid an nn.Embedding
    "muse_glimmer": Family("muse_glimmer.py MuseGlimmerVisionModel", "attn_tp", "tp", "tp",
                           REP, True),
    # Qwen3-Omni's thinker tower: Qwen3VLMoeVisionModel never given use_data_parallel (its
    # blocks over attn_tp, the position table vocab-parallel over attn_tp), the merger and
    # the merger_list of Qwen3OmniMoeVisionPatchMerger over the default "tp" group
    "qwen3_omni": Family("qwen3_omni_moe.py Qwen3OmniMoeVisionEncoder", "attn_tp", "attn_tp",
                         "tp", POS_ATTN, True),
    # VisionAttention over attn_tp; the block MLPs and the merger's gate_up/down over "tp",
    # over attn_tp under DP attention (_glm4v_vision_parallel_group: the attention-TP group
    # either way), whole with use_data_parallel; the merger's proj ReplicatedLinear, the
    # position table an nn.Embedding, the downsample an nn.Conv2d; built on every PP rank
    "glm4v": Family("glm4v.py Glm4vVisionModel", ATTN, ATTN, ATTN, REP, True),
    # Kimi-VL's MoonViT as LocateAnything builds it (locate_anything.py, never
    # use_data_parallel): VisionAttention and MLP2 over attn_tp, the position table an
    # nn.Parameter; the projector's LayerNorm and two nn.Linear whole
    "moonvit_vl": Family("kimi_vl_moonvit.py MoonVitPretrainedModel (locate_anything.py)",
                         "attn_tp", "attn_tp", REP, REP, True),
    # Kimi-VL's own class (kimi_vl.py) builds the same MoonViT with use_data_parallel under
    # --mm-enable-dp-encoder: VisionAttention and MLP2 over attn_tp, whole with the DP
    # encoder; its KimiVLMultiModalProjector of nn.LayerNorm / nn.Linear whole
    "moonvit_kimi_vl": Family("kimi_vl.py MoonVitPretrainedModel (KimiVLForConditionalGeneration)",
                              ATTN, ATTN, REP, REP, True),
    # Step3's ViT (step3_vl.py Step3VisionTransformer, never use_data_parallel):
    # VisionAttention over attn_tp, Step3VisionMLP over "attn_tp", the position table an
    # nn.Embedding; the downsamplers (nn.Conv2d) and the projector (nn.Linear) whole
    "step3_vit": Family("step3_vl.py Step3VisionTransformer", "attn_tp", "attn_tp", REP, REP,
                        True),
    # Pixtral's tower as SGLang builds it for LLaVA, Mistral 3 and LightOnOCR
    # (PixtralHFVisionModel: VisionAttention over attn_tp, never use_data_parallel; its
    # gate_up/down over "tp"; no position table, 2-D RoPE); the projectors of nn.Linear
    "pixtral": Family("pixtral.py PixtralHFVisionModel", "attn_tp", "tp", REP, REP, True),
    # PaddleOCR-VL's SigLIP (paddleocr_vl.py SiglipVisionModel): VisionAttention over attn_tp,
    # SiglipMLP over "tp", two nn.Embedding position tables; the mlp_AR projector nn.Linear
    "paddleocr_vl": Family("paddleocr_vl.py SiglipVisionModel", "attn_tp", "tp", REP, REP,
                           True),
    # transformers' own SiglipVisionModel (cohere2_vision.py builds it, nn.Linear throughout:
    # whole on every GPU); the alignment MLP Merged/RowParallelLinear over "tp"
    # MiniMax-M3-VL's CLIP (minimax_vl_common.py MiniMaxVLVisionModel): VisionAttention, the
    # block fc1/fc2, the projector and the patch merger all over attn_tp ("replicated" with
    # --mm-enable-dp-encoder); the Conv3d patch embedding whole, 3-D RoPE (no position table)
    "minimax_vl": Family("minimax_vl_common.py MiniMaxVLVisionModel", ATTN, ATTN, ATTN, REP,
                         True),
    # dots.ocr's own ViT (dots_vlm_vit.py DotsVisionTransformer): VisionAttention over
    # attn_tp, its heads padded with dummy ones to fill the group; the SwiGLU MLP, the
    # merger and the patch Conv2dLayer plain layers, whole on every GPU
    "dots_vit": Family("dots_vlm_vit.py DotsVisionTransformer", ATTN, REP, REP, REP, True),
    "hf_siglip": Family("cohere2_vision.py (transformers SiglipVisionModel)", REP, REP, "tp",
                        REP, True),
    # MiniCPM-V's and MiniCPM-o's SigLIP (idefics2.py Idefics2VisionTransformer, never
    # use_data_parallel): VisionAttention over attn_tp, the Column/RowParallel fc1/fc2 over
    # "tp", the position table an nn.Embedding; the resampler plain modules (minicpmv.py)
    "idefics2": Family("idefics2.py Idefics2VisionTransformer (minicpmv.py)", "attn_tp", "tp",
                       REP, REP, True),
    # Phi-4-multimodal's image encoder (phi4mm.py Phi4MMImageEncoder): the same Idefics2
    # tower (no post-norm), its separators and a projector of nn.Linear whole on every GPU
    "phi4mm": Family("phi4mm.py Phi4MMImageEncoder (idefics2.py)", "attn_tp", "tp", REP, REP,
                     True),
    # InternViT (internvl.py InternVisionModel, use_data_parallel from --mm-enable-dp-encoder):
    # VisionAttention over attn_tp with dummy heads, InternMLP's fc1/fc2 over "tp"; the class
    # and position embeddings nn.Parameter, the mlp1 projector nn.LayerNorm / nn.Linear
    "internvit": Family("internvl.py InternVisionModel (InternVLChatModel)", ATTN, TP, REP, REP,
                        True),
    # Janus's SigLIP (deepseek_janus_pro.py VisionTransformer): VisionAttention over attn_tp,
    # never use_data_parallel; timm's Mlp, the attention-pool head, the aligners and the
    # image-generation modules nn.Linear / nn.Conv2d / nn.Embedding, whole on every GPU
    "janus": Family("deepseek_janus_pro.py MultiModalityCausalLM", "attn_tp", REP, REP, REP,
                    True),
    # DeepSeek-VL2's (deepseek_vl2.py DeepseekVL2ForCausalLM): timm's SigLIP of plain
    # modules and a projector of ReplicatedLinear, whole on every GPU
    "deepseek_vl2": Family("deepseek_vl2.py DeepseekVL2ForCausalLM", REP, REP, REP, REP, True),
}


def group(kind: str, tp: int, attn_tp: int, encoder_dp: bool, dp_attention: bool) -> int:
    """The number of GPUs one vision tensor of shard ``kind`` is split over."""
    if kind == POS_TP:
        return tp
    if kind == POS_ATTN:
        return attn_tp
    if encoder_dp:
        return 1
    if kind == TP:
        return tp
    if kind in (ATTN, HEADS):
        return attn_tp
    if kind == POS:
        return attn_tp if dp_attention else tp
    return 1


#: model type -> its tower family, where the type alone decides (``family_of``)
_FAMILY_OF_TYPE = {"gemma4": "gemma4", "mllama": "mllama", "muse_glimmer": "muse_glimmer",
                   "glm4v": "glm4v", "glm4v_moe": "glm4v", "glm_ocr": "glm4v",
                   "locateanything": "moonvit_vl", "kimi_vl": "moonvit_kimi_vl",
                   "paddleocr_vl": "paddleocr_vl", "step3_vl": "step3_vit",
                   "cohere2_vision": "hf_siglip", "minimax_m3_vl": "minimax_vl",
                   "dots_ocr": "dots_vit", "qwen3_omni_moe": "qwen3_omni",
                   "qwen2_5_vl": "qwen2_5_vl", "qwen2_vl": "qwen2_vl",
                   "minicpmv": "idefics2", "minicpmo": "idefics2",
                   "internvl_chat": "internvit"}


def family_of(model_type: str, v: Mapping[str, Any]) -> str:
    """The tower family of a checkpoint (``siglip`` for the towers not told apart here:
    their encoders are SigLIP/CLIP-like, counted and split as SigLIP's, an assumption)."""
    family = _FAMILY_OF_TYPE.get(model_type)
    if family is not None:
        return family
    if v.get("model_type") == "pixtral":
        return "pixtral"
    if model_type in _QWEN3_VISION:
        return "qwen3_vl"
    if not _int(v, "hidden_size", "embed_dim") and _int(v, "vt_hidden_size"):
        return "moonvit_k3" if model_type == "kimi_k3" else "moonvit"
    return "siglip"


#: model types whose vision tower is Qwen3-VL's (``qwen3_vl.py``, reused by ``qwen3_5.py``;
#: Qwen3-Omni's thinker subclasses it, family ``qwen3_omni``: the same tensors, its deepstack
#: mergers kept as ``merger_list``, split otherwise)
_QWEN3_VISION = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
#: SGLang's ``Qwen3VLVisionConfig`` defaults (``configs/qwen3_vl.py``; Qwen3.5's vision
#: config subclasses it), which fill in the keys a file leaves out, or the whole tower
#: where a Qwen3-VL / Qwen3.5 file has no ``vision_config``
_QWEN3_VISION_DEFAULTS = {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304,
                          "num_heads": 16, "in_channels": 3, "patch_size": 16,
                          "spatial_merge_size": 2, "temporal_patch_size": 2,
                          "out_hidden_size": 3584, "num_position_embeddings": 2304,
                          "deepstack_visual_indexes": (8, 16, 24)}


#: transformers' (5.x) Qwen2_5_VLVisionConfig and Qwen2VLVisionConfig defaults, which SGLang's
#: Qwen2.5-VL / Qwen2-VL classes read the same way (an absent ``vision_config`` builds the
#: whole default tower: 32 blocks at width 3584 for Qwen2.5-VL)
_QWEN2_5_VISION_DEFAULTS = {"depth": 32, "hidden_size": 3584, "intermediate_size": 3420,
                            "num_heads": 16, "in_channels": 3, "patch_size": 14,
                            "spatial_merge_size": 2, "temporal_patch_size": 2,
                            "window_size": 112, "out_hidden_size": 3584,
                            "fullatt_block_indexes": (7, 15, 23, 31)}
_QWEN2_VISION_DEFAULTS = {"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4,
                          "num_heads": 16, "in_channels": 3, "patch_size": 14,
                          "spatial_merge_size": 2, "temporal_patch_size": 2}
#: SGLang's DotsVisionConfig defaults (``configs/dots_vlm.py``; dots.ocr's config class builds
#: it from the file's vision_config, an absent one all defaults)
_DOTS_VISION_DEFAULTS = {"embed_dim": 1536, "hidden_size": 1536, "intermediate_size": 4224,
                         "num_hidden_layers": 42, "num_attention_heads": 12,
                         "num_channels": 3, "patch_size": 14, "spatial_merge_size": 2,
                         "temporal_patch_size": 1, "use_bias": False, "post_norm": True}
#: SGLang's KimiK3VisionConfig defaults (``configs/kimi_k3.py``: KimiK3Config builds one
#: where the file has no vision_config)
_KIMI_K3_VISION_DEFAULTS = {"patch_size": 14, "init_pos_emb_height": 64,
                            "init_pos_emb_width": 64, "init_pos_emb_time": 4,
                            "pos_emb_type": "divided_fixed", "vt_num_attention_heads": 12,
                            "vt_num_hidden_layers": 27, "vt_hidden_size": 1024,
                            "vt_intermediate_size": 4096, "merge_kernel_size": (2, 2),
                            "merge_type": "sd2_tpool", "mm_projector_type": "patchmergerv2",
                            "qkv_hidden_size": 1536, "norm_type": "rmsnorm",
                            "attn_bias": False, "patch_embed_proj_bias": False,
                            "mlp_type": "mlp2", "linear_bias": False}
#: SGLang's Step3VisionEncoderConfig defaults (``configs/step3_vl.py``)
_STEP3_VISION_DEFAULTS = {"hidden_size": 1792, "intermediate_size": 3072,
                          "output_hidden_size": 4096, "num_hidden_layers": 63,
                          "num_attention_heads": 16, "num_channels": 3, "image_size": 728,
                          "patch_size": 14}
_VISION_DEFAULTS = {**{mt: _QWEN3_VISION_DEFAULTS for mt in _QWEN3_VISION},
                    "step3_vl": _STEP3_VISION_DEFAULTS,
                    "kimi_k3": _KIMI_K3_VISION_DEFAULTS,
                    "qwen2_5_vl": _QWEN2_5_VISION_DEFAULTS, "qwen2_vl": _QWEN2_VISION_DEFAULTS,
                    "dots_ocr": _DOTS_VISION_DEFAULTS}


def filled_vision_config(model_type: str, v: Any) -> Any:
    """The vision config SGLang's config class builds for ``model_type``: a Qwen-VL-family
    file's (Qwen2-VL, Qwen2.5-VL, Qwen3-VL and its successors), dots.ocr's or Kimi K3's with
    the class's defaults under it (an absent one all defaults); others as given."""
    defaults = _VISION_DEFAULTS.get(model_type)
    if defaults is None:
        return v
    return {**defaults, **(v if isinstance(v, Mapping) else {})}


def vision_tower(v: Mapping[str, Any], model_type: str, text_hidden: int,
                 caveats: list[str], tensor: type[Tensor],
                 top: Mapping[str, Any] | None = None) -> list[Tensor]:
    """A multimodal checkpoint's vision tower, each tensor with its family's split.

    ``tensor`` is ``params.Tensor`` (passed in: ``params`` imports this module); ``top`` the
    checkpoint's top-level config, where a projector's sizes live (LFM2-VL's)."""
    fam_name = family_of(model_type, v)
    fam = FAMILIES[fam_name]
    if fam_name in ("moonvit", "moonvit_k3"):
        return _moonvit(v, text_hidden, fam, _maker(tensor, fam), fam_name == "moonvit_k3")
    h = _int(v, "hidden_size", "embed_dim")
    depth = _int(v, "depth", "num_hidden_layers")
    if not h or not depth:
        caveats.append("vision_config without hidden_size/depth: vision tower not counted")
        return []
    make = _maker(tensor, fam)
    if fam_name == "gemma4":
        return _gemma4(v, h, depth, text_hidden, fam, make)
    if fam_name == "mllama":
        return _mllama(v, h, depth, text_hidden, fam, make)
    if fam_name == "muse_glimmer":
        return _muse_glimmer(v, h, depth, text_hidden, fam, make, top or {})
    if fam_name == "glm4v":
        return _glm4v(v, h, depth, text_hidden, fam, make, ocr=model_type == "glm_ocr")
    if fam_name in ("moonvit_vl", "moonvit_kimi_vl"):
        return _moonvit_vl(v, h, depth, text_hidden, fam, make,
                           kimi_vl=fam_name == "moonvit_kimi_vl")
    if fam_name == "step3_vit":
        return _step3_vit(v, h, depth, text_hidden, fam, make, top or {})
    if fam_name == "pixtral":
        return _pixtral(v, h, depth, text_hidden, model_type, fam, make, caveats, top or {})
    if fam_name == "dots_vit":
        return _dots_vit(v, h, depth, fam, make)
    if fam_name == "internvit":
        return _internvit(v, h, depth, text_hidden, fam, make, top or {})
    if fam_name == "minimax_vl":
        return _minimax_vl(v, h, depth, text_hidden, fam, make, top or {})
    if fam_name in ("qwen3_vl", "qwen3_omni"):
        return _qwen3(v, h, depth, text_hidden, fam, make)
    if fam_name == "qwen2_5_vl":
        return _qwen2_5(v, h, depth, text_hidden, fam, make)
    if fam_name == "qwen2_vl":  # its hidden_size is the merger's output; embed_dim the width
        return _qwen2(v, _int(v, "embed_dim") or h, depth, fam, make)
    return _siglip(v, h, depth, text_hidden, model_type, fam, make, caveats, top or {},
                   fam_name)


_Make = Callable[..., list[Any]]


def _maker(tensor: type[Tensor], fam: Family) -> _Make:
    """``make(name, split, out, in_, blocks, bias=, row=)``: a linear's tensors (a
    row-parallel one's bias whole, apart), or with ``in_`` 1 a vector; ``first``: built on
    the first pipeline rank only; ``padding``: rows SGLang adds to the checkpoint's."""
    every = fam.every_stage

    def make(name: str, split: str, out: int, in_: int, blocks: tuple[int, ...] = (), *,
             bias: bool = False, row: bool = False, first: bool = False,
             padding: bool = False, heads: int = 0) -> list[Any]:
        if not out or not in_:
            return []
        stage = every and not first
        if row and bias and split != REP:
            return [tensor(name, "vision", (out, in_), blocks, shard=split, every_stage=stage,
                           padding=padding, heads=heads),
                    tensor(f"{name}.bias", "vision", (out, 1), blocks, every_stage=stage,
                           padding=padding)]
        return [tensor(name, "vision", (out, in_ + (1 if bias else 0)), blocks, shard=split,
                       every_stage=stage, padding=padding, heads=heads)]

    return make


def _qwen_geometry(v: Mapping[str, Any], h: int, text_hidden: int
                   ) -> tuple[int, int, int, int]:
    """What the Qwen-VL towers' configs share: (MLP width, a 3-D patch's input values, the
    merger's output width, its input width after the spatial merge)."""
    patch = _int(v, "patch_size", "spatial_patch_size", default=14)
    chans = _int(v, "in_channels", "in_chans", "num_channels", default=3)
    temporal = _int(v, "temporal_patch_size", default=2)
    merge = _int(v, "spatial_merge_size", default=2)
    return (_int(v, "intermediate_size"), chans * temporal * patch * patch,
            _int(v, "out_hidden_size", default=text_hidden), h * merge * merge)


def _qwen2_5(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
             make: _Make) -> list[Any]:
    """Qwen2.5-VL: an unbiased 3-D patch embedding, RMS-normed blocks of a biased qkv/proj
    and a biased gated MLP, and the merger (RMS norm, two biased linears)."""
    blocks, b = tuple(range(depth)), "visual.blocks.{i}"
    inter, patch_in, out_h, mh = _qwen_geometry(v, h, text_hidden)
    pad = -inter % 8
    return [*make("visual.patch_embed.proj", REP, h, patch_in),
            *make(f"{b}.attn.qkv", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.gate_up_proj", fam.mlp, 2 * inter, h, blocks, bias=True),
            *make(f"{b}.mlp.down_proj", fam.mlp, h, inter, blocks, bias=True, row=True),
            # the MLP width rounded up to a multiple of 8 (3420 -> 3424 on the 7B)
            *make(f"{b}.mlp.gate_up_proj.pad", fam.mlp, 2 * pad, h, blocks, bias=True,
                  padding=True),
            *make(f"{b}.mlp.down_proj.pad", fam.mlp, h, pad, blocks, padding=True),
            *make(f"{b}.norm1_norm2", REP, 2 * h, 1, blocks),
            *make("visual.merger.ln_q", REP, h, 1),
            *make("visual.merger.mlp.0", fam.merger, mh, mh, bias=True),
            *make("visual.merger.mlp.2", fam.merger, out_h, mh, bias=True, row=True)]


def _qwen2(v: Mapping[str, Any], h: int, depth: int, fam: Family, make: _Make) -> list[Any]:
    """Qwen2-VL: an unbiased 3-D patch embedding, LayerNorm blocks of a biased qkv/proj and
    a biased two-matrix MLP ``mlp_ratio`` wide, and the merger (LayerNorm, two biased
    linears) to the config's ``hidden_size``."""
    blocks, b = tuple(range(depth)), "visual.blocks.{i}"
    _, patch_in, _, mh = _qwen_geometry(v, h, 0)
    ratio = v.get("mlp_ratio", 4)
    inter = int(h * ratio) if isinstance(ratio, (int, float)) and ratio > 0 else 4 * h
    out_h = _int(v, "hidden_size") or h
    return [*make("visual.patch_embed.proj", REP, h, patch_in),
            *make(f"{b}.attn.qkv", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.norm1_norm2", REP, 4 * h, 1, blocks),  # LayerNorms: weight and bias
            *make("visual.merger.ln_q", REP, 2 * h, 1),
            *make("visual.merger.mlp.0", fam.merger, mh, mh, bias=True),
            *make("visual.merger.mlp.2", fam.merger, out_h, mh, bias=True, row=True)]


def _qwen3(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
           make: _Make) -> list[Any]:
    """Qwen3-VL (and Qwen3.5's tower): a biased 3-D patch embedding, learned position
    embeddings, LayerNorm blocks of a biased qkv/proj and a two-matrix biased MLP, the
    merger to the LM's width, and one more merger per deepstack layer (its norm after the
    2x2 shuffle)."""
    blocks, b = tuple(range(depth)), "visual.blocks.{i}"
    inter, patch_in, out_h, mh = _qwen_geometry(v, h, text_hidden)
    out = [*make("visual.patch_embed.proj", REP, h, patch_in,
                 bias=True),
           *make("visual.pos_embed", fam.pos, _int(v, "num_position_embeddings"), h,
                 first=True),
           *make(f"{b}.attn.qkv", fam.attn, 3 * h, h, blocks, bias=True),
           *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
           *make(f"{b}.mlp.linear_fc1", fam.mlp, inter, h, blocks, bias=True),
           *make(f"{b}.mlp.linear_fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
           *make(f"{b}.norm1_norm2", REP, 4 * h, 1, blocks)]
    mergers = [("visual.merger", 2 * h)]
    mergers += [(f"visual.deepstack_merger_list.{k}", 2 * mh)
                for k in range(len(v.get("deepstack_visual_indexes") or ()))]
    for name, norm in mergers:
        out += [*make(f"{name}.norm", REP, norm, 1),
                *make(f"{name}.linear_fc1", fam.merger, mh, mh, bias=True),
                *make(f"{name}.linear_fc2", fam.merger, out_h, mh, bias=True, row=True)]
    return out


def _moonvit(v: Mapping[str, Any], text_hidden: int, fam: Family, make: _Make,
             k3: bool) -> list[Any]:
    """Kimi's MoonViT: a patch embedding, a learned height x width position table, blocks
    of attention and a two-layer MLP between two norms, a final norm, and the projector
    that merges ``merge_kernel_size`` patches into the LM's width.

    K2.5 (``kimi_k25.py``): LayerNorms, biases throughout. K3 (``kimi_k3_vl.py``): the
    config's ``qkv_hidden_size``, ``attn_bias``, ``linear_bias``, ``patch_embed_proj_bias``
    and ``norm_type``, and a projector of two unbiased linears and an RMS norm after them."""
    h = _int(v, "vt_hidden_size")
    depth = _int(v, "vt_num_hidden_layers")
    inter = _int(v, "vt_intermediate_size")
    patch = _int(v, "patch_size", default=14)
    merge = v.get("merge_kernel_size") or (2, 2)
    mh = h * int(merge[0]) * int(merge[1])
    positions = _int(v, "init_pos_emb_height", default=64) * _int(v, "init_pos_emb_width",
                                                                   default=64)
    out_h = _int(v, "text_hidden_size") or text_hidden
    blocks = tuple(range(depth))
    b = "vision_tower.encoder.blocks.{i}"
    if not k3:
        return [*make("vision_tower.patch_embed.proj", REP, h, 3 * patch * patch, bias=True),
                *make("vision_tower.patch_embed.pos_emb", REP, positions, h),
                *make(f"{b}.attn.qkv", fam.attn, 3 * h, h, blocks, bias=True),
                *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
                *make(f"{b}.mlp.fc0", fam.mlp, inter, h, blocks, bias=True),
                *make(f"{b}.mlp.fc1", fam.mlp, h, inter, blocks, bias=True, row=True),
                *make(f"{b}.norms", REP, 4 * h, 1, blocks),
                *make("vision_tower.encoder.final_layernorm", REP, 2 * h, 1),
                *make("mm_projector.pre_norm", REP, 2 * h, 1),
                *make("mm_projector.linear_1", fam.merger, mh, mh, bias=True),
                *make("mm_projector.linear_2", fam.merger, out_h, mh, bias=True, row=True)]
    qh = _int(v, "qkv_hidden_size") or h
    attn_bias = v.get("attn_bias", True) is not False
    mlp_bias = v.get("linear_bias", True) is not False
    norm = (1 if v.get("norm_type") == "rmsnorm" else 2) * h  # weight (and a LayerNorm's bias)
    return [*make("vision_tower.patch_embed.proj", REP, h, 3 * patch * patch,
                  bias=v.get("patch_embed_proj_bias", True) is not False),
            *make("vision_tower.patch_embed.pos_emb", REP, positions, h),
            *make(f"{b}.wqkv", fam.attn, 3 * qh, h, blocks, bias=attn_bias),
            *make(f"{b}.wo", fam.attn, h, qh, blocks, bias=attn_bias, row=True),
            *make(f"{b}.mlp.fc0", fam.mlp, inter, h, blocks, bias=mlp_bias),
            *make(f"{b}.mlp.fc1", fam.mlp, h, inter, blocks, bias=mlp_bias, row=True),
            *make(f"{b}.norms", REP, 2 * norm, 1, blocks),
            *make("vision_tower.encoder.final_layernorm", REP, norm, 1),
            *make("mm_projector.proj.0", fam.merger, mh, mh),
            *make("mm_projector.proj.2", fam.merger, out_h, mh, row=True),
            *make("mm_projector.post_norm", REP, out_h, 1)]


def _gemma4(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
            make: _Make) -> list[Any]:
    """Gemma 4 (``gemma4_vision.py``, ``gemma4_mm.py``): a linear patch embedding with a
    two-axis position table, blocks of four RMS norms, q/k norms, a fused qkv and o
    projection and a gated MLP, and the embedder projecting into the LM."""
    heads = _int(v, "num_attention_heads", default=16)
    kv = _int(v, "num_key_value_heads", default=heads) or heads
    hd = _int(v, "head_dim") or h // max(heads, 1)
    inter = _int(v, "intermediate_size")
    patch = _int(v, "patch_size", "spatial_patch_size", default=14)
    blocks = tuple(range(depth))
    b = "vision_tower.encoder.layers.{i}"
    return [*make("vision_tower.patch_embedder.input_proj", REP, h, 3 * patch * patch),
            *make("vision_tower.patch_embedder.position_embedding_table", fam.pos,
                  2 * _int(v, "position_embedding_size", default=10240), h),
            *make(f"{b}.self_attn.qkv", fam.attn, (heads + 2 * kv) * hd, h, blocks),
            *make(f"{b}.self_attn.o_proj", fam.attn, h, heads * hd, blocks, row=True),
            *make(f"{b}.self_attn.qk_norms", REP, 2 * hd, 1, blocks),
            *make(f"{b}.mlp.gate_up", fam.mlp, 2 * inter, h, blocks),
            *make(f"{b}.mlp.down_proj", fam.mlp, h, inter, blocks, row=True),
            *make(f"{b}.norms", REP, 4 * h, 1, blocks),
            *make("embed_vision.embedding_projection", fam.merger, text_hidden, h)]


def _muse_glimmer(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
                  make: _Make, top: Mapping[str, Any]) -> list[Any]:
    """Muse Glimmer's tower (``muse_glimmer.py``): an unbiased linear over ``patch_temporal``
    3-channel patches, a ``pos_emb_height`` x ``pos_emb_width`` position grid, LayerNorms
    before and after LayerNorm blocks of biased attention and MLP; then the vision adapter
    (two unbiased linears from ``out_hidden_size`` through ``projector_hidden_size``) and the
    unbiased projection to the text width, sized by the top config (MuseGlimmerConfig's
    defaults). Not modelled: the adapter's width padded to a multiple of 32 a GPU when TP does
    not divide it."""
    inter = _int(v, "intermediate_size")
    patch = _int(v, "patch_size", default=14)
    values = _int(v, "patch_temporal", default=2) * 3 * patch * patch
    grid = _int(v, "pos_emb_height", default=32) * _int(v, "pos_emb_width", default=32)
    wide = _int(top, "out_hidden_size", default=6144)
    mid = _int(top, "projector_hidden_size", default=4096)
    blocks, b = tuple(range(depth)), "vision_tower.layers.{i}"
    return [*make("vision_tower.patch_embedder.patch_embedding", REP, h, values),
            *make("vision_tower.patch_embedder.position_embedding_table", fam.pos, grid, h),
            *make("vision_tower.ln_pre_post", REP, 4 * h, 1),
            *make(f"{b}.attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.norms", REP, 4 * h, 1, blocks),
            *make("vision_adapter.fc1", fam.merger, mid, wide),
            *make("vision_adapter.fc2", fam.merger, mid, mid, row=True),
            *make("vision_projection", REP, text_hidden, mid)]


def _mllama(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
            make: _Make) -> list[Any]:
    """Llama 3.2 Vision's tower (``MllamaVisionModel``): an unbiased patch linear, a class
    embedding, a position table and a tile-position table per supported aspect ratio (each
    ``max_num_tiles`` x patches x h wide), pre- and post-tile tables, two LayerNorms, the
    local blocks and the gated global blocks (biased attention and MLP, two LayerNorms, a
    gate pair on the global ones), and the projector from the stacked intermediate outputs.
    Sizes the config leaves out take transformers' ``MllamaVisionConfig`` defaults."""
    inter = _int(v, "intermediate_size", default=5120)
    patch = _int(v, "patch_size", default=14)
    chans = _int(v, "num_channels", default=3)
    tiles = _int(v, "max_num_tiles", default=4)
    patches = (_int(v, "image_size", default=448) // max(patch, 1)) ** 2 + 1
    ratios = v.get("supported_aspect_ratios")
    ids = (len(ratios) if isinstance(ratios, (list, tuple)) else 8) + 1  # max_aspect_ratio_id+1
    n_global = _int(v, "num_global_layers", default=8)
    blocks = tuple(range(depth + n_global))
    b = "vision_model.blocks.{i}"
    return [*make("vision_model.patch_embedding", fam.mlp, h, chans * patch * patch),
            *make("vision_model.class_embedding", REP, h, 1),
            *make("vision_model.gated_positional_embedding", REP, patches, h),
            *make("vision_model.gated_positional_embedding.tile_embedding", REP, ids,
                  tiles * patches * h),
            *make("vision_model.tile_positional_embeddings", REP, 2 * ids, tiles * h),
            *make("vision_model.gates", REP, 3 + 2 * n_global, 1),
            *make("vision_model.layernorms", REP, 4 * h, 1),
            *make(f"{b}.self_attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.self_attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.layer_norms", REP, 4 * h, 1, blocks),
            *make("multi_modal_projector", fam.merger, text_hidden,
                  _int(v, "vision_output_dim", default=7680), bias=True)]


def _glm4v(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
           make: _Make, ocr: bool = False) -> list[Any]:
    """GLM-4.1V / GLM-4.5V: a biased 3-D patch embedding, a position table of the image's
    patches, RMS-normed blocks of attention (biased qkv only with ``attention_bias``) and an
    unbiased gated MLP as wide as ``out_hidden_size``, two RMS norms around a biased 2x2
    downsample convolution to ``out_hidden_size``, and the merger: an unbiased projection, a
    LayerNorm and an unbiased gated MLP as wide as the vision ``intermediate_size``. The
    attention is split by heads, padded with dummy heads when the attention-TP group does
    not divide them (12 heads over 8 GPUs: 2 a GPU).

    ``ocr``: GLM-OCR's blocks (``glm_ocr.py`` ``GlmOcrVisionBlock``): a biased output
    projection, per-head q/k RMS norms, and a biased gated MLP as wide as the vision
    ``intermediate_size``; its merger as wide as ``projection_intermediate_size`` when the
    config names one. Its class builds GLM-4V's tower first and replaces the blocks, so the
    position table and the post-convolution norm stay allocated."""
    patch = _int(v, "patch_size", default=14)
    chans = _int(v, "in_channels", default=3)
    temporal = _int(v, "temporal_patch_size", default=2)
    merge = _int(v, "spatial_merge_size", default=2)
    positions = (_int(v, "image_size", default=336) // max(patch, 1)) ** 2
    out_h = _int(v, "out_hidden_size", default=text_hidden)
    ctx = _int(v, "intermediate_size")
    qkv_bias = bool(v.get("attention_bias", False))
    heads = _int(v, "num_heads", "num_attention_heads")
    attn = HEADS if fam.attn == ATTN and heads else fam.attn
    blocks, b = tuple(range(depth)), "visual.blocks.{i}"
    mlp = ctx if ocr else out_h
    if ocr:
        ctx = _int(v, "projection_intermediate_size") or ctx
    return [*make("visual.patch_embed.proj", REP, h, chans * temporal * patch * patch,
                  bias=True),
            *make("visual.embeddings.position_embedding", REP, positions, h),
            *make(f"{b}.attn.qkv", attn, 3 * h, h, blocks, bias=qkv_bias, heads=heads),
            *make(f"{b}.attn.proj", attn, h, h, blocks, bias=ocr, row=True, heads=heads),
            *make(f"{b}.attn.q_norm_k_norm", REP, 2 * (h // max(heads, 1)) if ocr else 0,
                  1, blocks),
            *make(f"{b}.mlp.gate_up_proj", fam.mlp, 2 * mlp, h, blocks, bias=ocr),
            *make(f"{b}.mlp.down_proj", fam.mlp, h, mlp, blocks, bias=ocr, row=True),
            *make(f"{b}.norm1_norm2", REP, 2 * h, 1, blocks),
            *make("visual.post_conv_layernorm_post_layernorm", REP, 2 * h, 1),
            *make("visual.downsample", REP, out_h, h * merge * merge, bias=True),
            *make("visual.merger.proj", REP, out_h, out_h),
            *make("visual.merger.post_projection_norm", REP, 2 * out_h, 1),
            *make("visual.merger.gate_up_proj", fam.merger, 2 * ctx, out_h),
            *make("visual.merger.down_proj", fam.merger, out_h, ctx)]


def _moonvit_vl(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
                make: _Make, kimi_vl: bool = False) -> list[Any]:
    """Kimi-VL's MoonViT (its own class, or under LocateAnything): a biased patch
    convolution, an ``init_pos_emb_height`` x ``init_pos_emb_width`` position table,
    LayerNorm blocks of biased attention and a biased two-layer MLP, a final LayerNorm.
    LocateAnything's projector: a LayerNorm over the ``merge_kernel_size`` patches merged,
    then two biased linears to the text model's width; Kimi-VL's (``kimi_vl``): a LayerNorm
    over one patch, a biased merged -> merged linear, then merged -> text width."""
    patch = _int(v, "patch_size", default=14)
    positions = _int(v, "init_pos_emb_height", default=64) * _int(v, "init_pos_emb_width",
                                                                   default=64)
    inter = _int(v, "intermediate_size")
    merge = v.get("merge_kernel_size") or (2, 2)
    mh = h * int(merge[0]) * int(merge[1])
    blocks, b = tuple(range(depth)), "vision_tower.encoder.blocks.{i}"
    return [*make("vision_tower.patch_embed.proj", REP, h, 3 * patch * patch, bias=True),
            *make("vision_tower.patch_embed.pos_emb", REP, positions, h),
            *make(f"{b}.attn.qkv", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.fc0", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc1", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.norm0_norm1", REP, 4 * h, 1, blocks),
            *make("vision_tower.encoder.final_layernorm", REP, 2 * h, 1),
            *_moonvit_vl_projector(mh, h, text_hidden, make, kimi_vl)]


def _moonvit_vl_projector(mh: int, h: int, text_hidden: int, make: _Make,
                          kimi_vl: bool) -> list[Any]:
    if kimi_vl:
        return [*make("multi_modal_projector.pre_norm", REP, 2 * h, 1),
                *make("multi_modal_projector.linear_1", REP, mh, mh, bias=True),
                *make("multi_modal_projector.linear_2", REP, text_hidden, mh, bias=True)]
    return [*make("multi_modal_projector.pre_norm", REP, 2 * mh, 1),
            *make("multi_modal_projector.linear_1", REP, text_hidden, mh, bias=True),
            *make("multi_modal_projector.linear_2", REP, text_hidden, text_hidden, bias=True)]


def _step3_vit(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
               make: _Make, top: Mapping[str, Any]) -> list[Any]:
    """Step3's ViT and projector (``step3_vl.py``): a class embedding, a biased patch
    convolution and a table of (image_size / patch_size)² + 1 positions; LayerNorm blocks of
    VisionAttention's biased qkv/proj and a biased two-layer MLP. Each block's
    Step3VisionAttention also allocates a biased ``out_proj`` (row-parallel over TP) that the
    loader never fills (the checkpoint's out_proj loads into VisionAttention's proj): memory,
    not the checkpoint's. Then two biased convolutions (kernel 2 to output_hidden_size, kernel
    3 to twice that) and a linear to the text width, biased under ``projector_bias``
    (default on)."""
    inter = _int(v, "intermediate_size")
    patch = _int(v, "patch_size", default=14)
    chans = _int(v, "num_channels", default=3)
    grid = _int(v, "image_size", default=728) // max(1, patch)
    out_h = _int(v, "output_hidden_size", default=4096)
    blocks, b = tuple(range(depth)), "vision_model.transformer.layers.{i}"
    return [*make("vision_model.embeddings.class_embedding", REP, h, 1),
            *make("vision_model.embeddings.patch_embedding", REP, h, chans * patch * patch,
                  bias=True),
            *make("vision_model.embeddings.position_embedding", fam.pos, grid * grid + 1, h),
            *make(f"{b}.self_attn.attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.self_attn.attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.self_attn.out_proj", "tp", h, h, blocks, bias=True, row=True,
                  padding=True),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.layer_norm1_layer_norm2", REP, 4 * h, 1, blocks),
            *make("vit_downsampler", REP, out_h, h * 2 * 2, bias=True),
            *make("vit_downsampler2", REP, 2 * out_h, out_h * 3 * 3, bias=True),
            *make("vit_large_projector", REP, text_hidden, 2 * out_h,
                  bias=top.get("projector_bias", True) is not False)]


def _pixtral(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, model_type: str,
             fam: Family, make: _Make, caveats: list[str],
             top: Mapping[str, Any]) -> list[Any]:
    """Pixtral's tower (``pixtral.py`` ``PixtralHFVisionModel``): an unbiased patch
    convolution, an RMS norm before the blocks, RMS-normed blocks of unbiased attention and
    an unbiased gated MLP (no position table: 2-D RoPE); and the projector its model class
    adds. Mistral 3's (transformers' ``Mistral3MultiModalProjector``, which LightOnOCR's
    norm, patch merger and adapter match tensor for tensor): an RMS norm, the unbiased
    ``spatial_merge_size``² patch merger, then two linears to the text width, biased with
    ``multimodal_projector_bias`` (default on); LLaVA's: the two linears alone."""
    inter = _int(v, "intermediate_size")
    patch = _int(v, "patch_size", default=16)
    chans = _int(v, "num_channels", default=3)
    layers = top.get("vision_feature_layer", -1)
    feats = len(layers) if isinstance(layers, (list, tuple)) and layers else 1
    bias = top.get("multimodal_projector_bias", True) is not False
    blocks, b = tuple(range(depth)), "vision_tower.transformer.layers.{i}"
    out = [*make("vision_tower.patch_conv", REP, h, chans * patch * patch),
           *make("vision_tower.ln_pre", REP, h, 1),
           *make(f"{b}.attention.qkv_proj", fam.attn, 3 * h, h, blocks),
           *make(f"{b}.attention.proj", fam.attn, h, h, blocks, row=True),
           *make(f"{b}.feed_forward.gate_up_proj", fam.mlp, 2 * inter, h, blocks),
           *make(f"{b}.feed_forward.down_proj", fam.mlp, h, inter, blocks, row=True),
           *make(f"{b}.attention_norm_ffn_norm", REP, 2 * h, 1, blocks)]
    m = "multi_modal_projector"
    if model_type == "mistral3":
        merge = _int(top, "spatial_merge_size", default=2)
        out += [*make(f"{m}.norm", REP, h, 1),
                *make(f"{m}.patch_merger.merging_layer", REP, h, h * merge * merge)]
    elif model_type != "llava":
        caveats.append(f"vision projector of model_type {model_type!r} not counted")
        return out
    return [*out, *make(f"{m}.linear_1", REP, text_hidden, h * feats, bias=bias),
            *make(f"{m}.linear_2", REP, text_hidden, text_hidden, bias=bias)]


def _dots_vit(v: Mapping[str, Any], h: int, depth: int, fam: Family,
              make: _Make) -> list[Any]:
    """dots.ocr's ViT at its embed_dim: a biased conv patch embedding and its RMS norm,
    RMS-normed blocks of attention and a SwiGLU MLP (fc1/fc3 in, fc2 out; biased only with
    use_bias), the post-trunk RMS norm (post_norm), and the merger: a LayerNorm and two biased
    linears over the spatial_merge_size² merged patches, out to the config's hidden_size."""
    e = _int(v, "embed_dim") or h
    out_h = _int(v, "hidden_size") or e
    patch = _int(v, "patch_size", default=14)
    chans = _int(v, "num_channels", default=3)
    temporal = _int(v, "temporal_patch_size", default=1)
    merge = _int(v, "spatial_merge_size", default=2)
    inter = _int(v, "intermediate_size")
    bias = bool(v.get("use_bias", False))
    heads = _int(v, "num_attention_heads")
    attn = HEADS if heads else fam.attn
    blocks, b = tuple(range(depth)), "visual.blocks.{i}"
    wide = e * merge * merge
    return [*make("visual.patch_embed.proj", REP, e, chans * temporal * patch * patch,
                  bias=True),
            *make("visual.patch_embed.norm", REP, e, 1),
            *make(f"{b}.attn.qkv_proj", attn, 3 * e, e, blocks, bias=bias, heads=heads),
            *make(f"{b}.attn.proj", attn, e, e, blocks, bias=bias, row=True, heads=heads),
            *make(f"{b}.mlp.fc1_fc3", fam.mlp, 2 * inter, e, blocks, bias=bias),
            *make(f"{b}.mlp.fc2", fam.mlp, e, inter, blocks, bias=bias),
            *make(f"{b}.norm1_norm2", REP, 2 * e, 1, blocks),
            *make("visual.post_trunk_norm", REP, e if v.get("post_norm", True) else 0, 1),
            *make("visual.merger.ln_q", REP, 2 * e, 1),
            *make("visual.merger.mlp.0", fam.merger, wide, wide, bias=True),
            *make("visual.merger.mlp.2", fam.merger, out_h, wide, bias=True)]


#: SGLang's InternVisionConfig defaults (``configs/internvl.py``, InternViT-6B's), for the
#: keys a vision_config leaves out; ``norm_type`` has none there: InternViT-6B's "rms_norm"
_INTERNVIT_DEFAULTS = {"qkv_bias": False, "qk_normalization": True, "image_size": 224,
                       "patch_size": 14, "norm_type": "rms_norm"}


def _internvit(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
               make: _Make, top: Mapping[str, Any]) -> list[Any]:
    """InternVL's InternViT (``internvl.py``): a biased patch convolution over 3 channels, a
    class token and a position table of the image's patches plus one; blocks of attention
    (qkv biased with ``qkv_bias``, the output projection always; q/k RMS norms over the whole
    width with ``qk_normalization``), a biased MLP, two norms per ``norm_type`` (LayerNorm
    with biases, RMSNorm without) and the layer-scale vectors ls1/ls2; then InternVLChatModel's
    ``mlp1``: a LayerNorm and two biased linears over the pixel-shuffled patches
    (width x (1/downsample_ratio)² -> text width -> text width)."""
    def key(name: str) -> Any:
        return v.get(name, _INTERNVIT_DEFAULTS.get(name))

    inter = _int(v, "intermediate_size")
    patch = _int(v, "patch_size", default=14)
    image = _int(v, "image_size", default=224)
    heads = _int(v, "num_attention_heads", "num_heads")
    attn = HEADS if heads else fam.attn
    qkv_bias = bool(key("qkv_bias") or v.get("attention_bias"))
    qk_norm = bool(key("qk_normalization") or v.get("use_qk_norm"))
    norm = 4 * h if key("norm_type") == "layer_norm" else 2 * h
    ratio = top.get("downsample_ratio", 0.5)
    shuffle = int(1 / ratio) if isinstance(ratio, (int, float)) and ratio > 0 else 2
    wide = h * shuffle * shuffle
    blocks, b = tuple(range(depth)), "vision_model.encoder.layers.{i}"
    e = "vision_model.embeddings"
    return [*make(f"{e}.patch_embedding", REP, h, 3 * patch * patch, bias=True),
            *make(f"{e}.class_embedding", REP, h, 1),
            *make(f"{e}.position_embedding", REP, (image // max(patch, 1)) ** 2 + 1, h),
            *make(f"{b}.attn.qkv_proj", attn, 3 * h, h, blocks, bias=qkv_bias, heads=heads),
            *make(f"{b}.attn.proj", attn, h, h, blocks, bias=True, row=True, heads=heads),
            *make(f"{b}.attn.q_norm_k_norm", REP, 2 * h if qk_norm else 0, 1, blocks),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.norm1_norm2", REP, norm, 1, blocks),
            *make(f"{b}.ls1_ls2", REP, 2 * h, 1, blocks),
            *make("mlp1.0", REP, 2 * wide, 1),
            *make("mlp1.1", fam.merger, text_hidden, wide, bias=True),
            *make("mlp1.3", fam.merger, text_hidden, text_hidden, bias=True)]


def _minimax_vl(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, fam: Family,
                make: _Make, top: Mapping[str, Any]) -> list[Any]:
    """MiniMax-M3-VL's tower: a bias-free Conv3d patch embedding over temporal_patch_size
    frames (``img_token_compression_config``, default 2), LayerNorms before and after CLIP
    blocks of biased attention and MLP, then a two-linear projector (vision width ->
    projector_hidden_size -> text width) and a two-linear patch merger over the
    spatial_merge_size² merged patches (text width x merge² -> projector_hidden_size -> text
    width), biased unless multimodal_projector_bias / patch_merge_bias say not."""
    comp = v.get("img_token_compression_config") or top.get("img_token_compression_config")
    comp = comp if isinstance(comp, Mapping) else {}
    temporal = _int(comp, "temporal_patch_size", default=2)
    merge = _int(comp, "spatial_merge_size", default=2)
    patch = _int(v, "patch_size", default=14)
    chans = _int(v, "num_channels", default=3)
    inter = _int(v, "intermediate_size")
    mid = _int(top, "projector_hidden_size") or text_hidden
    proj_bias = bool(top.get("multimodal_projector_bias", True))
    merge_bias = bool(top.get("patch_merge_bias", True))
    blocks = tuple(range(depth))
    b = "vision_tower.blocks.{i}"
    m = "vision_tower.multi_modal_projector"
    g = "vision_tower.patch_merge_mlp"
    return [*make("vision_tower.patch_embedding", REP, h, chans * temporal * patch * patch),
            *make("vision_tower.pre_post_layernorms", REP, 4 * h, 1),
            *make(f"{b}.self_attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
            *make(f"{b}.self_attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
            *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
            *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
            *make(f"{b}.layer_norms", REP, 4 * h, 1, blocks),
            *make(f"{m}.linear_1", fam.merger, mid, h, bias=proj_bias),
            *make(f"{m}.linear_2", fam.merger, text_hidden, mid, bias=proj_bias, row=True),
            *make(f"{g}.linear_1", fam.merger, mid, text_hidden * merge * merge,
                  bias=merge_bias),
            *make(f"{g}.linear_2", fam.merger, text_hidden, mid, bias=merge_bias, row=True)]


def _siglip(v: Mapping[str, Any], h: int, depth: int, text_hidden: int, model_type: str,
            fam: Family, make: _Make, caveats: list[str],
            top: Mapping[str, Any], fam_name: str = "siglip") -> list[Any]:
    """A SigLIP-style encoder (Gemma 3's; also taken for the towers not told apart):
    biased conv patch embedding, a position table (SigLIP 2's ``num_patches`` long, default
    256), LayerNorm blocks of biased attention and MLP, a final LayerNorm; Gemma 3's projector
    (a matrix and an RMS norm) or LFM2-VL's (``lfm2_vl.py``: over the pixel-unshuffled
    ``downsample_factor``² patches, an optional LayerNorm and two linears, sized by the top
    config's ``projector_*`` keys with Lfm2VlConfig's defaults).

    PaddleOCR-VL's (``paddleocr_vl.py``) adds a 32,768-row packing position table and
    ends in ``mlp_AR``: a LayerNorm, then two biased linears over the 2x2-merged patches
    (4h -> 4h -> the text width). Command A Vision's (``cohere2_vision.py``): transformers'
    SiglipVisionModel, and an alignment SwiGLU over the pixel-shuffled ``downsample_factor``²
    patches (``alignment_intermediate_size`` the gate and value halves together), biased.
    MiniCPM-V's and MiniCPM-o's (Idefics2's tower) end in their resampler
    (``_minicpm_resampler``), one block fewer where ``drop_vision_last_layer`` says so."""
    inter = _int(v, "intermediate_size")
    if fam_name == "idefics2" and top.get("drop_vision_last_layer"):
        depth -= 1  # (MiniCPM-V's class drops the last block once built: its memory is freed)
    patch = _int(v, "patch_size", "spatial_patch_size", default=14)
    chans = _int(v, "in_channels", "in_chans", "num_channels", default=3)
    image = _int(v, "image_size", default=224)
    positions = (image // max(patch, 1)) ** 2
    if v.get("model_type") == "siglip2_vision_model":
        positions = _int(v, "num_patches", default=256)
    blocks = tuple(range(depth))
    b = "vision_tower.blocks.{i}"
    out = [*make("vision_tower.patch_embedding", REP, h, chans * patch * patch, bias=True),
           *make("vision_tower.position_embedding", fam.pos, positions, h),
           *make(f"{b}.self_attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
           *make(f"{b}.self_attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
           *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
           *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
           *make(f"{b}.layer_norms", REP, 4 * h, 1, blocks),
           *make("vision_tower.post_layernorm", REP, 2 * h, 1)]
    if fam_name == "paddleocr_vl":
        wide = 4 * h  # (Projector's fixed 2x2 merge_kernel_size)
        out += [*make("visual.embeddings.packing_position_embedding", REP, 32768, h),
                *make("mlp_AR.pre_norm", REP, 2 * h, 1),
                *make("mlp_AR.linear_1", REP, wide, wide, bias=True),
                *make("mlp_AR.linear_2", REP, text_hidden, wide, bias=True)]
    elif fam_name == "idefics2":
        out += _minicpm_resampler(top, h, text_hidden, make)
    elif fam_name == "hf_siglip":
        wide = h * _int(top, "downsample_factor", default=2) ** 2
        half = _int(top, "alignment_intermediate_size") // 2
        out += [*make("multi_modal_projector.linear_1", fam.merger, 2 * half, wide, bias=True),
                *make("multi_modal_projector.linear_2", fam.merger, text_hidden, half,
                      bias=True, row=True)]
    elif model_type == "gemma3":
        out += [*make("multi_modal_projector.mm_input_projection", fam.merger, h,
                      text_hidden),
                *make("multi_modal_projector.mm_soft_emb_norm", REP, h, 1)]
    elif model_type == "lfm2_vl":
        wide = h * _int(top, "downsample_factor", default=2) ** 2
        mid = _int(top, "projector_hidden_size", default=2560)
        bias = bool(top.get("projector_bias", True))
        m = "multi_modal_projector"
        if top.get("projector_use_layernorm", True):
            out += make(f"{m}.layer_norm", REP, 2 * wide, 1)
        out += [*make(f"{m}.linear_1", TP, mid, wide, bias=bias),
                *make(f"{m}.linear_2", TP, text_hidden, mid, bias=bias, row=True)]
    else:
        caveats.append(f"vision projector of model_type {model_type!r} not counted")
    return out


#: the position tables MiniCPM-V's resamplers keep as buffers (``minicpmv.py``): a 70 x 70
#: grid (their default ``max_size``), and Resampler4_5's (version 4.5) 36,000 frame times
_RESAMPLER_GRID = 70 * 70
_RESAMPLER_TIMES = 36000


def _minicpm_resampler(top: Mapping[str, Any], vision: int, text_hidden: int,
                       make: _Make) -> list[Any]:
    """MiniCPM-V's and MiniCPM-o's resampler (``minicpmv.py`` BaseResampler), plain modules
    whole on every GPU in the model's dtype: ``query_num`` learned queries of the text
    width, a bias-free projection from the vision width (where the two differ), an
    ``nn.MultiheadAttention`` (a biased 3x in-projection and a biased out-projection), three
    LayerNorms and a square output projection; beside them its sin-cos position tables,
    buffers (allocated, not stored) cast to the model's dtype with the module: the 2-D grid,
    and MiniCPM-V 4.5's Resampler4_5 the temporal one too."""
    e = text_hidden
    if not e:
        return []
    out = [*make("resampler.query", REP, _int(top, "query_num", default=64), e),
           *make("resampler.attn.in_proj", REP, 3 * e, e, bias=True),
           *make("resampler.attn.out_proj", REP, e, e, bias=True),
           *make("resampler.ln_q_kv_post", REP, 6 * e, 1),
           *make("resampler.proj", REP, e, e)]
    if vision != e:
        out += make("resampler.kv_proj", REP, e, vision)
    # (MiniCPM-o's class builds Resampler2_5 whatever its version says)
    v4_5 = top.get("model_type") == "minicpmv" and str(top.get("version")) == "4.5"
    rows = _RESAMPLER_GRID + (_RESAMPLER_TIMES if v4_5 else 0)
    return out + [t._replace(padding=True, buffer=True)
                  for t in make("resampler.pos_embed", REP, rows, e)]


#: Qwen2-Audio's encoder config class (transformers' Qwen2AudioEncoderConfig) defaults
_QWEN2_AUDIO = {"d_model": 1280, "encoder_layers": 32, "encoder_ffn_dim": 5120,
                "num_mel_bins": 128, "max_source_positions": 1500}


#: transformers' Qwen3OmniMoeAudioEncoderConfig defaults (5.19 and 5.24 alike), which fill in
#: what a Qwen3-ASR file leaves out of its audio config
QWEN3_OMNI_AUDIO = {"num_mel_bins": 128, "encoder_layers": 32, "encoder_attention_heads": 20,
                    "encoder_ffn_dim": 5120, "d_model": 1280, "max_source_positions": 1500,
                    "n_window": 50, "output_dim": 3584, "n_window_infer": 800,
                    "conv_chunksize": 500, "downsample_hidden_size": 480}


def audio_tower(a: Mapping[str, Any], caveats: list[str], tensor: type[Tensor],
                text_hidden: int = 0) -> list[Tensor]:
    """An audio encoder: Qwen2-Audio's (``_qwen2_audio``) or Qwen3-Omni's
    (``qwen3_omni_moe.py`` ``Qwen3OmniMoeAudioEncoder``): three stride-2 3x3 convolutions
    over the mel bins, a linear from the flattened channels to ``d_model``, encoder layers
    of a biased ``VisionAttention``
    (QKV-parallel over attention TP) and a biased fc1/fc2 pair over TP between two
    LayerNorms, a final LayerNorm and two biased linears to the thinker's width. The
    convolutions and the projections are replicated. Not modelled: SGLang replicates fc1/fc2
    when TP does not divide ``encoder_ffn_dim``."""
    if a.get("model_type") == "qwen2_audio_encoder":
        return _qwen2_audio({**_QWEN2_AUDIO, **a}, text_hidden, tensor)
    if a.get("model_type") == "glmasr_encoder":
        return _glmasr_audio(a, text_hidden, caveats, tensor)
    if a.get("model_type") != "qwen3_omni_moe_audio_encoder":
        caveats.append(f"audio tower of model_type {a.get('model_type')!r} not counted")
        return []
    d = _int(a, "d_model")
    depth = _int(a, "encoder_layers")
    ffn = _int(a, "encoder_ffn_dim")
    ch = _int(a, "downsample_hidden_size")
    if not d or not depth or not ffn or not ch:
        caveats.append("audio_config without d_model/encoder_layers: audio tower not counted")
        return []
    mels = _int(a, "num_mel_bins", default=128)
    freq = mels
    for _ in range(3):  # each stride-2 convolution (padding 1) halves the mel axis, rounded up
        freq = (freq + 1) // 2
    out = _int(a, "output_dim", default=d)

    def mat(name: str, split: str, rows: int, cols: int, blocks: tuple[int, ...] = ()
            ) -> Tensor:
        return tensor(name, "audio", (rows, cols), blocks, shard=split, every_stage=True)

    blocks, b = tuple(range(depth)), "audio_tower.layers.{i}"
    return [mat("audio_tower.conv2d1", REP, ch, 9 + 1),
            mat("audio_tower.conv2d2_conv2d3", REP, 2 * ch, 9 * ch + 1),
            mat("audio_tower.conv_out", REP, d, ch * freq),
            mat(f"{b}.self_attn.qkv_proj", "attn_tp", 3 * d, d + 1, blocks),
            mat(f"{b}.self_attn.proj", "attn_tp", d, d, blocks),
            mat(f"{b}.self_attn.proj.bias", REP, d, 1, blocks),
            mat(f"{b}.fc1", "tp", ffn, d + 1, blocks),
            mat(f"{b}.fc2", "tp", d, ffn, blocks),
            mat(f"{b}.fc2.bias", REP, d, 1, blocks),
            mat(f"{b}.layer_norms", REP, 4 * d, 1, blocks),
            mat("audio_tower.ln_post", REP, 2 * d, 1),
            mat("audio_tower.proj1", REP, d, d + 1),
            mat("audio_tower.proj2", REP, out, d + 1)]


def _whisper_encoder(a: Mapping[str, Any], prefix: str, tensor: type[Tensor]
                     ) -> list[Tensor]:
    """A Whisper-style encoder as transformers builds it, whole on every GPU: two biased
    width-3 convolutions over the mel bins, a learned position table of
    ``max_source_positions``, layers of q/k/v/out projections (k unbiased) and a biased
    fc1/fc2 pair after their LayerNorms, and a final LayerNorm."""
    d, ffn = _int(a, "d_model"), _int(a, "encoder_ffn_dim")
    blocks, b = tuple(range(_int(a, "encoder_layers"))), prefix + ".layers.{i}"

    def mat(name: str, rows: int, cols: int, blocks: tuple[int, ...] = ()) -> Tensor:
        return tensor(name, "audio", (rows, cols), blocks, every_stage=True)

    return [mat(f"{prefix}.conv1", d, 3 * _int(a, "num_mel_bins") + 1),
            mat(f"{prefix}.conv2", d, 3 * d + 1),
            mat(f"{prefix}.embed_positions", _int(a, "max_source_positions"), d),
            mat(f"{b}.self_attn.q_v_out_proj", 3 * d, d + 1, blocks),
            mat(f"{b}.self_attn.k_proj", d, d, blocks),
            mat(f"{b}.fc1", ffn, d + 1, blocks),
            mat(f"{b}.fc2", d, ffn + 1, blocks),
            mat(f"{b}.layer_norms", 4 * d, 1, blocks),
            mat(f"{prefix}.layer_norm", 2 * d, 1)]


def _qwen2_audio(a: Mapping[str, Any], text_hidden: int, tensor: type[Tensor]
                 ) -> list[Tensor]:
    """Qwen2-Audio's Whisper-style encoder and projector, transformers' own modules
    (``qwen2_audio.py`` builds ``Qwen2AudioEncoder`` and ``Qwen2AudioMultiModalProjector``, so
    every tensor is whole on every GPU): the encoder and one biased linear to the text
    width."""
    projector = tensor("multi_modal_projector.linear", "audio",
                       (text_hidden, _int(a, "d_model") + 1), (), every_stage=True)
    return [*_whisper_encoder(a, "audio_tower", tensor), projector]


#: transformers' WhisperConfig defaults for the encoder keys MiniCPM-o's tower reads (the
#: checkpoint's config class builds ``audio_config`` as a WhisperConfig)
_WHISPER_ENCODER = {"d_model": 256, "encoder_layers": 4, "encoder_ffn_dim": 1536,
                    "num_mel_bins": 80, "max_source_positions": 1500}


def minicpmo_audio(config: Mapping[str, Any], text_hidden: int, tensor: type[Tensor]
                   ) -> list[Tensor]:
    """MiniCPM-o's audio tower (``minicpmo.py``): transformers' WhisperEncoder with MiniCPM's
    layers, whole on every GPU, and ``audio_projection_layer``: two biased linears from a
    quarter of ``encoder_ffn_dim`` to the text width and on."""
    a = config.get("audio_config")
    a = {**_WHISPER_ENCODER, **(a if isinstance(a, Mapping) else {})}
    quarter = _int(a, "encoder_ffn_dim") // 4

    def mat(name: str, rows: int, cols: int) -> Tensor:
        return tensor(name, "audio", (rows, cols), (), every_stage=True)

    return [*_whisper_encoder(a, "apm", tensor),
            mat("audio_projection_layer.linear1", text_hidden, quarter + 1),
            mat("audio_projection_layer.linear2", text_hidden, text_hidden + 1)]


def _glmasr_audio(a: Mapping[str, Any], text_hidden: int, caveats: list[str],
                  tensor: type[Tensor]) -> list[Tensor]:
    """GLM-ASR's encoder and projector, transformers' own modules (``glmasr.py`` builds
    ``GlmAsrEncoder`` and ``GlmAsrMultiModalProjector``: whole on every GPU): two biased
    width-3 convolutions (the mel bins to ``hidden_size``, then a stride-2 one), rotary
    positions (no table), layers of q/k/v/o projections (k unbiased) and a biased fc1/fc2
    pair after their LayerNorms, a final LayerNorm, and two biased linears from
    ``intermediate_size`` (the encoder stacks that many features a frame group) to twice
    the text width and on to it."""
    d, ffn, depth = _int(a, "hidden_size"), _int(a, "intermediate_size"), \
        _int(a, "num_hidden_layers")
    if not d or not ffn or not depth or not text_hidden:
        caveats.append("GLM-ASR audio_config without hidden_size/intermediate_size/"
                       "num_hidden_layers: audio tower not counted")
        return []
    heads = _int(a, "num_attention_heads") or 1
    head_dim = _int(a, "head_dim") or d // heads
    kv = (_int(a, "num_key_value_heads") or heads) * head_dim
    blocks, b = tuple(range(depth)), "audio_tower.layers.{i}"

    def mat(name: str, rows: int, cols: int, blocks: tuple[int, ...] = ()) -> Tensor:
        return tensor(name, "audio", (rows, cols), blocks, every_stage=True)

    return [mat("audio_tower.conv1", d, 3 * _int(a, "num_mel_bins", default=128) + 1),
            mat("audio_tower.conv2", d, 3 * d + 1),
            mat(f"{b}.self_attn.q_proj", heads * head_dim, d + 1, blocks),
            mat(f"{b}.self_attn.k_proj", kv, d, blocks),
            mat(f"{b}.self_attn.v_proj", kv, d + 1, blocks),
            mat(f"{b}.self_attn.o_proj", d, heads * head_dim + 1, blocks),
            mat(f"{b}.fc1", ffn, d + 1, blocks),
            mat(f"{b}.fc2", d, ffn + 1, blocks),
            mat(f"{b}.layer_norms", 4 * d, 1, blocks),
            mat("audio_tower.norm", 2 * d, 1),
            mat("multi_modal_projector.linear_1", 2 * text_hidden, ffn + 1),
            mat("multi_modal_projector.linear_2", text_hidden, 2 * text_hidden + 1)]


def granite_speech_towers(config: Mapping[str, Any], text_hidden: int, caveats: list[str],
                          tensor: type[Tensor]) -> list[Tensor]:
    """Granite Speech's encoder and projector as transformers builds them (SGLang serves the
    checkpoint through its transformers backend, these modules whole on every GPU):
    ``GraniteSpeechCTCEncoder``, a linear from the input features, Conformer blocks (two
    half-step feed-forwards, attention with q/kv/out projections and a relative-position
    table, a convolution module: pointwise up to twice the gated width, depthwise, batch
    norm, pointwise down; each part after a LayerNorm, one more after the block) and the
    CTC head's two linears; and ``GraniteSpeechEncoderProjector``, learned queries, a BLIP-2
    Q-Former (self- and cross-attention and one feed-forward a layer) and a linear to the
    text width."""
    enc, proj = config.get("encoder_config"), config.get("projector_config")
    if not isinstance(enc, Mapping) or not isinstance(proj, Mapping):
        caveats.append("Granite Speech without encoder_config/projector_config: its speech "
                       "encoder and projector not counted")
        return []
    h, depth = _int(enc, "hidden_dim"), _int(enc, "num_layers")
    heads, dim_head = _int(enc, "num_heads"), _int(enc, "dim_head")
    ff = h * _int(enc, "feedforward_mult", default=4)
    conv = h * _int(enc, "conv_expansion_factor", default=2)
    q_h, q_layers = _int(proj, "hidden_size"), _int(proj, "num_hidden_layers")
    q_ff, cross = _int(proj, "intermediate_size"), _int(proj, "encoder_hidden_size") or q_h
    if not (h and depth and heads and dim_head and q_h and q_layers and q_ff and text_hidden):
        caveats.append("Granite Speech encoder_config/projector_config without their sizes: "
                       "its speech encoder and projector not counted")
        return []
    inner = heads * dim_head
    every = _int(proj, "cross_attention_frequency", default=1) or 1
    crossed = len(range(0, q_layers, every))
    queries = _int(config, "window_size") // max(1, _int(config, "downsample_rate", default=1))
    blocks, b = tuple(range(depth)), "encoder.layers.{i}"
    q_blocks = tuple(range(q_layers))

    def mat(name: str, rows: int, cols: int, blocks: tuple[int, ...] = ()) -> Tensor:
        return tensor(name, "audio", (rows, cols), blocks, every_stage=True)

    return [mat("encoder.input_linear", h, _int(enc, "input_dim") + 1),
            *(mat(f"{b}.{part}.up_proj", ff, h + 1, blocks) for part in ("ff1", "ff2")),
            *(mat(f"{b}.{part}.down_proj", h, ff + 1, blocks) for part in ("ff1", "ff2")),
            mat(f"{b}.attn.to_q_kv", 3 * inner, h, blocks),
            mat(f"{b}.attn.to_out", h, inner + 1, blocks),
            mat(f"{b}.attn.rel_pos_emb", 2 * _int(enc, "max_pos_emb") + 1, dim_head, blocks),
            mat(f"{b}.conv.up_conv", 2 * conv, h + 1, blocks),
            mat(f"{b}.conv.depth_conv", conv, _int(enc, "conv_kernel_size"), blocks),
            mat(f"{b}.conv.down_conv", h, conv + 1, blocks),
            mat(f"{b}.conv.batch_norm", 2 * conv, 1, blocks),
            mat(f"{b}.norms", 5 * 2 * h, 1, blocks),  # ff1, attn, conv, ff2, post
            mat("encoder.out", _int(enc, "output_dim"), h + 1),
            mat("encoder.out_mid", h, _int(enc, "output_dim") + 1),
            mat("projector.query", queries, q_h),
            mat("projector.qformer.layernorm", 2 * q_h, 1),
            mat("projector.qformer.layers.{i}.attention", 4 * q_h, q_h + 1, q_blocks),
            mat("projector.qformer.layers.{i}.crossattention.q_out", 2 * q_h, q_h + 1,
                tuple(range(crossed))),
            mat("projector.qformer.layers.{i}.crossattention.kv", 2 * q_h, cross + 1,
                tuple(range(crossed))),
            mat("projector.qformer.layers.{i}.crossattention.norm", 2 * q_h, 1,
                tuple(range(crossed))),
            mat("projector.qformer.layers.{i}.intermediate_query", q_ff, q_h + 1, q_blocks),
            mat("projector.qformer.layers.{i}.output_query", q_h, q_ff + 1, q_blocks),
            mat("projector.qformer.layers.{i}.norms", 4 * q_h, 1, q_blocks),
            mat("projector.linear", text_hidden, q_h + 1)]


#: DeepSeek-OCR's towers as SGLang 0.5.23 builds them (``deepseek_ocr.py``: ``build_sam_vit_b``
#: and ``build_clip_l`` take no size from the config): a SAM ViT-B image encoder over 1024-pixel
#: images in 16-pixel patches, 12 blocks of 768 in 12 heads (MLP 4x), global attention in
#: blocks 2, 5, 8 and 11 and 14-patch windows elsewhere, each block with relative-position
#: tables, a neck to 256 channels and two stride-2 convolutions to 512 and 1024; and a CLIP-L
#: of 24 layers of 1024 (MLP 4096) over 224-pixel images in 14-pixel patches
_SAM = {"width": 768, "depth": 12, "heads": 12, "image": 1024, "patch": 16, "window": 14,
        "global": (2, 5, 8, 11), "neck": 256, "net": (512, 1024)}
_CLIP_L = {"width": 1024, "depth": 24, "ffn": 4096, "image": 224, "patch": 14}


def deepseek_ocr_towers(config: Mapping[str, Any], tensor: type[Tensor]) -> list[Tensor]:
    """DeepSeek-OCR's SAM and CLIP towers (``_SAM``, ``_CLIP_L``), its projector from
    ``projector_config`` (a biased linear, ``input_dim`` -> ``n_embed``) and the view-separator
    and newline embeddings: plain ``nn.Linear`` / ``nn.Conv2d`` / ``nn.Parameter`` modules,
    whole on every GPU and every pipeline rank."""

    def rep(name: str, rows: int, cols: int, blocks: tuple[int, ...] = (),
            shard: str = REP) -> Tensor:
        return tensor(name, "vision", (rows, cols), blocks, shard=shard, every_stage=True)

    w, depth, grid = _SAM["width"], _SAM["depth"], _SAM["image"] // _SAM["patch"]
    glob = tuple(_SAM["global"])
    local = tuple(i for i in range(depth) if i not in glob)
    hd = w // _SAM["heads"]
    sb = "sam_model.blocks.{i}"
    neck, (n2, n3) = _SAM["neck"], _SAM["net"]
    sam = [rep("sam_model.patch_embed.proj", w, 3 * _SAM["patch"] ** 2 + 1),
           rep("sam_model.pos_embed", grid * grid, w),
           rep(f"{sb}.attn.qkv", 3 * w, w + 1, tuple(range(depth))),
           rep(f"{sb}.attn.proj", w, w + 1, tuple(range(depth))),
           rep(f"{sb}.mlp.lin1", 4 * w, w + 1, tuple(range(depth))),
           rep(f"{sb}.mlp.lin2", w, 4 * w + 1, tuple(range(depth))),
           rep(f"{sb}.norm1_norm2", 4 * w, 1, tuple(range(depth))),
           # rel_pos_h and rel_pos_w: 2 x size - 1 rows of head_dim, the size the image grid
           # in the global blocks and the window elsewhere
           rep(f"{sb}.attn.rel_pos", 2 * (2 * grid - 1), hd, glob),
           rep(f"{sb}.attn.rel_pos_window", 2 * (2 * _SAM["window"] - 1), hd, local),
           rep("sam_model.neck.0", neck, w),
           rep("sam_model.neck.1_3", 4 * neck, 1),
           rep("sam_model.neck.2", neck, 9 * neck),
           rep("sam_model.net_2", n2, 9 * neck),
           rep("sam_model.net_3", n3, 9 * n2)]
    clip = _whole_vit(rep, "vision_model", ("clip", _CLIP_L["width"], _CLIP_L["depth"],
                                            _CLIP_L["ffn"], _CLIP_L["image"], _CLIP_L["patch"]),
                      final_norm=False)
    proj = config.get("projector_config") or {}
    n_embed = _int(proj, "n_embed", default=1280)
    return [*sam, *clip,
            rep("projector.layers", n_embed, _int(proj, "input_dim", default=2048) + 1),
            rep("view_seperator_image_newline", 2 * n_embed, 1)]


def _vit_blocks(rep: Callable[..., Tensor], prefix: str, w: int, depth: int, ffn: int,
                attn: str = REP, mlp: str = REP) -> list[Tensor]:
    """A CLIP/SigLIP encoder's blocks (``{prefix}.encoder.layers``): biased q/k/v and output
    projections, a biased two-linear MLP, two biased LayerNorms; ``attn`` and ``mlp`` the
    splits (a row-parallel linear's bias whole, apart)."""
    layers = tuple(range(depth))
    b = f"{prefix}.encoder.layers.{{i}}"

    def row(name: str, out: int, in_: int, split: str) -> list[Tensor]:
        if split == REP:
            return [rep(name, out, in_ + 1, layers)]
        return [rep(name, out, in_, layers, shard=split), rep(f"{name}.bias", out, 1, layers)]

    return [rep(f"{b}.self_attn.qkv_proj", 3 * w, w + 1, layers, shard=attn),
            *row(f"{b}.self_attn.out_proj", w, w, attn),
            rep(f"{b}.mlp.fc1", ffn, w + 1, layers, shard=mlp),
            *row(f"{b}.mlp.fc2", w, ffn, mlp),
            rep(f"{b}.layer_norm1_2", 4 * w, 1, layers)]


def _whole_vit(rep: Callable[..., Tensor], prefix: str, shape: tuple[str, int, int, int, int, int],
               final_norm: bool = True, attn: str = REP, mlp: str = REP) -> list[Tensor]:
    """A CLIP or SigLIP vision encoder, ``shape`` (kind, width, depth, MLP width, image size,
    patch size), whole on every GPU unless ``attn``/``mlp`` split its blocks. CLIP's: a
    bias-free patch convolution, a class token and a position for it, a norm before the
    blocks. SigLIP's (transformers' SiglipVisionModel): a biased convolution, and after the
    final norm the attention-pooling head its config keeps by default (``vision_use_head``):
    a probe, an attention, a norm and an MLP."""
    kind, w, depth, ffn, image, patch = shape
    clip = kind == "clip"
    out = [rep(f"{prefix}.embeddings.patch_embedding", w, 3 * patch * patch + (not clip)),
           rep(f"{prefix}.embeddings.position_embedding", (image // patch) ** 2 + clip, w),
           *_vit_blocks(rep, prefix, w, depth, ffn, attn, mlp)]
    if clip:
        out += [rep(f"{prefix}.embeddings.class_embedding", w, 1),
                rep(f"{prefix}.pre_layrnorm", 2 * w, 1)]
    if final_norm:
        out.append(rep(f"{prefix}.post_layernorm", 2 * w, 1))
    if not clip:
        out += [rep(f"{prefix}.head.probe", w, 1),
                rep(f"{prefix}.head.attention", 4 * w, w + 1),
                rep(f"{prefix}.head.layernorm", 2 * w, 1),
                rep(f"{prefix}.head.mlp.fc1", ffn, w + 1),
                rep(f"{prefix}.head.mlp.fc2", w, ffn + 1)]
    return out


#: Janus's SigLIP towers by the name its vision config gives (``deepseek_janus_pro.py``
#: SigLIP_MODEL_CONFIG): width, blocks, MLP ratio (of the blocks and the pooling head), patch
_JANUS_SIGLIP = {"siglip_so400m_patch14_384": (1152, 27, 3.7362, 14),
                 "siglip_so400m_patch14_224": (1152, 27, 3.7362, 14),
                 "siglip_large_patch16_384": (1024, 24, 4.0, 16)}


def janus_towers(config: Mapping[str, Any], caveats: list[str], tensor: type[Tensor]
                 ) -> list[Tensor]:
    """Janus's modules beside its language model (``deepseek_janus_pro.py``
    MultiModalityCausalLM), each built from a config block's ``params``: the SigLIP tower
    (``_janus_siglip``), the aligner and the generation aligner (MlpProjector), the VQ-16
    image tokenizer (``_janus_vq16``), the generation head (two biased linears to the image
    codes) and the image-code embedding."""
    fam = FAMILIES["janus"]
    make = _maker(tensor, fam)

    def params(key: str) -> Mapping[str, Any]:
        block = config.get(key)
        p = block.get("params") if isinstance(block, Mapping) else None
        return p if isinstance(p, Mapping) else {}

    gen_vision, head = params("gen_vision_config"), params("gen_head_config")
    embed = _int(head, "image_token_embed")
    return [*_janus_siglip(params("vision_config"), caveats, make),
            *_janus_projector("aligner", params("aligner_config"), caveats, make),
            *_janus_vq16(make),
            *_janus_projector("gen_aligner", params("gen_aligner_config"), caveats, make),
            *make("gen_head.output_mlp_projector", REP, embed, _int(head, "n_embed"),
                  bias=True),
            *make("gen_head.vision_head", REP, _int(head, "image_token_size"), embed,
                  bias=True),
            *make("gen_embed", REP, _int(gen_vision, "image_token_size"),
                  _int(gen_vision, "n_embed"))]


def deepseek_vl2_towers(config: Mapping[str, Any], tensor: type[Tensor]) -> list[Tensor]:
    """DeepSeek-VL2's modules beside its language model (``deepseek_vl2.py``): the tower is
    timm's ``vit_so400m_patch14_siglip_384`` whatever ``vision_config`` says (all 27 blocks
    and, with num_classes 0, the attention-pooling head kept), then the projector by
    ``projector_config`` (SGLang's DeepseekVL2MlpProjectorConfig defaults where the file
    leaves keys out) and the two n_embed-wide separator vectors (tile_tag 2D)."""
    make = _maker(tensor, FAMILIES["deepseek_vl2"])
    tower = _janus_siglip({"model_name": "siglip_so400m_patch14_384", "image_size": 384,
                           "select_layer": -1}, [], make, attn=REP)
    p = config.get("projector_config")
    p = p if isinstance(p, Mapping) else {}
    kind = p.get("projector_type", "downsample_mlp_gelu")
    n, d_in = _int(p, "n_embed", default=2048), _int(p, "input_dim", default=1152)
    depth, ratio = _int(p, "depth", default=2), _int(p, "mlp_ratio", default=1)
    if kind == "downsample_mlp_gelu":
        down = _int(p, "downsample_ratio", default=2)
        wide = n * ratio
        proj = [*make("projector.layers.0", REP, wide, d_in * down * down, bias=True),
                *make("projector.layers.last", REP, n, wide, bias=True)]
        if depth > 2:  # (``make`` with no blocks is one tensor, not an empty stack)
            proj += make("projector.layers.mid", REP, wide, wide, tuple(range(1, depth - 1)),
                         bias=True)
    elif kind in ("mlp_gelu", "linear"):
        proj = make("projector.layers.0", REP, n, d_in, bias=True)
        if kind == "mlp_gelu" and depth > 1:
            proj += make("projector.layers.rest", REP, n, n, tuple(range(1, depth)),
                         bias=True)
    else:  # identity
        proj = []
    if p.get("token_pooling"):
        proj += make("projector.token_pooling_layer", REP, d_in, 4 * d_in, bias=True)
    return [*tower, *proj, *make("image_newline_view_seperator", REP, 2 * n, 1)]


def _janus_siglip(p: Mapping[str, Any], caveats: list[str], make: _Make,
                  attn: str = "attn_tp") -> list[Any]:
    """Janus's SigLIP (timm's VisionTransformer as CLIPVisionTower builds it, with that
    class's defaults: ``siglip_large_patch16_384`` at 336 pixels, ``select_layer`` -2): a
    biased patch convolution, a position table (no class token), blocks of VisionAttention
    and a biased timm MLP between two LayerNorms, up to the selected layer, a final
    LayerNorm and the attention-pooling head (a latent query, q, kv and out projections, a
    LayerNorm and an MLP)."""
    name = p.get("model_name", "siglip_large_patch16_384")
    if not isinstance(name, str) or name not in _JANUS_SIGLIP:
        caveats.append(f"Janus vision tower {name!r} not counted")
        return []
    w, depth, ratio, patch = _JANUS_SIGLIP[name]
    image = _int(p, "image_size", default=336)
    select = _int(p, "select_layer", default=-2)
    depth = min(depth, depth + select + 1) if select <= 0 else min(depth, select)
    mlp = int(w * ratio)
    blocks, b, t = tuple(range(max(depth, 0))), "vision_model.blocks.{i}", "vision_model"
    stack = [*make(f"{b}.attn.qkv_proj", attn, 3 * w, w, blocks, bias=True),
             *make(f"{b}.attn.proj", attn, w, w, blocks, bias=True, row=True),
             *make(f"{b}.mlp.fc1", REP, mlp, w, blocks, bias=True),
             *make(f"{b}.mlp.fc2", REP, w, mlp, blocks, bias=True),
             *make(f"{b}.norms", REP, 4 * w, 1, blocks)] if blocks else []
    return [*make(f"{t}.patch_embed", REP, w, 3 * patch * patch, bias=True),
            *make(f"{t}.pos_embed", REP, (image // patch) ** 2, w),
            *stack,
            *make(f"{t}.norm", REP, 2 * w, 1),
            *make(f"{t}.attn_pool.latent", REP, 1, w),
            *make(f"{t}.attn_pool.q_kv_proj", REP, 4 * w, w, bias=True),
            *make(f"{t}.attn_pool.norm", REP, 2 * w, 1),
            *make(f"{t}.attn_pool.mlp.fc1", REP, mlp, w, bias=True),
            *make(f"{t}.attn_pool.mlp.fc2", REP, w, mlp, bias=True)]


def _janus_projector(prefix: str, p: Mapping[str, Any], caveats: list[str],
                     make: _Make) -> list[Any]:
    """Janus's MlpProjector by ``projector_type``: none (identity), one biased linear
    (linear), or ``depth`` of them, the first from ``input_dim`` (mlp_gelu; the hybrid
    split's first is two half-width ones)."""
    kind, depth = p.get("projector_type"), _int(p, "depth", default=1)
    n, d_in = _int(p, "n_embed"), _int(p, "input_dim")
    rest = make(f"{prefix}.layers.rest", REP, n, n, tuple(range(1, depth)), bias=True) \
        if depth > 1 else []
    if kind == "identity":
        return []
    if kind == "linear":
        return make(f"{prefix}.layers", REP, n, d_in, bias=True)
    if kind == "mlp_gelu":
        return [*make(f"{prefix}.layers.0", REP, n, d_in, bias=True), *rest]
    if kind == "low_high_hybrid_split_mlp_gelu":
        return [*make(f"{prefix}.high_low_up_proj", REP, 2 * (n // 2), d_in, bias=True),
                *rest]
    caveats.append(f"Janus {prefix} of projector_type {kind!r} not counted")
    return []


#: the VQ-16 tokenizer's sizes (``deepseek_janus_pro.py`` ModelArgs, which the class builds
#: with no argument from the config): channels, their multipliers per resolution, residual
#: blocks per resolution, latent channels, codebook entries x width, the usage counter
_VQ16 = {"ch": 128, "mult": (1, 1, 2, 2, 4), "res_blocks": 2, "z": 256,
         "codebook": (16384, 8), "usage": 65536}


def _vq_counts() -> tuple[int, int]:
    """(encoder, decoder) parameters of the VQ-16 model: 3x3 convolutions, GroupNorms,
    residual blocks (a 1x1 shortcut where the width changes), attention blocks (four 1x1
    convolutions and a GroupNorm) at the last resolution and in the middle, a strided
    convolution between resolutions; the decoder one residual block more per resolution."""
    ch, mult, n, z = _VQ16["ch"], _VQ16["mult"], _VQ16["res_blocks"], _VQ16["z"]

    def conv(i: int, o: int, k: int) -> int:
        return i * o * k * k + o

    def res(i: int, o: int) -> int:
        return 2 * i + conv(i, o, 3) + 2 * o + conv(o, o, 3) + (conv(i, o, 1) if i != o else 0)

    def attn(c: int) -> int:
        return 2 * c + 4 * conv(c, c, 1)

    last = len(mult) - 1
    enc, width = conv(3, ch, 3), ch
    for level, m in enumerate(mult):
        for _ in range(n):
            enc, width = enc + res(width, ch * m) + (attn(ch * m) if level == last else 0), \
                ch * m
        enc += conv(width, width, 3) if level != last else 0
    middle = 2 * res(width, width) + attn(width)
    enc += middle + 2 * width + conv(width, z, 3)
    dec = conv(z, width, 3) + middle
    for level in reversed(range(len(mult))):
        for _ in range(n + 1):
            dec, width = dec + res(width, ch * mult[level]) + (
                attn(ch * mult[level]) if level == last else 0), ch * mult[level]
        dec += conv(width, width, 3) if level != 0 else 0
    return enc, dec + 2 * width + conv(width, 3, 3)


def _janus_vq16(make: _Make) -> list[Any]:
    """The VQ-16 image tokenizer (``_VQ16``): encoder, decoder, codebook and its usage
    counter (a parameter), and the 1x1 convolutions to and from the codebook width."""
    enc, dec = _vq_counts()
    codes, width = _VQ16["codebook"]
    z = _VQ16["z"]
    g = "gen_vision_model"
    return [*make(f"{g}.encoder", REP, enc, 1), *make(f"{g}.decoder", REP, dec, 1),
            *make(f"{g}.quantize.embedding", REP, codes, width),
            *make(f"{g}.quantize.codebook_used", REP, _VQ16["usage"], 1),
            *make(f"{g}.quant_conv", REP, width, z, bias=True),
            *make(f"{g}.post_quant_conv", REP, z, width, bias=True)]


#: the towers SGLang's own LLaVA classes (``llava.py``: LlavaLlama / LlavaQwen /
#: LlavaMistral) load in ``load_weights`` by the name in ``mm_vision_tower``, keyed by the Hub
#: checkpoint that name ends in -> (kind, width, depth, MLP width, image size, patch size)
#: from that checkpoint's published ``config.json`` (CLIP's ``vision_config`` block)
NAMED_TOWERS: dict[str, tuple[str, int, int, int, int, int]] = {
    "clip-vit-large-patch14-336": ("clip", 1024, 24, 4096, 336, 14),  # LLaVA 1.5 / 1.6
    "clip-vit-large-patch14": ("clip", 1024, 24, 4096, 224, 14),  # LLaVA 1.0
    "clip-vit-base-patch16": ("clip", 768, 12, 3072, 224, 16),
    "clip-vit-base-patch32": ("clip", 768, 12, 3072, 224, 32),
    "siglip-so400m-patch14-384": ("siglip", 1152, 27, 4304, 384, 14),  # LLaVA-OneVision
    "siglip-so400m-patch14-224": ("siglip", 1152, 27, 4304, 224, 14),
    "siglip-base-patch16-224": ("siglip", 768, 12, 3072, 224, 16),
    "siglip-base-patch16-384": ("siglip", 768, 12, 3072, 384, 16),
    "siglip-large-patch16-384": ("siglip", 1024, 24, 4096, 384, 16),
}


def llava_named_tower(config: Mapping[str, Any], text_hidden: int, caveats: list[str],
                      tensor: type[Tensor], arch0: str = "") -> list[Tensor]:
    """What SGLang's own LLaVA classes hold beside the text model: the tower
    ``mm_vision_tower`` names (transformers' CLIPVisionModel for a name holding "clip", else
    SiglipVisionModel for one holding "siglip"), loaded whole in float16 onto every GPU,
    counted here at the model's 16-bit width (an assumption for a float32 launch); the
    projector (transformers' LlavaMultiModalProjector: two biased linears, ``mm_hidden_size``
    -> the text width -> the text width, whole); and, for a ``*unpad*`` patch merge, the
    ``image_newline`` vector. Yi-VL's class (``yivl.py``) loads its tower from the
    checkpoint's own folder and adds a LayerNorm after each projector linear."""

    def rep(name: str, rows: int, cols: int, blocks: tuple[int, ...] = (),
            shard: str = REP) -> Tensor:
        return tensor(name, "vision", (rows, cols), blocks, shard=shard, every_stage=True)

    named = config.get("mm_vision_tower")
    key = named.rstrip("/").rsplit("/", 1)[-1].lower() if isinstance(named, str) else ""
    shape = NAMED_TOWERS.get(key)
    out: list[Tensor] = []
    if shape is None:
        caveats.append(f"the vision tower mm_vision_tower names ({named!r}) is not one "
                       "launchplan knows the size of: not counted")
    else:
        out = _whole_vit(rep, "vision_tower", shape)
    width = _int(config, "mm_hidden_size", default=shape[1] if shape else 0)
    if width and text_hidden:
        out += [rep("multi_modal_projector.linear_1", text_hidden, width + 1),
                rep("multi_modal_projector.linear_2", text_hidden, text_hidden + 1)]
        if arch0 == "YiVLForCausalLM":
            out.append(rep("multi_modal_projector.ln_1_2", 4 * text_hidden, 1))
    if "unpad" in str(config.get("mm_patch_merge_type") or ""):
        out.append(rep("language_model.model.image_newline", text_hidden, 1))
    return out


def clip_model(config: Mapping[str, Any], text: Mapping[str, Any],
               tensor: type[Tensor]) -> list[Tensor]:
    """CLIP served as an embedder (``clip.py`` CLIPModel): a text encoder (token and position
    tables, LayerNorm blocks of biased attention and an ungated MLP, a final LayerNorm), the
    CLIP vision encoder, a bias-free projection from each into ``projection_dim``, and the
    logit scale. Plain embeddings and the projections are whole on every GPU; the blocks'
    attention and MLPs split as SigLIP's do here (over attention TP and TP). The text side
    is the ``text_encoder`` component of the breakdown, the rest ``vision``."""
    vision = config.get("vision_config")
    v = vision if isinstance(vision, Mapping) else {}
    fam = FAMILIES["siglip"]
    attn, mlp = fam.attn, fam.mlp

    def rep(name: str, rows: int, cols: int, blocks: tuple[int, ...] = (),
            shard: str = REP) -> Tensor:
        kind = "text_encoder" if name.startswith(("text_", "logit")) else "vision"
        return tensor(name, kind, (rows, cols), blocks, shard=shard, every_stage=True)

    th = _int(text, "hidden_size", default=512)
    out = [rep("text_model.embeddings.token_embedding", _int(text, "vocab_size"), th),
           rep("text_model.embeddings.position_embedding",
               _int(text, "max_position_embeddings", default=77), th),
           *_vit_blocks(rep, "text_model", th, _int(text, "num_hidden_layers", default=12),
                        _int(text, "intermediate_size", default=4 * th), attn, mlp),
           rep("text_model.final_layer_norm", 2 * th, 1)]
    vh = _int(v, "hidden_size", default=768)
    out += _whole_vit(rep, "vision_model", (
        "clip", vh, _int(v, "num_hidden_layers", default=12),
        _int(v, "intermediate_size", default=4 * vh), _int(v, "image_size", default=224),
        _int(v, "patch_size", default=32)), attn=attn, mlp=mlp)
    proj = _int(config, "projection_dim", default=512)
    return [*out, rep("visual_projection", proj, vh), rep("text_projection", proj, th),
            rep("logit_scale", 1, 1)]


#: what Phi-4-multimodal's conformer reads (``phi4mm_utils.py`` ConformerEncoder's defaults as
#: the published file overrides them); a key the builder does not model is named in a caveat
_PHI4MM_AUDIO = {"attention_dim": 1024, "attention_heads": 16, "linear_units": 1536,
                 "num_blocks": 24, "kernel_size": 3, "input_size": 80, "time_reduction": 8}
#: conformer keys whose published value the count assumes (another value: a caveat)
_PHI4MM_AUDIO_FIXED = {"input_layer": "nemo_conv", "depthwise_multiplier": 1,
                       "bias_in_glu": True}


def phi4mm_towers(config: Mapping[str, Any], vision: Mapping[str, Any], text_hidden: int,
                  caveats: list[str], tensor: type[Tensor]) -> list[Tensor]:
    """Phi-4-multimodal's image encoder and audio embedding (``phi4mm.py``), built on every
    launch whatever the file says of them.

    Image: the SigLIP config SGLang's config reader sets (``vision``) as an Idefics2 tower
    without its final norm, the ``glb_GN``/``sub_GN`` separators, and a two-linear projector
    to the text width. Audio (``phi4mm_audio.py`` AudioEmbedding over
    ``audio_processor.config``): NeMo's depthwise-striding subsampling (one 3x3 convolution,
    then a depthwise and a pointwise one a further halving, a linear from the flattened
    channels), the feature mean and inverse deviation, a T5 relative-position table, and
    conformer blocks (attention, two GLU feed-forwards, a GLU convolution module, two norms),
    then two MLP projections (speech, and speech within vision). All plain modules, whole on
    every GPU, but the image tower's attention and MLP."""
    fam = FAMILIES["phi4mm"]
    make = _maker(tensor, fam)
    h, depth = _int(vision, "hidden_size"), _int(vision, "num_hidden_layers")
    inter, patch = _int(vision, "intermediate_size"), _int(vision, "patch_size")
    blocks = tuple(range(depth))
    b = "vision_encoder.img_processor.encoder.layers.{i}"
    out = [*make("vision_encoder.img_processor.patch_embedding", REP, h, 3 * patch * patch,
                 bias=True),
           *make("vision_encoder.img_processor.position_embedding", fam.pos,
                 (_int(vision, "image_size") // patch) ** 2, h),
           *make(f"{b}.self_attn.qkv_proj", fam.attn, 3 * h, h, blocks, bias=True),
           *make(f"{b}.self_attn.proj", fam.attn, h, h, blocks, bias=True, row=True),
           *make(f"{b}.mlp.fc1", fam.mlp, inter, h, blocks, bias=True),
           *make(f"{b}.mlp.fc2", fam.mlp, h, inter, blocks, bias=True, row=True),
           *make(f"{b}.layer_norms", REP, 4 * h, 1, blocks),
           *make("vision_encoder.glb_GN_sub_GN", REP, 2 * h, 1),
           *make("vision_encoder.img_projection.0", REP, text_hidden, h, bias=True),
           *make("vision_encoder.img_projection.2", REP, text_hidden, text_hidden, bias=True)]
    return out + _phi4mm_audio(config, text_hidden, caveats, tensor)


def _phi4mm_audio(config: Mapping[str, Any], text_hidden: int, caveats: list[str],
                  tensor: type[Tensor]) -> list[Tensor]:
    """Phi-4-multimodal's AudioEmbedding (see ``phi4mm_towers``)."""
    processor = config.get("audio_processor")
    given = processor.get("config") if isinstance(processor, Mapping) else None
    if not isinstance(given, Mapping):
        caveats.append("Phi-4-multimodal without audio_processor.config: its audio encoder "
                       "(about 0.47B parameters as published) is not counted")
        return []
    a = {**_PHI4MM_AUDIO, **given}
    odd = [k for k, v in _PHI4MM_AUDIO_FIXED.items() if k in a and a[k] != v]
    layer = config.get("embd_layer")
    audio_layer = layer.get("audio_embd_layer") if isinstance(layer, Mapping) else None
    audio_layer = audio_layer if isinstance(audio_layer, Mapping) else {}
    odd += [k for k in ("use_qformer", "use_conv_downsample") if audio_layer.get(k)]
    d, u, n = _int(a, "attention_dim"), _int(a, "linear_units"), _int(a, "num_blocks")
    nemo = a.get("nemo_conv_settings")
    c = _int(nemo, "conv_channels", default=256) if isinstance(nemo, Mapping) else 256
    for key in ("ext_pw_out_channel", "depthwise_seperable_out_channel"):
        if key in a and _int(a, key) != d:
            odd.append(key)
    if odd:
        caveats.append("Phi-4-multimodal audio encoder counted in the published layout; "
                       f"this file changes {', '.join(sorted(odd))}, which it does not model")
    stages, freq = max(0, (_int(a, "time_reduction") or 1).bit_length() - 1), \
        _int(a, "input_size")
    for _ in range(stages):  # each stride-2 3x3 convolution (padding 1) halves, rounded up
        freq = (freq + 1) // 2
    rel = a.get("relative_attention_bias_args")
    distance = _int(rel, "t5_bias_max_distance", default=1000) \
        if isinstance(rel, Mapping) and rel.get("type") == "t5" else 0
    k = _int(a, "kernel_size")
    ds = 1 if audio_layer.get("use_qformer") or audio_layer.get("use_conv_downsample") \
        else _int(audio_layer, "downsample_rate", default=1)

    def mat(name: str, rows: int, cols: int, blocks: tuple[int, ...] = ()) -> Tensor:
        return tensor(name, "audio", (rows, cols), blocks, every_stage=True)

    blocks, e = tuple(range(n)), "embed_tokens_extend.encoder"
    b = f"{e}.encoders.{{i}}"
    out = [mat(f"{e}.embed.conv.0", c, 9 + 1),
           mat(f"{e}.embed.conv.depthwise", c, 9 + 1, tuple(range(max(0, stages - 1)))),
           mat(f"{e}.embed.conv.pointwise", c, c + 1, tuple(range(max(0, stages - 1)))),
           mat(f"{e}.embed.out", d, c * freq + 1),
           mat(f"{e}.encoder_embedding", 2 * _int(a, "input_size"), 1),
           mat(f"{b}.self_attn", 4 * d, d + 1, blocks),
           # two feed-forwards: a norm, a GLU linear to 2u, a linear back
           mat(f"{b}.feed_forward_in_out.layer_norm", 4 * d, 1, blocks),
           mat(f"{b}.feed_forward_in_out.net.0", 4 * u, d + 1, blocks),
           mat(f"{b}.feed_forward_in_out.net.2", 2 * d, u + 1, blocks),
           # convolution module: a norm, a GLU pointwise to 2d with its two GLU biases, a
           # depthwise kernel, a pointwise, and the GLU's output pointwise
           mat(f"{b}.conv.layer_norm", 2 * d, 1, blocks),
           mat(f"{b}.conv.glu", 2 * d, d + 1 + 1, blocks),
           mat(f"{b}.conv.dw_sep_conv_1d.dw_conv", d, k + 1, blocks),
           mat(f"{b}.conv.dw_sep_conv_1d.pw_conv_ext_pw_conv_1d", 2 * d, d + 1, blocks),
           mat(f"{b}.layer_norm_layer_norm_att", 4 * d, 1, blocks)]
    if distance:
        out.append(mat(f"{e}.relative_attention_bias_layer", 2 * distance,
                       _int(a, "attention_heads")))
    projection = audio_layer.get("projection_cls", "linear")
    if projection == "mlp":  # speech, and speech within vision
        out += [mat("embed_tokens_extend.audio_projection.0", 2 * text_hidden, d * ds + 1),
                mat("embed_tokens_extend.audio_projection.2", 2 * text_hidden,
                    text_hidden + 1)]
    else:
        out.append(mat("embed_tokens_extend.audio_projection", text_hidden, d + 1))
    return out
