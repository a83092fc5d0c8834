"""The tensors of a checkpoint, enumerated from ``config.json`` by architecture family.

Each family lists the weight tensors its Hugging Face checkpoint stores and SGLang 0.5.23's
model class loads (``sglang/srt/models/*.py``): embeddings and LM head, attention (GQA with
its biases and QK norms, MLA with its LoRA ranks, the DSA indexer), dense MLPs, MoE routed
and shared experts with their router, norms, the speculative MTP layers a DeepSeek-style
checkpoint carries after its main layers, and the vision tower of a multimodal model.
Every tensor also says how SGLang shards it (``shard``) and whether a quantization method
may store it quantized (``linear``); ``weights.py`` turns that into bytes per GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from launchplan.facts.models.attention import granite_hybrid_kinds, spark2_5_layer_types
from launchplan.facts.models.mamba_hybrids import HYBRID_MAMBA2_DEFAULTS
from launchplan.memory.class_layers import (
    GEMMA4_MODEL_TYPES,
    Shapes,
    gemma4_kinds,
    gemma4_shapes,
)
from launchplan.memory.classic_layers import CLASSIC_TYPES, canonical, classic_decoder
from launchplan.memory.classic_layers import TIED_TYPES as CLASSIC_TIED
from launchplan.memory.config_ints import config_int as _int
from launchplan.memory.kv_layers import ZAYA_LAYERS

#: the shard kind of a text tensor split over attention TP by its own ``heads`` (each rank
#: keeping at least one whole, as SGLang splits KV heads)
ATTN_HEADS = "attn_heads"


class Tensor(NamedTuple):
    """One weight tensor (or a stack of identical ones: every layer, every expert).

    ``name`` is the checkpoint's module path with ``{i}`` for the layer index (matched
    against a quantization config's list of unquantized modules). ``shape`` is (out, in);
    a vector is (n, 1). ``layers`` holds the layer indices it appears in (empty: outside
    the layer stack) and ``copies`` the experts per layer.
    """

    name: str
    component: str  # breakdown key: embedding, lm_head, attention, mlp, experts, ...
    shape: tuple[int, int]
    layers: tuple[int, ...] = ()
    copies: int = 1
    linear: bool = False  # a projection matrix a quantization method may store quantized
    shard: str = "replicated"  # see weights.py: tp, attn_tp, kv, vocab, head, experts, ...
    fp32: bool = False  # kept in float32 whatever the model's dtype (e.g. a router bias)
    every_stage: bool = False  # outside the layer stack, built on every pipeline rank
    padding: bool = False  # allocated beyond the checkpoint's tensors (not stored): padded
    # rows, and the copies SGLang makes at load (MLA's absorbed ``w_kc``/``w_vc``)
    heads: int = 0  # a vision attention tensor split by its heads (shard ``vision_attn_heads``)
    buffer: bool = False  # a module buffer in the model's dtype (a fixed position table)

    @property
    def params(self) -> int:
        """Its elements as parameters: a buffer (the RoPE table, a resampler's position
        tables) is memory, not a parameter."""
        if self.component == "rope_cache" or self.buffer:
            return 0
        return self.shape[0] * self.shape[1] * self.copies * max(1, len(self.layers))


class Layout(NamedTuple):
    """The checkpoint's tensors: the model SGLang loads, and what its MTP layers add."""

    main: list[Tensor]
    mtp: list[Tensor]  # DeepSeek-style next-token-prediction layers stored after the main ones
    caveats: list[str]
    # tensors the checkpoint stores that SGLang's class never allocates (its loader skips
    # them): counted in the checkpoint's size, not on a GPU
    stored_only: tuple[Tensor, ...] = ()


# model types whose q/k/v projections carry a bias and whose o_proj does not
_QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen2_5_vl_text",
                             "qwen2_vl_text", "mimo",  # (MiMo: Qwen2's layers, ``mimo.py``)
                             "dots_ocr",  # (dots.ocr's text model is Qwen2ForCausalLM)
                             "qwen"})  # (Qwen 1.0's c_attn: ``qwen.py``)
#: Qwen 1.0 (``model_type: qwen``, QWenLMHeadModel): its config's intermediate_size is the
#: width of w1 and w2 together; ``qwen.py`` builds the gated MLP at half of it
_HALF_WIDTH_MLP_TYPES = frozenset({"qwen"})
#: Phi-3-small (``phi3_small.py``): a bias on q/k/v, dense, and both halves of its GEGELU MLP
#: whatever attention_bias says; LayerNorms with biases; its head is the embedding unless the
#: file says otherwise; the MLP width sits under ff_intermediate_size (its published config
#: class's ``intermediate_size`` property reads it)
_ALL_BIASED_TYPES = frozenset({"phi3small"})
#: Gemma 3n's text model (``gemma3n_causal.py``): the per-layer MLP widths, per-layer input
#: embeddings, AltUp and LAuReL (``_gemma3n_layer_extras``, ``_gemma3n_model_extras``)
_GEMMA3N_TYPES = frozenset({"gemma3n_text"})
# model types built on GLM-4.5's ``Glm4MoeModel`` (``glm4_moe.py``; GLM-4.5V's text model in
# ``glm4v_moe.py``): q/k/v biased, o_proj not, the router's correction bias stored
_GLM4_MOE_TYPES = frozenset({"glm4_moe", "glm4v_moe_text"})
# model types built on GLM-4's dense ``Glm4Model`` (``glm4.py``; GLM-4.1V's text model in
# ``glm4v.py``, GLM-OCR's in ``glm_ocr.py``): ``attention_bias`` biases q/k/v only, and every
# layer has four norms (post_self_attn_layernorm and post_mlp_layernorm beside the usual two)
_GLM4_TYPES = frozenset({"glm4", "glm4v_text", "glm_ocr_text"})
# model types whose MoE layers name their shared experts ``num_shared_experts``, each as wide
# as a routed one (HunYuan V3's ``shared_mlp``, ``hunyuan_v3.py``), over plain TP; their
# router is a float32 ``ReplicatedLinear`` beside a float32 ``expert_bias``
_HYV3_TYPES = frozenset({"hy_v3"})
# model types whose NextN class (``hunyuan_v3_nextn.py``, ``glm_ocr_nextn.py``) builds
# DeepSeek's MTP module around one decoder layer of the main stack's kind, and whose loader
# reads no embedding or head of that layer: the checkpoint stores none (Hy3's published
# count is its 80 layers and the one MTP layer, embedding and head once)
_NEXTN_NO_COPIES_TYPES = _HYV3_TYPES | {"glm_ocr_text"}
# model types with per-head RMS norms on q and k
_QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "gemma3n_text",
                            "qwen3_next",
                            "qwen3_vl_text", "qwen3_vl_moe_text",
                            "qwen3_5_text", "qwen3_5_moe_text", "apertus", "exaone4",
                            "laguna", "exaone_moe",
                            # AFMoE (Arcee's Trinity): ``afmoe.py``
                            "afmoe"})
#: model types whose config class turns ``use_qk_norm`` on when the file leaves it out
#: (SarvamMoEConfig; SGLang builds Ling's per-head query/key layernorms from it)
_QK_NORM_DEFAULT_ON = frozenset({"sarvam_moe"})
# model types whose layers alternate Gated DeltaNet (linear attention) and gated full
# attention: Qwen3-Next, and Qwen3.5/3.6 (``qwen3_5.py``), which list the kinds in layer_types
_GDN_TYPES = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})
# MiMo-V2 (Flash): full and sliding-window layers by hybrid_layer_pattern, each kind with its
# own head counts and dimensions
_MIMO_V2_TYPES = frozenset({"mimo_v2_flash", "mimo_v2"})
# model types whose transformers config class ties the LM head to the embedding when
# config.json leaves tie_word_embeddings out (GemmaConfig and its successors default to True;
# SGLang's Gemma model classes compute logits from embed_tokens)
#: Mamba-1 checkpoints (``mamba.py``, ``falcon_mamba.py``): selective-scan mixers, no attention
_MAMBA1_TYPES = frozenset({"mamba", "falcon_mamba"})
#: LFM2 (``lfm2.py``, ``lfm2_moe.py``): gated short-convolution layers between the attention
#: ones (``layer_types``), and an LM head of its own even where the file ties it (SGLang copies
#: the embedding into it at load)
_LFM2_TYPES = frozenset({"lfm2", "lfm2_moe"})
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n_text",
                              "phi3small",
                              # MambaConfig ties them unless the file says not
                              "mamba", "falcon_mamba",
                              # MiniCPM3's config class ties them unless the file says not
                              "minicpm3",
                              # and SGLang's own GraniteMoeHybridConfig (Granite 4.0-H)
                              "granitemoehybrid",
                              # and Starcoder2Config (transformers 5.19); SGLang's class then
                              # uses the embedding as its head and skips a stored lm_head
                              "starcoder2",
                              # and SGLang's own ZayaConfig (ZAYA1's legacy file leaves it out)
                              "zaya"})
#: model types whose published checkpoints store an LM head though their config class ties
#: it by default (StarCoder2-15B's files hold one: 63.8 GB in fp32)
_STORED_UNTIED_HEAD_TYPES = frozenset({"starcoder2"})
# SGLang 0.5.23's Step3p5Config (``configs/step3p5.py``): the MoE and KV-head keys it sets
# when a config leaves them out (Step-3.7's file without text_config falls back to it)
_STEP3P5_DEFAULTS = {"num_attention_groups": 8, "intermediate_size": 11264,
                     "moe_intermediate_size": 1280, "moe_num_experts": 288,
                     "share_expert_dim": 1280, "moe_layers_enum": tuple(range(3, 45))}
_GLM_IMAGE = "GlmImageForConditionalGeneration"
#: wrapper classes whose architecture name has no causal-LM suffix but whose SGLang class
#: builds a causal LM, its own head unless the embeddings are tied: MiniCPM-V and MiniCPM-o
#: (``minicpmv.py``, ``minicpmo.py``: ``llm``), Janus (``deepseek_janus_pro.py``:
#: ``language_model``, a LlamaForCausalLM), InternVL (``internvl.py``: ``language_model``)
_CAUSAL_LM_WRAPPERS = frozenset({"MiniCPMV", "MiniCPMO", "MultiModalityCausalLM",
                                 "InternVLChatModel"})
#: of those, the ones whose config class unties the head whatever the file says (SGLang's
#: InternVLChatConfig sets tie_word_embeddings False on itself and on its llm_config)
_UNTIED_WRAPPERS = frozenset({"InternVLChatModel"})
#: MiniCPM-V's language model by the config's ``version`` (``minicpmv.py`` _SUPPORT_VERSION;
#: a config without one is 2.6): Qwen2 for 2.6, Llama for 4.0, Qwen3 for 4.5
_MINICPMV_TEXT_TYPES = {"2.6": "qwen2", "4.0": "llama", "4.5": "qwen3"}


def built_text_type(config: Mapping[str, Any], model_type: str) -> str | None:
    """The text model a wrapper's SGLang class builds whatever type its file names (or
    where the file names none): Qwen3-ASR's config class builds its thinker's text config
    as ``Qwen3Config`` (``configs/qwen3_asr.py``); MiniCPM-o's class builds Qwen2
    (``minicpmo.py``), MiniCPM-V's the version's (``_MINICPMV_TEXT_TYPES``)."""
    if model_type == "qwen3_asr":
        return "qwen3"
    if model_type == "minicpmo":
        return "qwen2"
    if model_type == "minicpmv":
        version = config.get("version")
        return _MINICPMV_TEXT_TYPES.get("2.6" if version is None else str(version))
    return None


#: Audio encoders a top-level ``audio_config`` names beside the text model's own config
_TOP_LEVEL_AUDIO = frozenset({"qwen2_audio_encoder", "glmasr_encoder"})
#: model types whose config class builds the thinker's audio config as Qwen3-Omni's audio
#: encoder config (its defaults under the file's keys) whatever type the file names: SGLang's
#: configs/qwen3_asr.py (Qwen3-ASR's file says ``qwen3_asr_audio_encoder``, or nothing)
_OMNI_AUDIO_BUILT = frozenset({"qwen3_asr"})


def _glm_image_vqvae(vq: Any) -> list[Tensor]:
    """GLM-Image's VQ-VAE, which SGLang builds beside the language model to turn an input
    image into codes (``glm_image_vl.py`` GlmImageVQVAE): a codebook of ``num_embeddings`` x
    ``embed_dim`` and two 1x1 convolutions between it and ``latent_channels``, with biases,
    whole on every GPU."""
    if not isinstance(vq, Mapping):
        return []
    codes, dim, latent = (_int(vq, "num_embeddings"), _int(vq, "embed_dim"),
                          _int(vq, "latent_channels"))
    if not (codes and dim and latent):
        return []
    return [Tensor("vqvae.embedding", "vision", (codes, dim)),
            Tensor("vqvae.quant_conv", "vision", (dim, latent + 1)),
            Tensor("vqvae.post_quant_conv", "vision", (latent, dim + 1))]


#: model types whose MLP is one up and one down projection, no gate: SGLang's
#: ``starcoder2.py`` (c_fc, c_proj) and the BERT-family encoders (``bert.py``, ``roberta.py``:
#: BertIntermediate, BertOutput)
_UNGATED_MLP_TYPES = frozenset({"starcoder2", "bert", "roberta", "xlm-roberta",
                                # Apertus: up and down projections around xIELU (apertus.py)
                                "apertus",
                                # Phi 1/2 (phi.py fc1/fc2), Persimmon (persimmon.py
                                # dense_h_to_4h/dense_4h_to_h)
                                "phi", "persimmon",
                                # Nemotron-4 and Minitron (up_proj, squared ReLU, down_proj),
                                # which the transformers backend builds: SGLang has no class
                                "nemotron",
                                # Arcee's AFM (arcee.py ArceeMLP: up_proj, ReLU squared,
                                # down_proj)
                                "arcee"})
#: decoders with a bias on every linear, attention and MLP (``phi.py``: qkv_proj, dense,
#: fc1, fc2; ``persimmon.py``: query_key_value, dense and its MLP), beside LayerNorms with
#: biases; Phi's layer has one norm before its parallel attention and MLP, and a biased LM
#: head; Persimmon's q/k LayerNorms (``qk_layernorm``) hold a head-wide weight and bias
_BIASED_DECODER_TYPES = frozenset({"phi", "persimmon"})
#: BERT-family encoders: learned absolute positions and token types beside the words, and a
#: bias on every linear
_BERT_TYPES = frozenset({"bert", "roberta", "xlm-roberta"})
# model types with four norms per decoder layer (sandwich norms)
_FOUR_NORM_TYPES = frozenset({"gemma2", "gemma3", "gemma3_text", "gemma3n_text",
                              "afmoe",  # (AFMoE's pre_mlp / post_mlp layernorms)
                              "muse_glimmer", "muse_glimmer_text",  # (post_attn / post_ffn)
                              *_GLM4_TYPES,  # (post_self_attn / post_mlp layernorms)
                              "grok1"})  # (pre/post attention, pre/post MoE: ``grok.py``)
#: Muse Glimmer (``muse_glimmer.py``): a gate on the attention output unless
#: ``use_attn_output_gate`` (default on) says not; its q/k norms hold no weight
_MUSE_GLIMMER_TYPES = frozenset({"muse_glimmer", "muse_glimmer_text"})
# model types whose decoder layer has one norm, before attention and MLP run in parallel
# (Command R / R7B / A: ``commandr.py``'s ``input_layernorm`` alone)
_ONE_NORM_TYPES = frozenset({"cohere", "cohere2", "cohere2_moe", "phi"})
#: Cohere's MoE (``cohere2_moe.py``): Command R's one norm a layer and a head that is always
#: the embedding; the routed experts (and num_shared_experts shared ones) at
#: intermediate_size, the first first_k_dense_replace layers dense at
#: prefix_dense_intermediate_size
_COHERE_MOE_TYPES = frozenset({"cohere2_moe"})
#: HunYuan's MoE (``hunyuan.py``, Hunyuan-A13B): a shared MLP in every MoE layer where
#: use_mixed_mlp_moe is set
_HUNYUAN_MOE_TYPES = frozenset({"hunyuan_v1_moe"})
#: the OLMo family (``olmo.py``, ``olmo2.py``, ``olmoe.py``): OLMo's LayerNorms hold no weight
#: at all (no final one either); OLMo 2 and OLMo 3 (SGLang builds both with ``olmo2.py``)
#: normalize after attention and after the MLP only, no input norm; OLMo 2/3 and OLMoE norm q
#: and k across all heads at once, each GPU holding the whole vectors (q at hidden_size, k at
#: the KV heads' width; OLMoE's k at hidden_size too)
_WEIGHTLESS_NORM_TYPES = frozenset({"olmo"})
#: ERNIE 4.5's MoE (``ernie4.py``): MoE layers between moe_layer_start_index and
#: moe_layer_end_index, every moe_layer_interval-th, the others dense; each MoE layer's router
#: holds a correction bias and its shared experts
_ERNIE_MOE_TYPES = frozenset({"ernie4_5_moe"})
#: Laguna (``laguna.py``): per-layer query heads and output gates (``_laguna_attention``),
#: MoE layers by mlp_layer_types, a float32 router beside one shared expert
_LAGUNA_TYPES = frozenset({"laguna"})
#: DFlash draft classes (``dflash.py``): the draft's decoder layers and final norm, and the
#: context-feature projection (``_dflash_projection``), on the target's embedding and head
_DFLASH_ARCHS = frozenset({"DFlashDraftModel"})
#: MiniMax-M3 (``minimax_m3.py``; the VL file's text model): dense layers at
#: dense_intermediate_size, a float32 router and routing bias, and the sparse-attention
#: layers' indexer (``_minimax_m3_indexer``)
_MINIMAX_M3_TYPES = frozenset({"minimax_m3", "minimax_m3_vl", "minimax_m3_vl_text"})
#: decoders whose norms are LayerNorms with a bias (StableLM's ``stablelm.py``, Phi-3.5-MoE's
#: ``phimoe.py``, StarCoder 2's ``starcoder2.py``: every layer's two and the final one);
#: PhiMoE's LM head has a bias as well, whatever the file says, and StableLM biases q/k/v
#: where ``use_qkv_bias`` says so
_LAYERNORM_BIAS_TYPES = frozenset({"stablelm", "phimoe", "starcoder2", *_BIASED_DECODER_TYPES,
                                   *_ALL_BIASED_TYPES,
                                   # Nemotron's LayerNorm1P: a weight and a bias
                                   "nemotron"})
_POST_NORM_TYPES = frozenset({"olmo2", "olmo3",
                              # EXAONE 4 (``exaone4.py``): the same two, per-head q/k norms
                              "exaone4"})
_WHOLE_QK_NORM_TYPES = frozenset({"olmo2", "olmo3", "olmoe"})


#: reward and sequence-classification classes whose ``score`` linears carry a bias
#: (``qwen2_rm.py``, ``qwen3_rm.py``, ``qwen2_classification.py``, ``qwen3_classification.py``)
_BIASED_SCORE = ("Qwen2ForRewardModel", "Qwen3ForRewardModel", "Qwen2ForSequenceClassification",
                 "Qwen3ForSequenceClassification")


#: model types without rotary positions (learned absolute ones)
#: model types without SGLang's cos/sin table: the BERT encoders (absolute positions), and
#: types no release has a class for, whose transformers model (built by the transformers
#: backend) keeps only its inverse frequencies
_NO_ROPE_TYPES = _BERT_TYPES | {"nemotron"}
#: partial rotary factors of config classes whose files may leave the key out
#: (transformers' PersimmonConfig: half the head rotates)
_PARTIAL_ROTARY_DEFAULTS = {"persimmon": 0.5}
#: model types whose sliding-window layers build a second rotary table (their own base)
_TWO_ROPE_TYPES = frozenset({"gemma3", "gemma3_text"})
#: model types whose layer kinds (``layer_types``) each ask ``get_rope`` for their own table
_PER_KIND_ROPE_TYPES = frozenset({"olmo3", "laguna", "spark2_5"})
#: SGLang's Spark2_5Config rotary settings when the file has no ``rope_parameters``: full
#: layers rotate a quarter of each head, sliding-window ones all of it
_SPARK2_5_ROPE = {"full_attention": {"partial_rotary_factor": 0.25},
                  "sliding_attention": {"partial_rotary_factor": 1.0}}
#: the positions a class gives ``get_rope`` when its config has no max_position_embeddings:
#: Step3's config class spells its own ``max_position_embedding`` (and ``max_seq_len``),
#: which ``step3_vl.py`` does not read, so the table spans the class's 8192
_ROPE_POSITIONS_DEFAULT = {"step3_text": 8192, "step3_vl": 8192}


def _rope_tables(t: Mapping[str, Any], mt: str) -> list[Tensor]:
    """The cos/sin tables ``get_rope`` builds (float32 on CUDA and ROCm, positions x rotary
    dimension), one per distinct rotary embedding, shared by every layer that uses it and
    allocated with the model, so part of what loading takes: not a checkpoint tensor."""
    if mt in _NO_ROPE_TYPES or mt == "kimi_linear":  # (Kimi Linear / K3: NoPE MLA)
        return []
    if mt in _MUSE_GLIMMER_TYPES and not _muse_glimmer_rotates(t):
        return []
    head = _int(t, "qk_rope_head_dim") or _int(t, "head_dim") or (
        _int(t, "hidden_size") // max(1, _int(t, "num_attention_heads")))
    rotary = head
    factor = t.get("partial_rotary_factor", _PARTIAL_ROTARY_DEFAULTS.get(mt))
    params = t.get("rope_parameters")
    if factor is None and isinstance(params, Mapping):  # where transformers 5 writes it
        # (Qwen3.5 as published: SGLang's table is 64 of the 256 head columns wide)
        factor = params.get("partial_rotary_factor")
    if mt == "stablelm":  # ``stablelm.py`` reads rope_pct, else partial_rotary_factor
        # (which transformers 5.19, SGLang 0.5.23's pin, keeps; 5.24 drops it)
        factor = t.get("rope_pct", factor)
    if isinstance(factor, (int, float)) and 0 < factor < 1:
        rotary = int(rotary * factor)
    kinds = t.get("layer_types")
    if mt == "spark2_5":  # (its class fills in the kinds and their rotary settings)
        kinds = spark2_5_layer_types(t)
        params = params if isinstance(params, Mapping) else _SPARK2_5_ROPE
    if mt in _PER_KIND_ROPE_TYPES and isinstance(kinds, (list, tuple)):
        # one table per layer kind, each kind's rope_parameters entry (where the file has
        # them) its own base, scaling and partial factor: OLMo 3's sliding layers rotate
        # unscaled, its full ones with the file's scaling; Laguna's kinds name their own;
        # Spark-X2.5's full layers rotate a quarter of the head, its sliding ones all of it
        out = []
        for kind in dict.fromkeys(kinds):
            sub = params.get(kind) if isinstance(params, Mapping) else None
            sub = sub if isinstance(sub, Mapping) else {}
            f = sub.get("partial_rotary_factor", factor)
            width = int(head * f) if isinstance(f, (int, float)) and 0 < f < 1 else head
            out.append(Tensor(f"rotary_emb.{kind}.cos_sin_cache", "rope_cache",
                              (_int(t, "max_position_embeddings"), width), fp32=True,
                              every_stage=True, padding=True))
        return out
    if mt == _GROK and t.get("rope_type"):
        return _grok_rope_tables(t, rotary)
    if mt == "minimax_m2" and _int(t, "rotary_dim"):  # MiniMax-M2 names its rotary width
        rotary = _int(t, "rotary_dim")
    # the configured positions, whatever the scaling (Gemma-3's linear factor 8 and YaRN's
    # original length times its factor alike); a class whose config class has no such key
    # sizes the table by its own default
    positions = _int(t, "max_position_embeddings") or _ROPE_POSITIONS_DEFAULT.get(mt, 0)
    if not rotary or not positions:
        return []
    tables = 2 if mt in _TWO_ROPE_TYPES else 1
    scaling = t.get("rope_scaling") if isinstance(t.get("rope_scaling"), Mapping) else params
    if isinstance(scaling, Mapping) and scaling.get("rope_type", scaling.get("type")) in (
            "longrope", "su"):
        # LongRoPE: a short table over the scaling's original_max_position_embeddings (the
        # configured positions where it names none), a long one, and both again
        # concatenated. Where the config class holds that length as an attribute of its
        # own, transformers 5 writes it into the rope parameters SGLang reads, over the
        # scaling's (``_OWN_ORIGINAL_POSITIONS``)
        own = _OWN_ORIGINAL_POSITIONS.get(mt)
        if own is not None:
            short = _int(t, "original_max_position_embeddings", default=own)
        else:
            short = _int(scaling, "original_max_position_embeddings") or positions
        return [Tensor("rotary_emb.long_short_cos_sin_cache", "rope_cache",
                       (2 * (short + positions), rotary), fp32=True, every_stage=True,
                       padding=True)]
    # a DSA indexer asks for its own table unless it rotates as the attention does (it
    # defaults to NeoX halves, MLA to interleaved pairs: ``deepseek_v2.py``)
    if t.get("index_topk") is not None and bool(t.get("indexer_rope_interleave", False)) \
            != bool(t.get("rope_interleave", True)):
        tables += 1
    return [Tensor("rotary_emb.cos_sin_cache", "rope_cache", (positions, rotary), copies=tables,
                   fp32=True, every_stage=True, padding=True)]


#: text model types whose config class holds ``original_max_position_embeddings`` itself
#: (transformers 5's Phi3Config and Phi4MultimodalConfig, Phi-4-multimodal's remote class),
#: with its default: ``standardize_rope_params`` copies it into the rope parameters. PhiMoE's
#: class holds none, so the file's top-level key is not read (SGLang's table: 131,072 short
#: positions for Phi-3.5-MoE, 4,096 for Phi-4-multimodal)
_OWN_ORIGINAL_POSITIONS = {"phi3": 4096, "phi4_multimodal": 4096, "phi4mm": 4096}


def _grok_rope_tables(t: Mapping[str, Any], head: int) -> list[Tensor]:
    """Grok with ``rope_type`` set: each layer's attention builds ``get_rope``'s table, then
    replaces it with a scaled rotary embedding of its own, outside ``get_rope``'s cache, over
    original_max_position_embeddings x scaling_factor positions: one table a layer, plus the
    first (shared, kept in the cache). (Under pipeline parallelism a stage holds only its
    layers' tables; this counts all of them on every stage.)"""
    positions = _int(t, "max_position_embeddings")
    rotary = head // 2 if t.get("rope_rotate_half_dims") else head
    original = t.get("original_max_position_embeddings")
    factor = t.get("scaling_factor")
    out = []
    if positions and head:
        out.append(Tensor("rotary_emb.cos_sin_cache", "rope_cache", (positions, head),
                          fp32=True, every_stage=True, padding=True))
    if isinstance(original, (int, float)) and isinstance(factor, (int, float)) \
            and original > 0 and factor > 0 and rotary:
        n_layers = _int(t, "num_hidden_layers")
        out.append(Tensor("layers.rotary_emb.cos_sin_cache", "rope_cache",
                          (int(original * factor), rotary), copies=max(1, n_layers),
                          fp32=True, every_stage=True, padding=True))
    return out


def _muse_glimmer_rotates(t: Mapping[str, Any]) -> bool:
    """Whether any Muse Glimmer layer asks for a rotary table: its file's per-layer
    ``layer_rope_theta`` (0 for a NoPE layer) or SGLang's own ``no_rope_layers`` (1 for a
    rotating one); a file with neither leaves every layer without rotation."""
    thetas, flags = t.get("layer_rope_theta"), t.get("no_rope_layers")
    if isinstance(thetas, (list, tuple)):
        return any(thetas)
    return isinstance(flags, (list, tuple)) and 1 in flags


def _gemma4_rope_tables(t: Mapping[str, Any], kinds: list[str],
                        shapes: Shapes) -> list[Tensor]:
    """Gemma 4's tables: each layer kind asks ``get_rope`` for its own, across the kind's
    whole head width (a partial factor narrows the frequencies, not the table) and with the
    kind's ``rope_parameters``; kinds asking for the same one share it."""
    positions = _int(t, "max_position_embeddings")
    params = t.get("rope_parameters")
    params = params if isinstance(params, Mapping) else {}
    seen: set[tuple[Any, ...]] = set()
    out: list[Tensor] = []
    for kind in dict.fromkeys(kinds):
        hd = shapes.full_head_dim if kind == "full_attention" else shapes.swa_head_dim
        rope = params.get(kind)
        rope = rope if isinstance(rope, Mapping) else {}
        key = (hd, rope.get("rope_theta", 10000.0), rope.get("rope_type", "default"),
               rope.get("partial_rotary_factor", 1.0))
        if positions and key not in seen:
            seen.add(key)
            out.append(Tensor(f"rotary_emb.{kind}.cos_sin_cache", "rope_cache", (positions, hd),
                              fp32=True, every_stage=True, padding=True))
    return out


def _deepseek_v4_rope_tables(t: Mapping[str, Any], n_layers: int) -> list[Tensor]:
    """DeepSeek-V4's: compressing layers rotate by ``compress_rope_theta`` with YaRN, the
    others by the plain base, so each kind present builds its own ``get_rope`` table and,
    beside it, its own complex ``freqs_cis`` of the same size (``deepseek_v4.py``)."""
    positions = _int(t, "max_position_embeddings")
    rotary = _int(t, "qk_rope_head_dim", default=64)
    ratios = t.get("compress_ratios")
    ratios = list(ratios)[:n_layers] if isinstance(ratios, (list, tuple)) else [0]
    kinds = len({bool(r) for r in ratios}) or 1
    if not positions:
        return []
    return [Tensor(f"rotary_emb.{name}", "rope_cache", (positions, rotary), copies=kinds,
                   fp32=True, every_stage=True, padding=True)
            for name in ("cos_sin_cache", "freqs_cis")]


def _labels(config: Mapping[str, Any]) -> int:
    """The classifier's outputs as transformers' config counts them: ``id2label``'s entries,
    else ``num_labels``, else two."""
    id2label = config.get("id2label")
    if isinstance(id2label, Mapping) and id2label:
        return len(id2label)
    return _int(config, "num_labels") or 2


def _score_head(config: Mapping[str, Any], arch0: str, hidden: int) -> list[Tensor]:
    """The plain (replicated, never quantized) head a reward or classification class puts
    where a causal LM has its LM head: Qwen's reward models a hidden -> hidden -> 1 pair,
    InternLM2's one bias-free hidden -> 1, a decoder classifier one hidden -> labels."""
    if arch0 in ("Qwen2ForRewardModel", "Qwen3ForRewardModel"):
        return [Tensor("score.0", "score", (hidden, hidden + 1), shard="last"),
                Tensor("score.2", "score", (1, hidden + 1), shard="last")]
    if arch0 == "InternLM2ForRewardModel":
        return [Tensor("v_head", "score", (1, hidden), shard="last")]
    if arch0.endswith("ForSequenceClassification") and config.get("model_type") in _BERT_TYPES:
        # an encoder classifier's head, plain nn.Linear layers: BERT's pooler dense and
        # classifier (``bert.py``), RoBERTa's classification head dense and out_proj
        # (``roberta.py``); the same two shapes
        return [Tensor("classifier.dense", "score", (hidden, hidden + 1), shard="last"),
                Tensor("classifier.out_proj", "score", (_labels(config), hidden + 1),
                       shard="last")]
    if arch0.endswith("ForSequenceClassification"):
        bias = 1 if arch0 in _BIASED_SCORE else 0
        return [Tensor("score", "score", (_labels(config), hidden + bias), shard="last")]
    return []


#: Grok's classes (``grok.py``): the files name other model types (grok-2's is "git"), so
#: the architecture picks the layout: four norms a layer, ``residual_moe``'s dense MLP beside
#: the experts, and a rotary table a layer when the file sets ``rope_type``
_GROK_ARCHS = frozenset({"Grok1ForCausalLM", "Grok1ModelForCausalLM"})
_GROK = "grok1"
# the LLaVA classes that keep the text model's keys at the top of a ``llava`` config
# (``llava.py``; LLaVA-NeXT-Video's ``llavavid.py`` and Yi-VL's ``yivl.py``, a LlavaLlama
# subclass) -> the model type of the text class each builds around them
_LLAVA_TEXT_TYPES = {"LlavaLlamaForCausalLM": "llama", "LlavaQwenForCausalLM": "qwen2",
                     "LlavaMistralForCausalLM": "mistral", "LlavaVidForCausalLM": "llama",
                     "YiVLForCausalLM": "llama"}


def layout(config: Mapping[str, Any], text: Mapping[str, Any], model_type: str,
           text_type: str | None, arch0: str) -> Layout:
    """The tensors of a checkpoint whose top level is ``config`` and text config ``text``."""
    caveats: list[str] = []
    mt = (_LLAVA_TEXT_TYPES.get(arch0) or built_text_type(config, model_type) or text_type
          or model_type)
    if arch0 in _GROK_ARCHS:
        mt = _GROK
    t = canonical(text, mt)
    hidden = _int(t, "hidden_size", "d_model", "n_embd")
    vocab = _int(t, "vocab_size")
    n_layers = _int(t, "num_hidden_layers", "n_layer", "num_layers")
    main: list[Tensor] = []
    prefix = "model"
    if not hidden or not n_layers:
        caveats.append("config.json names no hidden_size / num_hidden_layers: weights unknown")
        return Layout(main, [], caveats)

    if mt == "whisper":
        return Layout(_whisper(t, vocab, hidden), [], caveats)
    if arch0 == "CLIPModel":
        from launchplan.memory.vision import clip_model
        return Layout(clip_model(config, t, Tensor), [], caveats)
    width = (_int(t, "word_embed_proj_dim") or hidden) if mt == "opt" else hidden
    # (Mllama's text model embeds eight rows past its vocabulary: ``mllama.py``)
    rows = vocab + 8 if mt == "mllama_text_model" else vocab
    if arch0 not in _DFLASH_ARCHS:
        main.append(Tensor(f"{prefix}.embed_tokens", "embedding", (rows, width),
                           shard="vocab"))
    if mt in _BERT_TYPES:  # (replicated, ``bert.py``'s BertEmbedding)
        n_pos, n_types = _int(t, "max_position_embeddings"), _int(t, "type_vocab_size")
        main += [Tensor(f"{prefix}.embeddings.position_and_type", "embedding",
                        (n_pos + n_types, hidden)),
                 # a position_ids row both encoders' embeddings hold as a parameter (no
                 # checkpoint stores it)
                 Tensor(f"{prefix}.embeddings.position_ids", "embedding", (1, n_pos),
                        padding=True)]
        if mt == "bert":  # BERT's position and type tables are vocabulary-parallel
            # embeddings too, their rows padded to a multiple of 64 like the words'
            extra = -(-n_pos // 64) * 64 - n_pos + -(-n_types // 64) * 64 - n_types
            if extra:
                main.append(Tensor(f"{prefix}.embeddings.position_and_type.padding",
                                   "embedding", (extra, hidden), padding=True))
    tied = (bool(config.get("tie_word_embeddings",
                            t.get("tie_word_embeddings", mt in _TIED_BY_DEFAULT)))
            or mt in CLASSIC_TIED | _COHERE_MOE_TYPES or _text_ties(config, model_type)
            ) and mt not in _LFM2_TYPES and arch0 not in _UNTIED_WRAPPERS
    # (ChatGLM's checkpoints name ChatGLMModel, a causal LM with its output_layer in SGLang)
    if (arch0.endswith(("ForCausalLM", "ForConditionalGeneration", "LMHeadModel"))
            or arch0 in _CAUSAL_LM_WRAPPERS
            or mt == "chatglm") and not tied and mt not in CLASSIC_TYPES:
        # (Gemma 4's assistant: a plain nn.Linear head, whole on every GPU, unpadded;
        # GLM-Image's autoregressive model predicts image tokens only: its head spans
        # ``vision_vocab_size``, its embedding the whole vocabulary, ``glm_image_vl.py``)
        rows = _int(t, "vision_vocab_size") if arch0 == _GLM_IMAGE else 0
        main.append(Tensor("lm_head", "lm_head", (rows or vocab, hidden), shard="last"
                           if model_type == "gemma4_assistant" else "head"))
        if mt in ("phimoe", "phi"):
            main.append(Tensor("lm_head.bias", "lm_head", (vocab, 1), shard="head"))
        if arch0 == "DotsOCRForCausalLM":  # (its inner Qwen2ForCausalLM keeps a head too)
            main.append(Tensor("model.lm_head", "lm_head", (vocab, hidden), shard="head"))
        extra = -(-vocab // 128) * 128 - -(-vocab // 64) * 64
        if mt in _MUSE_GLIMMER_TYPES and extra:  # its head pads the vocabulary to 128, not 64
            main.append(Tensor("lm_head.padding_to_128", "lm_head", (extra, hidden),
                               shard="head", padding=True))
    main += _score_head(config, arch0, hidden)
    if arch0 == _GLM_IMAGE:
        main += _glm_image_vqvae(config.get("vq_config"))
    # (the BERT encoders' is the embeddings' LayerNorm, with its bias; the classic decoders'
    # final LayerNorm has one too)
    norm = 2 * hidden if mt in _BERT_TYPES | CLASSIC_TYPES | _LAYERNORM_BIAS_TYPES else hidden
    if mt not in _WEIGHTLESS_NORM_TYPES:
        main.append(Tensor(f"{prefix}.norm", "norms", (norm, 1), shard="last"))
    if mt == "kimi_linear" and t.get("attn_res_block_size") is not None:
        # Kimi K3's final attention-residual read: its norm and a hidden -> 1 projection
        main.append(Tensor(f"{prefix}.output_attn_res_norm_proj", "norms", (2 * hidden, 1),
                           shard="last"))
    if mt in CLASSIC_TYPES:
        main += classic_decoder(t, mt, vocab, hidden, n_layers, _gqa, _ungated_mlp, Tensor)
        if mt == "gptj":  # partial rotary positions: the table spans rotary_dim
            main += _rope_tables({**t, "head_dim": _int(t, "rotary_dim") or hidden // max(
                1, _int(t, "n_head")), "max_position_embeddings": _int(t, "n_positions")}, mt)
        return Layout(main, [], caveats)

    layers = tuple(range(n_layers))
    if mt in _MAMBA1_TYPES:
        return Layout(main + _mamba1(t, hidden, layers), [], caveats)
    if mt == "step3p5":  # the class's own sizes where the file leaves them out
        t = {**_STEP3P5_DEFAULTS, **t}
    if mt == "nemotron_h":
        return Layout(_nemotron_h(t, vocab, hidden, n_layers, tied, caveats),
                      _nemotron_h_mtp(t, vocab, hidden, n_layers), caveats)
    if mt in HYBRID_MAMBA2_DEFAULTS:
        return Layout(main + _hybrid_mamba2({**HYBRID_MAMBA2_DEFAULTS[mt], **t}, mt, hidden,
                                            n_layers, caveats), [], caveats)
    if mt == "nemotron-nas" and isinstance(t.get("block_configs"), (list, tuple)):
        return Layout(main + _decilm(t, n_layers, caveats), [], caveats)
    if mt == "zaya":
        t = _zaya_config(t)
        return Layout(main + _zaya(t, hidden, _int(t, "num_hidden_layers"))
                      + _rope_tables(t, mt), [], caveats)
    moe_layers, dense_layers = _moe_split(t, mt, n_layers)
    gemma4 = None
    if model_type in GEMMA4_MODEL_TYPES:
        gemma4 = (gemma4_kinds(t, model_type, n_layers), gemma4_shapes(
            t, model_type, _int(t, "head_dim") or hidden // max(1, _int(
                t, "num_attention_heads")), _int(t, "num_key_value_heads")))
    main += _decoder(t, mt, layers, moe_layers, dense_layers, prefix, caveats, gemma4)
    if arch0 == "IQuestLoopCoderForCausalLM":
        main += _loop_gates(t, layers, prefix)
    if arch0 in _DFLASH_ARCHS:
        main += _dflash_projection(config, hidden, n_layers, caveats)
    if mt in _GEMMA3N_TYPES:
        main += _gemma3n_model_extras(config, t, hidden, n_layers, prefix)
    if model_type == "gemma4_assistant":
        # Gemma 4's MTP assistant (``gemma4_mtp.py``): replicated projections from the
        # target's embedding and hidden state (2 x backbone_hidden_size) into its own width
        # and back, and with use_ordered_embeddings a centroid head
        back = _int(config, "backbone_hidden_size") or hidden
        main += [Tensor("pre_projection", "draft_fc", (hidden, 2 * back)),
                 Tensor("post_projection", "draft_fc", (back, hidden))]
        if config.get("use_ordered_embeddings"):
            main.append(Tensor("centroids", "lm_head", (_int(config, "num_centroids"),
                                                         hidden)))
    cross = t.get("cross_attention_layers")
    if mt == "mllama_text_model" and isinstance(cross, (list, tuple)) and cross:
        # Mllama's cross-attention layers: the self-attention layer's shapes, plus per-head
        # q/k norms and the two scalar tanh gates on the attention and MLP outputs
        hd = _int(t, "head_dim") or hidden // max(1, _int(t, "num_attention_heads"))
        cl = tuple(int(i) for i in cross if int(i) < n_layers)
        main += [Tensor(f"{prefix}.layers.{{i}}.cross_attn.qk_norms", "norms", (2 * hd, 1), cl),
                 Tensor(f"{prefix}.layers.{{i}}.cross_attn_gates", "attention", (2, 1), cl)]
    if mt == "deepseek_v4":  # the hyper-connection streams folded back into one before the head
        mult = _int(t, "hc_mult", default=4)
        main += [Tensor(f"{prefix}.hc_head_fn", "hyper_connections", (mult, mult * hidden),
                        fp32=True, shard="last"),
                 Tensor(f"{prefix}.hc_head_base_scale", "hyper_connections", (mult + 1, 1),
                        fp32=True, shard="last")]
    if gemma4 is not None:
        main += _gemma4_rope_tables(t, *gemma4)
    elif mt == "deepseek_v4":
        main += _deepseek_v4_rope_tables(t, n_layers)
    else:
        main += _rope_tables(t, mt)

    mtp: list[Tensor] = []
    n_mtp = _int(t, "num_nextn_predict_layers")
    stages = t.get("dspark_target_layer_ids")
    if mt == "deepseek_v4" and isinstance(stages, (list, tuple)) and stages:
        mtp = _deepseek_v4_dspark(t, mt, n_layers, len(stages), prefix, caveats)
    elif mt in _GDN_TYPES:
        mtp = _qwen3_next_mtp(t, n_layers, caveats)
    elif n_mtp and (_int(t, "kv_lora_rank", "n_routed_experts") or (
            mt in _NEXTN_MOE_TYPES and moe_layers)):
        # DeepSeek-style MTP modules stored as layers L..L+n-1: a full (MoE) decoder layer,
        # two input norms, the 2h -> h projection, and copies of the embedding and head
        # (Ling/Ring 2.0's ``BailingMoeForCausalLMNextN`` builds the same around its block)
        extra = tuple(range(n_layers, n_layers + n_mtp))
        mtp += _decoder(t, mt, extra, extra, (), prefix, caveats)
        p = f"{prefix}.layers.{{i}}"
        mtp += [Tensor(f"{p}.enorm", "mtp", (hidden, 1), extra),
                Tensor(f"{p}.hnorm", "mtp", (hidden, 1), extra),
                Tensor(f"{p}.eh_proj", "mtp", (hidden, 2 * hidden), extra),
                Tensor(f"{p}.shared_head.norm", "mtp", (hidden, 1), extra),
                Tensor(f"{p}.embed_tokens", "mtp_embedding", (vocab, hidden), extra,
                       shard="vocab"),
                Tensor(f"{p}.shared_head.head", "mtp_embedding", (vocab, hidden), extra,
                       shard="head")]
    elif n_mtp and mt in _NEXTN_NO_COPIES_TYPES:
        extra = tuple(range(n_layers, n_layers + n_mtp))
        moe = extra if moe_layers else ()
        mtp += _decoder(t, mt, extra, moe, () if moe else extra, prefix, caveats)
        p = f"{prefix}.layers.{{i}}"
        mtp += [Tensor(f"{p}.enorm_hnorm_shared_head_norm", "mtp", (3 * hidden, 1), extra),
                Tensor(f"{p}.eh_proj", "mtp", (hidden, 2 * hidden), extra)]
    elif n_mtp and mt == "mimo":
        mtp = _mimo_mtp(t, mt, vocab, hidden, n_layers, prefix, caveats)
    elif n_mtp and mt in _EXAONE_MTP_TYPES:
        mtp = _exaone_moe_mtp(t, mt, hidden, n_layers, 0 in moe_layers, caveats)
    towers = _tower_holder(config)
    from launchplan.memory.vision import filled_vision_config
    vision = filled_vision_config(model_type, towers.get("vision_config"))
    from launchplan.facts.vision import loader_vision_config
    injected = loader_vision_config(arch0)
    if injected is not None and arch0 == "Phi4MMForCausalLM":  # (its reader-set SigLIP)
        from launchplan.memory.vision import phi4mm_towers
        main += phi4mm_towers(config, injected, hidden, caveats, Tensor)
    elif arch0 == "DeepseekOCRForCausalLM":  # SGLang builds fixed towers, whatever the config
        from launchplan.memory.vision import deepseek_ocr_towers
        main += deepseek_ocr_towers(config, Tensor)
    elif model_type == "deepseek_vl_v2":  # a fixed timm tower, whatever vision_config says
        from launchplan.memory.vision import deepseek_vl2_towers
        main += deepseek_vl2_towers(config, Tensor)
    elif model_type == "gemma3n":
        caveats.append("Gemma 3n's MobileNetV5 vision tower and audio encoder are not counted "
                       "(its soft-token embedders are)")
    elif model_type == "multi_modality":  # Janus: its towers' sizes sit in ``params`` blocks
        from launchplan.memory.vision import janus_towers
        main += janus_towers(config, caveats, Tensor)
    elif isinstance(vision, Mapping) and vision:
        from launchplan.memory.vision import vision_tower  # it builds this module's Tensor
        main += vision_tower(vision, model_type, hidden, caveats, Tensor, config)
    elif arch0 in _LLAVA_TEXT_TYPES:  # its tower comes by name, from another checkpoint
        from launchplan.memory.vision import llava_named_tower
        main += llava_named_tower(config, hidden, caveats, Tensor, arch0)
    if model_type == "minicpmo":  # its Whisper encoder and audio projection
        from launchplan.memory.vision import minicpmo_audio
        main += minicpmo_audio(config, hidden, Tensor)
    if model_type == "granite_speech":  # its speech encoder and Q-Former projector
        from launchplan.memory.vision import granite_speech_towers
        main += granite_speech_towers(config, hidden, caveats, Tensor)
    audio = towers.get("audio_config")
    if config.get("model_type") in _OMNI_AUDIO_BUILT:  # built as Qwen3-Omni's, whatever named
        from launchplan.memory.vision import QWEN3_OMNI_AUDIO
        audio = {**QWEN3_OMNI_AUDIO, **(audio if isinstance(audio, Mapping) else {}),
                 "model_type": "qwen3_omni_moe_audio_encoder"}
    # (a thinker's tower, or Qwen2-Audio's or GLM-ASR's beside its top-level text model)
    if isinstance(audio, Mapping) and audio and (
            towers is not config or audio.get("model_type") in _TOP_LEVEL_AUDIO):
        from launchplan.memory.vision import audio_tower
        main += audio_tower(audio, caveats, Tensor, hidden)
    stored: tuple[Tensor, ...] = ()
    if (tied and mt in _STORED_UNTIED_HEAD_TYPES and "tie_word_embeddings" not in config
            and "tie_word_embeddings" not in t):
        stored = (Tensor("lm_head", "lm_head", (vocab, hidden), shard="head"),)
    return Layout(main, mtp, caveats, stored)


#: VLM config classes (transformers 5.24) that tie the embeddings when their text sub-config
#: does, whatever the top level says (pre-v5 files kept the key there), and the text class's
#: default when the sub-config leaves it out: PaddleOCR-VL's and HunYuan-VL's tie, the others'
#: hold no such attribute. A flat file's text sub-config (PaddleOCR-VL has no ``text_config``
#: key) is built from the class defaults alone, so its default decides.
_TEXT_TIES_TYPES = {"glm4v": False, "glm4v_moe": False, "glm_ocr": False, "qwen2_vl": False,
                    "qwen2_5_vl": False, "perception_lm": False, "shieldgemma2": False,
                    "paddleocr_vl": True, "hunyuan_vl": True}


def _text_ties(config: Mapping[str, Any], model_type: str) -> bool:
    """Whether ``model_type``'s config class ties the embeddings through its text
    sub-config (``_TEXT_TIES_TYPES``)."""
    if model_type not in _TEXT_TIES_TYPES:
        return False
    sub = config.get("text_config")
    default = _TEXT_TIES_TYPES[model_type]
    return bool(sub.get("tie_word_embeddings", default) if isinstance(sub, Mapping)
                else default)


def _tower_holder(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The config that holds the encoder towers SGLang builds: a thinker's (Qwen3-Omni's
    class builds its thinker alone, text model, vision and audio towers, and keeps them in
    ``thinker_config``), else the top level."""
    thinker = config.get("thinker_config")
    if isinstance(thinker, Mapping) and not isinstance(config.get("vision_config"), Mapping):
        return thinker
    return config


#: MoE types whose checkpoint's ``num_nextn_predict_layers`` SGLang builds as a DeepSeek-style
#: NextN draft from the same checkpoint though their experts sit under ``num_experts``
#: (``model_config.py`` swaps in ``BailingMoeForCausalLMNextN``)
_NEXTN_MOE_TYPES = frozenset({"bailing_moe", "bailing_moe_v2"})
#: model types whose draft is ``ExaoneMoEForCausalLMMTP`` (``exaone_moe_mtp.py``)
_EXAONE_MTP_TYPES = frozenset({"exaone_moe"})


def _exaone_moe_mtp(t: Mapping[str, Any], mt: str, hidden: int, n_layers: int,
                    first_is_moe: bool, caveats: list[str]) -> list[Tensor]:
    """EXAONE-MoE's MTP draft, which SGLang builds from the target's checkpoint
    (``ExaoneMoEForCausalLMMTP``): one decoder layer whatever count the file declares, built
    as layer 0 of a one-layer model and so of layer 0's kind (dense on K-EXAONE, whose
    ``is_moe_layer`` starts False), the 2h -> h ``fc`` (a plain linear, whole on every GPU),
    the two norms before it and the final norm. The checkpoint stores no embedding or head
    for it; the copies it builds are ``weights._own_copies``."""
    extra = (n_layers,)
    moe = extra if first_is_moe else ()
    out = _decoder(t, mt, extra, moe, () if moe else extra, "mtp", caveats)
    return out + [Tensor("mtp.fc", "mtp", (hidden, 2 * hidden), extra),
                  Tensor("mtp.pre_fc_norms_and_norm", "mtp", (3 * hidden, 1), extra)]


def _mimo_mtp(t: Mapping[str, Any], mt: str, vocab: int, hidden: int, n_layers: int,
              prefix: str, caveats: list[str]) -> list[Tensor]:
    """MiMo's dense MTP module (SGLang's ``mimo_mtp.py``: one ``MiMoMultiTokenPredictorLayer``
    whatever ``num_nextn_predict_layers`` says): a Qwen2 decoder layer, the token and hidden
    norms, the 2h -> h ``input_proj``, a final norm, and its own embedding and head."""
    extra = (n_layers,)
    p = f"{prefix}.mtp_layers.{{i}}"
    return [*_decoder(t, mt, extra, (), extra, prefix, caveats),
            Tensor(f"{p}.token_layernorm", "mtp", (hidden, 1), extra),
            Tensor(f"{p}.hidden_layernorm", "mtp", (hidden, 1), extra),
            Tensor(f"{p}.input_proj", "mtp", (hidden, 2 * hidden), extra),
            Tensor(f"{p}.final_layernorm", "mtp", (hidden, 1), extra),
            Tensor(f"{p}.embed_tokens", "mtp_embedding", (vocab, hidden), extra, shard="vocab"),
            Tensor("lm_head", "mtp_embedding", (vocab, hidden), extra, shard="head")]


#: model types whose SGLang class takes each layer's kind from a per-layer list the config
#: derives from ``first_k_dense_replace`` when the file has none: ``mlp_layer_types``
#: ("dense"/"sparse"; transformers' ExaoneMoeConfig, SGLang's Laguna handled apart)
_MLP_LAYER_TYPES_TYPES = frozenset({"exaone_moe"})


#: config classes whose ``first_k_dense_replace`` defaults to a dense first layer
#: (transformers' ExaoneMoeConfig, SarvamMoEConfig, SGLang's BailingHybridConfig)
_FIRST_K_DEFAULTS = {"exaone_moe": 1, "sarvam_moe": 1, "bailing_hybrid": 1}


def _per_layer_moe(t: Mapping[str, Any], mt: str) -> list[bool] | None:
    """Each layer's MoE flag where the config lists them, else None. ``is_moe_layer`` (one
    bool a layer) is what SGLang's ``exaone_moe.py`` reads, whatever else the file says (a
    K-EXAONE file's ``first_last_k_dense_replace`` is read by no SGLang or transformers
    class); ``mlp_layer_types`` is its config class's own list, for a file without one."""
    flags = t.get("is_moe_layer")
    if isinstance(flags, (list, tuple)) and flags:
        return [bool(x) for x in flags]
    kinds = t.get("mlp_layer_types")
    if mt in _MLP_LAYER_TYPES_TYPES and isinstance(kinds, (list, tuple)) and kinds:
        return [k == "sparse" for k in kinds]
    return None


def _moe_split(t: Mapping[str, Any], mt: str, n_layers: int) -> tuple[tuple[int, ...],
                                                                       tuple[int, ...]]:
    """(MoE layers, dense layers) of the main stack."""
    experts = _int(t, "n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
    if not experts:
        return (), tuple(range(n_layers))
    freq = t.get("moe_layer_freq")
    enum = t.get("moe_layers_enum")  # Step-3.5's config class: the MoE layers, listed
    if isinstance(enum, str):
        enum = [x for x in enum.split(",") if x.strip()]
    if isinstance(enum, (list, tuple)) and "first_k_dense_replace" not in t:
        listed = {int(x) for x in enum}
        moe = tuple(i for i in range(n_layers) if i in listed)
        return moe, tuple(i for i in range(n_layers) if i not in listed)
    flags = _per_layer_moe(t, mt)
    if flags is not None:
        moe = tuple(i for i in range(n_layers) if i < len(flags) and flags[i])
        return moe, tuple(i for i in range(n_layers) if not (i < len(flags) and flags[i]))
    if isinstance(freq, (list, tuple)):  # one flag per layer (MiMo-V2-Flash): 1 marks MoE
        moe = tuple(i for i in range(n_layers) if i < len(freq) and freq[i])
    elif "first_k_dense_replace" in t or "moe_layer_freq" in t or mt in _FIRST_K_DEFAULTS:
        k = _int(t, "first_k_dense_replace", default=_FIRST_K_DEFAULTS.get(mt, 0))
        freq = max(1, _int(t, "moe_layer_freq", default=1))
        moe = tuple(i for i in range(n_layers) if i >= k and i % freq == 0)
    elif mt in _ERNIE_MOE_TYPES:  # every moe_layer_interval-th layer from the start index
        # to the end index (inclusive; the config class's -1 means the last layer)
        start = _int(t, "moe_layer_start_index", default=1)
        end = t.get("moe_layer_end_index", -1)
        end = n_layers - 1 if end is None or int(end) == -1 else int(end)
        step = max(1, _int(t, "moe_layer_interval", default=1))
        moe = tuple(i for i in range(n_layers) if start <= i <= end and (i - start) % step == 0)
    elif mt in _LAGUNA_TYPES:  # its config class: a dense first layer unless
        # mlp_layer_types lists each layer's kind
        kinds = t.get("mlp_layer_types")
        if not isinstance(kinds, (list, tuple)) or not kinds:
            kinds = ["dense"] + ["sparse"] * (n_layers - 1)
        moe = tuple(i for i in range(n_layers) if i < len(kinds) and kinds[i] == "sparse")
    elif mt in ("lfm2_moe", "afmoe"):  # dense MLPs in the first num_dense_layers (the
        # config classes' defaults: 2 for LFM2-MoE, 1 for AFMoE)
        k = _int(t, "num_dense_layers", default=2 if mt == "lfm2_moe" else 1)
        moe = tuple(range(k, n_layers))
    elif mt == "llama4_text":  # ``llama4.py``: every interleave_moe_layer_step-th layer
        step = _int(t, "interleave_moe_layer_step", default=1)
        moe = tuple(i for i in range(n_layers) if step and (i + 1) % step == 0)
    else:
        only = t.get("mlp_only_layers") or ()
        step = max(1, _int(t, "decoder_sparse_step", default=1))
        moe = tuple(i for i in range(n_layers)
                    if i not in only and (i + 1) % step == 0)
    routed = set(moe)
    dense = tuple(i for i in range(n_layers) if i not in routed)
    return moe, dense


def _deepseek_v4_dspark(t: Mapping[str, Any], mt: str, n_layers: int, n_stages: int,
                        prefix: str, caveats: list[str]) -> list[Tensor]:
    """DeepSeek-V4's DSpark drafter, which a DSpark checkpoint stores as its ``mtp.*`` stages
    in place of a NextN layer (SGLang 0.5.23's ``DeepseekV4ForCausalLMDSpark``): one V4
    decoder layer a target layer it reads (no compressed attention; the drafter's own expert
    count where the config gives one), the target hidden states' projection and its norm on
    the first stage, a final norm and the hyper-connection head on the last, and the Markov
    head (its input table in the model dtype, its output matrix in float32, both whole on
    every GPU). It shares the target's embedding and head: no copies."""
    hidden, vocab = _int(t, "hidden_size"), _int(t, "vocab_size")
    rank = _int(t, "dspark_markov_rank")
    stage = dict(t)
    for key, own in (("n_routed_experts", "dspark_n_routed_experts"),
                     ("num_experts_per_tok", "dspark_num_experts_per_tok")):
        if _int(t, own):
            stage[key] = _int(t, own)
    extra = tuple(range(n_layers, n_layers + n_stages))
    out = _decoder(stage, mt, extra, extra, (), prefix, caveats)
    p = f"{prefix}.layers.{{i}}"
    first, last = (n_layers,), (n_layers + n_stages - 1,)
    out += [Tensor(f"{p}.main_proj", "mtp", (hidden, hidden * n_stages), first, linear=True),
            Tensor(f"{p}.main_norm", "mtp", (hidden, 1), first),
            Tensor(f"{p}.norm", "mtp", (hidden, 1), last),
            Tensor(f"{prefix}.markov_head.markov_w1", "mtp", (vocab, rank)),
            Tensor(f"{prefix}.markov_head.markov_w2", "mtp", (vocab, rank), fp32=True),
            Tensor(f"{prefix}.confidence_head.proj", "mtp", (1, hidden + rank))]
    if not t.get("hc_pre_from_prev_sublayer"):  # V4.1 folds the head into the last FFN
        mult = _int(t, "hc_mult", default=4)
        out += [Tensor(f"{p}.hc_head_fn", "mtp", (mult, mult * hidden), last, fp32=True),
                Tensor(f"{p}.hc_head_base", "mtp", (mult, 1), last, fp32=True),
                Tensor(f"{p}.hc_head_scale", "mtp", (1, 1), last, fp32=True)]
    return out


def _decoder(t: Mapping[str, Any], mt: str, layers: tuple[int, ...], moe_layers: tuple[int, ...],
             dense_layers: tuple[int, ...], prefix: str, caveats: list[str],
             gemma4: tuple[list[str], Shapes] | None = None) -> list[Tensor]:
    """One stack of decoder layers; ``gemma4``: a Gemma-4-typed config's layer kinds and
    per-kind attention shapes, as its config class flattens them."""
    hidden = _int(t, "hidden_size")
    p = f"{prefix}.layers.{{i}}"
    # (a BERT LayerNorm's bias too)
    norm = 2 * hidden if mt in _BERT_TYPES | _LAYERNORM_BIAS_TYPES else hidden
    out = []
    if mt in _POST_NORM_TYPES:
        out += [Tensor(f"{p}.post_attention_layernorm", "norms", (norm, 1), layers),
                Tensor(f"{p}.post_feedforward_layernorm", "norms", (norm, 1), layers)]
    elif mt not in _WEIGHTLESS_NORM_TYPES:
        out.append(Tensor(f"{p}.input_layernorm", "norms", (norm, 1), layers))
        if mt not in _ONE_NORM_TYPES:
            out.append(Tensor(f"{p}.post_attention_layernorm", "norms", (norm, 1), layers))
    if mt in _FOUR_NORM_TYPES or gemma4 is not None:
        out += [Tensor(f"{p}.pre_feedforward_layernorm", "norms", (hidden, 1), layers),
                Tensor(f"{p}.post_feedforward_layernorm", "norms", (hidden, 1), layers)]
    if mt == "kimi_linear" and isinstance(t.get("linear_attn_config"), Mapping):
        out += _kimi_linear_mixers(t, layers, p)
    elif mt in _LFM2_TYPES:
        out += _lfm2_mixers(t, mt, layers, p)
    elif mt == "deepseek_v4":
        out += _deepseek_v4_attention(t, layers, p)
        if {1, 2} & set(t.get("compress_ratios") or ()):
            caveats.append("DeepSeek-V4.1's ratio-1 and ratio-2 compressors and indexers are "
                           "not counted")
    elif _int(t, "kv_lora_rank"):
        out += _mla(t, layers, p)
    elif gemma4 is not None:
        out += _gemma4_attention(t, mt, layers, p, *gemma4)
    elif mt in _MIMO_V2_TYPES and isinstance(t.get("hybrid_layer_pattern"), (list, tuple)):
        pattern = t["hybrid_layer_pattern"]
        swa = tuple(i for i in layers if i < len(pattern) and pattern[i] == 1)
        swa_set = set(swa)
        full = tuple(i for i in layers if i not in swa_set)
        if full:
            out += _gqa(t, mt, full, p)
        if swa:
            sw = dict(t)
            for key in ("num_attention_heads", "num_key_value_heads", "head_dim",
                        "v_head_dim"):
                if t.get(f"swa_{key}") is not None:
                    sw[key] = t[f"swa_{key}"]
            out += _gqa(sw, mt, swa, p)
            if t.get("add_swa_attention_sink_bias"):
                out.append(Tensor(f"{p}.self_attn.attention_sink_bias", "attention",
                                  (_int(sw, "num_attention_heads"), 1), swa, shard="attn_tp"))
    elif mt in _GDN_TYPES:
        kinds = t.get("layer_types")
        if isinstance(kinds, (list, tuple)) and len(kinds) >= len(layers) and layers == tuple(
                range(len(layers))):
            full = tuple(i for i in layers if kinds[i] != "linear_attention")
        else:
            interval = max(1, _int(t, "full_attention_interval", default=4))
            full = tuple(i for i in layers if (i + 1) % interval == 0)
        out += _gqa(t, mt, full, p, gated_q=True) if full else []
        full_set = set(full)
        linear = tuple(i for i in layers if i not in full_set)
        out += _gated_delta_net(t, linear, p) if linear else []
    elif mt in _LAGUNA_TYPES:
        out += _laguna_attention(t, mt, layers, p)
    elif mt in _FACTORED_Q_TYPES and _int(t, "share_q_dim"):
        out += _factored_q_attention(t, layers, p)
    else:
        out += _gqa(t, mt, layers, p)
        if mt in _MINIMAX_M3_TYPES:
            out += _minimax_m3_indexer(t, layers, p)
    if dense_layers:
        # (Llama 4's dense layers are wider than its experts: intermediate_size_mlp)
        inter = _int(t, "intermediate_size_mlp", "intermediate_size", "ffn_dim", "n_inner",
                     "ff_intermediate_size")
        if mt in _HALF_WIDTH_MLP_TYPES:
            inter //= 2
        if mt in _MINIMAX_M3_TYPES:  # its dense layers' own width
            inter = _int(t, "dense_intermediate_size") or inter
        if mt in _COHERE_MOE_TYPES:
            inter = _int(t, "prefix_dense_intermediate_size") or inter
        if mt == "lfm2":
            inter = _lfm2_ff_dim(t)
        if isinstance(t.get("intermediate_size"), (list, tuple)):
            out += _per_layer_mlp(t, hidden, dense_layers, p, caveats)
        elif not inter:  # (an MLP of width 0 would vanish from the plan unnoticed)
            caveats.append("config.json gives the dense MLP no width (intermediate_size): "
                           "its weights are not counted")
        elif mt in _UNGATED_MLP_TYPES:
            bias = mt in _BERT_TYPES | _BIASED_DECODER_TYPES or bool(
                t.get("use_bias", t.get("mlp_bias")))
            out += _ungated_mlp(f"{p}.mlp", hidden, inter, dense_layers, bias)
            if mt == "apertus":  # xIELU's two learned scalars (alpha_p, alpha_n) per layer
                out.append(Tensor(f"{p}.mlp.act_fn.alphas", "mlp", (2, 1), dense_layers))
        else:
            out += _mlp(f"{p}.mlp", "mlp", hidden, inter, dense_layers,
                        "dense" if _int(t, "first_k_dense_replace") else "tp",
                        bias=bool(t.get("mlp_bias")) or mt in _ALL_BIASED_TYPES)
    if mt in _GEMMA3N_TYPES:
        out += _gemma3n_layer_extras(t, hidden, layers, p)
    if moe_layers:
        out += _moe(t, mt, moe_layers, p)
        if mt == _GROK and t.get("residual_moe"):
            # grok-2: a dense gated MLP of intermediate_size runs beside the experts (whose
            # width is moe_intermediate_size) in every layer
            out += _mlp(f"{p}.mlp", "mlp", hidden, _int(t, "intermediate_size"), moe_layers,
                        "tp")
        if t.get("enable_moe_block") and mt == "gemma4_text":
            # Gemma 4's MoE layers keep a dense MLP beside the experts, with three more norms
            # and the router's and each expert's scales (gemma4_causal.py)
            out += _mlp(f"{p}.mlp", "mlp", hidden, _int(t, "intermediate_size"), moe_layers,
                        "tp")
            out += [Tensor(f"{p}.extra_feedforward_norms", "norms", (3 * hidden, 1),
                           moe_layers),
                    Tensor(f"{p}.router.scale", "router", (hidden, 1), moe_layers),
                    Tensor(f"{p}.moe.per_expert_scale", "router", (_int(t, "num_experts"), 1),
                           moe_layers)]
    return out


def _gqa(t: Mapping[str, Any], mt: str, layers: tuple[int, ...], p: str,
         gated_q: bool = False, name: str = "self_attn") -> list[Tensor]:
    """GQA attention; ``gated_q``: q_proj also yields an output gate (Qwen3-Next)."""
    hidden = _int(t, "hidden_size")
    heads = _int(t, "num_attention_heads")
    kv = _int(t, "num_key_value_heads", "num_attention_groups", default=heads) or heads
    hd = _int(t, "head_dim", "attention_head_dim") or hidden // max(heads, 1)
    a = f"{p}.{name}"
    q_rows = heads * hd * (2 if gated_q else 1)
    # MiMo-V2's values are narrower than its queries and keys (``mimo_v2.py``)
    vd = (_int(t, "v_head_dim") or hd) if mt in _MIMO_V2_TYPES else hd
    out = [Tensor(f"{a}.q_proj", "attention", (q_rows, hidden), layers, linear=True,
                  shard="attn_tp"),
           Tensor(f"{a}.k_proj", "attention", (kv * hd, hidden), layers, linear=True, shard="kv"),
           Tensor(f"{a}.v_proj", "attention", (kv * vd, hidden), layers, linear=True, shard="kv"),
           Tensor(f"{a}.o_proj", "attention", (hidden, heads * vd), layers, linear=True,
                  shard="attn_tp")]
    bias = bool(t.get("attention_bias")) or mt in (
        _BERT_TYPES | _BIASED_DECODER_TYPES | _ALL_BIASED_TYPES) or bool(
        mt == "starcoder2" and t.get("use_bias"))
    qkv_bias = bias or mt in _QKV_BIAS_TYPES or bool(t.get("qkv_only_bias")) or bool(
        mt == "stablelm" and t.get("use_qkv_bias"))
    if qkv_bias:
        out += [Tensor(f"{a}.q_proj.bias", "attention", (heads * hd, 1), layers, shard="attn_tp"),
                Tensor(f"{a}.k_proj.bias", "attention", (kv * hd, 1), layers, shard="kv"),
                Tensor(f"{a}.v_proj.bias", "attention", (kv * hd, 1), layers, shard="kv")]
    if bias and mt not in _QKV_BIAS_TYPES | _GLM4_MOE_TYPES | _GLM4_TYPES:
        out.append(Tensor(f"{a}.o_proj.bias", "attention", (hidden, 1), layers))
    if mt == "minimax_m2" and t.get("use_qk_norm") and t.get(
            "qk_norm_type", "per_layer") == "per_layer":
        # MiniMax-M2 normalizes all of q and all of k at once, its weights split with the heads
        out += [Tensor(f"{a}.q_norm", "norms", (heads * hd, 1), layers, shard="attn_tp"),
                Tensor(f"{a}.k_norm", "norms", (kv * hd, 1), layers, shard="kv")]
    elif mt == "persimmon" and t.get("qk_layernorm"):
        out += [Tensor(f"{a}.q_layernorm", "norms", (2 * hd, 1), layers),
                Tensor(f"{a}.k_layernorm", "norms", (2 * hd, 1), layers)]
    elif mt in _WHOLE_QK_NORM_TYPES:
        out += [Tensor(f"{a}.q_norm", "norms", (hidden, 1), layers),
                Tensor(f"{a}.k_norm", "norms", (hidden if mt == "olmoe" else kv * hd, 1),
                       layers)]
    elif mt in _QK_NORM_TYPES or (t.get("use_qk_norm", mt in _QK_NORM_DEFAULT_ON)
                                  and mt != "llama4_text"
                                  and mt not in _MUSE_GLIMMER_TYPES) or (
            mt in _HYV3_TYPES and t.get("use_qk_norm", t.get("qk_norm"))):
        # (HunYuan V3 reads use_qk_norm, else its file's qk_norm)
        # (Llama 4's and Muse Glimmer's q/k norms hold no weight: ``llama4.py``)
        out += [Tensor(f"{a}.q_norm", "norms", (hd, 1), layers),
                Tensor(f"{a}.k_norm", "norms", (hd, 1), layers)]
    if mt == "gpt_oss":
        out.append(Tensor(f"{a}.sinks", "attention", (heads, 1), layers, shard="attn_tp"))
    if mt in _HEADWISE_GATE_TYPES and t.get("headwise_attn_output_gate", True):
        # one sigmoid gate value per head (``g_proj``, kept unquantized)
        out.append(Tensor(f"{a}.g_proj", "attention", (heads, hidden), layers,
                          shard="attn_tp"))
    if mt == "afmoe" or (mt in _MUSE_GLIMMER_TYPES and t.get("use_attn_output_gate", True)):
        # a sigmoid gate on the attention output, one value per head channel
        out.append(Tensor(f"{a}.gate_proj", "attention", (heads * hd, hidden), layers,
                          linear=True, shard="attn_tp"))
    return out


#: model types whose attention has a head-wise output gate under
#: ``headwise_attn_output_gate`` (default on): Spark-X2.5 (``spark2_5.py``)
_HEADWISE_GATE_TYPES = frozenset({"spark2_5"})


#: model types whose attention enters the query through a narrow shared projection
#: (``share_q_dim``): Step3's MFA (``step3_vl.py``'s text model)
_FACTORED_Q_TYPES = frozenset({"step3_text", "step3_vl"})


def _factored_q_attention(t: Mapping[str, Any], layers: tuple[int, ...],
                          p: str) -> list[Tensor]:
    """Step3's attention: one replicated projection makes the share_q_dim-wide query and the
    key and value, an RMSNorm over the query, then ``wq`` widens it to the heads (split over
    attention TP, as ``o_proj``)."""
    hidden = _int(t, "hidden_size")
    heads = _int(t, "num_attention_heads")
    kv = _int(t, "num_attention_groups", "num_key_value_heads", default=1) or 1
    hd = _int(t, "head_dim") or hidden // max(heads, 1)
    share = _int(t, "share_q_dim")
    a = f"{p}.self_attn"
    return [Tensor(f"{a}.qkv_proj.q", "attention", (share, hidden), layers, linear=True),
            # (the merged projection is replicated, its key/value part one rank's KV heads)
            Tensor(f"{a}.qkv_proj.kv", "attention", (2 * kv * hd, hidden), layers,
                   linear=True, shard="kv"),
            Tensor(f"{a}.inter_norm", "norms", (share, 1), layers),
            Tensor(f"{a}.wq", "attention", (heads * hd, share), layers, linear=True,
                   shard="attn_tp"),
            Tensor(f"{a}.o_proj", "attention", (hidden, heads * hd), layers, linear=True,
                   shard="attn_tp")]


def _loop_gates(t: Mapping[str, Any], layers: tuple[int, ...], p: str) -> list[Tensor]:
    """IQuest LoopCoder's per-layer loop gates, held beside the decoder layers, not in them
    (``models/iquest_loopcoder.py``: ``IQuestLoopCoderModel.gate_projections``, one
    ``LoopGateProjection`` a stored layer): a column-parallel head_dim -> heads projection
    with a bias, split over TP by heads, mixing loop 1's keys and values into the later
    loops'. Its head_dim is hidden_size // heads whatever the config's ``head_dim``."""
    heads = _int(t, "num_attention_heads")
    head_dim = _int(t, "hidden_size") // max(1, heads)
    gate = f"{p}.gate_projections.{{i}}.gate_proj"
    return [Tensor(gate, "attention", (heads, head_dim), layers, linear=True, shard="tp"),
            Tensor(f"{gate}.bias", "attention", (heads, 1), layers, shard="tp")]


def _dflash_projection(config: Mapping[str, Any], hidden: int, n_layers: int,
                       caveats: list[str]) -> list[Tensor]:
    """A DFlash draft's projection of the target's context features (``dflash.py``): ``fc``
    from as many hidden-wide features as ``dflash_config.target_layer_ids`` lists (one per
    draft layer where it lists none), and its ``hidden_norm``; the draft holds no embedding or
    LM head (it runs on the target's)."""
    d = config.get("dflash_config")
    d = d if isinstance(d, Mapping) else {}
    ids = d.get("target_layer_ids", config.get("target_layer_ids"))
    k = len(ids) if isinstance(ids, (list, tuple)) and ids else n_layers
    if d.get("conv_kernel_size") or d.get("projector_type") == "domino":
        caveats.append("DFlash draft's grouped convolutions / Domino projector are not "
                       "counted")
    return [Tensor("fc", "draft_fc", (hidden, k * hidden)),
            Tensor("hidden_norm", "norms", (hidden, 1))]


def _minimax_m3_indexer(t: Mapping[str, Any], layers: tuple[int, ...],
                        p: str) -> list[Tensor]:
    """MiniMax-M3's sparse-attention layers (``sparse_attention_config``'s
    sparse_attention_freq marks them): an index projection with sparse_num_index_heads query
    heads and one key head of sparse_index_dim (a value head and an output projection too
    where sparse_disable_index_value leaves the value on), and per-head index q/k norms. The
    query heads split over attention TP like KV heads (a rank keeps at least one whole); the
    one key and value head stays whole on every rank."""
    cfg = t.get("sparse_attention_config")
    if not isinstance(cfg, Mapping) or not isinstance(
            cfg.get("sparse_attention_freq"), (list, tuple)):
        return []
    freq, off = cfg["sparse_attention_freq"], cfg.get("sparse_disable_index_value") or ()
    sparse = tuple(i for i in layers if i < len(freq) and freq[i] != 0)  # as SGLang tests
    if not sparse:
        return []
    heads, dim = _int(cfg, "sparse_num_index_heads"), _int(cfg, "sparse_index_dim")
    hidden = _int(t, "hidden_size")
    valued = tuple(i for i in sparse if not (i < len(off) and off[i] != 0))
    a = f"{p}.self_attn"
    out = [Tensor(f"{a}.index_q_proj", "attention", (heads * dim, hidden), sparse, linear=True,
                  shard=ATTN_HEADS, heads=heads),
           Tensor(f"{a}.index_k_proj", "attention", (dim, hidden), sparse, linear=True),
           Tensor(f"{a}.index_qk_norms", "norms", (2 * dim, 1), sparse)]
    if valued:
        out += [Tensor(f"{a}.index_v_proj", "attention", (dim, hidden), valued, linear=True),
                Tensor(f"{a}.index_o_proj", "attention", (hidden, heads * dim), valued,
                       linear=True, shard=ATTN_HEADS, heads=heads)]
    return out


def _laguna_attention(t: Mapping[str, Any], mt: str, layers: tuple[int, ...],
                      p: str) -> list[Tensor]:
    """Laguna's attention (``laguna.py``): each layer's query heads from
    num_attention_heads_per_layer (the config class repeats num_attention_heads where the
    file lists none), per-head q/k norms, and an output gate ``g_proj`` with one row per head
    (``gating`` true or "per-head", the default), one per head channel ("per-element"), or
    none ("disabled", false)."""
    per_layer = t.get("num_attention_heads_per_layer")
    heads = _int(t, "num_attention_heads")
    hd = _int(t, "head_dim") or _int(t, "hidden_size") // max(1, heads)
    gating = t.get("gating", True)
    groups: dict[int, list[int]] = {}
    for i in layers:
        n = heads
        if isinstance(per_layer, (list, tuple)) and i < len(per_layer):
            n = int(per_layer[i])
        groups.setdefault(n, []).append(i)
    out: list[Tensor] = []
    for n, ids in groups.items():
        group = tuple(ids)
        out += _gqa({**t, "num_attention_heads": n, "head_dim": hd}, mt, group, p)
        rows = n if gating in (True, "per-head") else n * hd if gating == "per-element" else 0
        if rows:
            out.append(Tensor(f"{p}.self_attn.g_proj", "attention", (rows, _int(
                t, "hidden_size")), group, linear=True, shard="attn_tp"))
    return out


def _lfm2_ff_dim(t: Mapping[str, Any]) -> int:
    """LFM2's dense MLP width: ``block_ff_dim`` (else ``intermediate_size``), which the config
    class's ``block_auto_adjust_ff_dim`` (default on) takes to two thirds, scales by
    ``block_ffn_dim_multiplier`` (1.0) and rounds up to ``block_multiple_of`` (256)."""
    inter = _int(t, "block_ff_dim", "intermediate_size", default=12288)
    if not t.get("block_auto_adjust_ff_dim", True):
        return inter
    inter = int(2 * inter / 3)
    mult = t.get("block_ffn_dim_multiplier", 1.0)
    if mult is not None:
        inter = int(mult * inter)
        of = _int(t, "block_multiple_of", default=256) or 1
        inter = of * ((inter + of - 1) // of)
    return inter


def _lfm2_mixers(t: Mapping[str, Any], mt: str, layers: tuple[int, ...],
                 p: str) -> list[Tensor]:
    """LFM2's token mixers: attention (fused q/k/v, per-head q/k norms) in the layers
    ``layer_types`` marks ``full_attention`` (all of them where it is absent), a gated short
    convolution in the rest: in_proj to three streams, a depthwise ``conv_L_cache`` kernel,
    out_proj, biased where ``conv_bias`` says."""
    kinds = t.get("layer_types")
    if isinstance(kinds, (list, tuple)):
        attn = tuple(i for i in layers if i < len(kinds) and kinds[i] == "full_attention")
    else:
        attn = layers
    attn_set = set(attn)
    conv = tuple(i for i in layers if i not in attn_set)
    out = _gqa({**t, "use_qk_norm": True}, mt, attn, p) if attn else []
    if conv:
        hidden = _int(t, "hidden_size")
        c = f"{p}.conv"
        out += [Tensor(f"{c}.in_proj", "attention", (3 * hidden, hidden), conv, linear=True,
                       shard="tp"),
                Tensor(f"{c}.conv_weight", "attention", (hidden, _int(t, "conv_L_cache",
                                                                      default=3)), conv,
                       shard="tp"),
                Tensor(f"{c}.out_proj", "attention", (hidden, hidden), conv, linear=True,
                       shard="tp")]
        if t.get("conv_bias"):
            out += [Tensor(f"{c}.in_proj.bias", "attention", (3 * hidden, 1), conv, shard="tp"),
                    Tensor(f"{c}.conv_bias", "attention", (hidden, 1), conv, shard="tp"),
                    Tensor(f"{c}.out_proj.bias", "attention", (hidden, 1), conv)]
    return out


def _deepseek_v4_attention(t: Mapping[str, Any], layers: tuple[int, ...],
                           p: str) -> list[Tensor]:
    """DeepSeek-V4's layers (``deepseek_v4.py``): one shared-KV head with low-rank queries
    and a grouped low-rank output, a float32 sink per head; each layer's compress ratio
    (``compress_ratios``) adds a KV compressor (4 and 128; 4 overlaps two windows, so twice
    as wide) and, at 4, an indexer with its own compressor; and the hyper-connection mixers
    around attention and MLP (float32, ``hc_mult`` streams)."""
    hidden = _int(t, "hidden_size")
    heads = _int(t, "num_attention_heads")
    hd = _int(t, "head_dim")
    q_rank = _int(t, "q_lora_rank")
    groups = max(1, _int(t, "o_groups", default=1))
    o_rank = _int(t, "o_lora_rank")
    a = f"{p}.self_attn"
    out = [Tensor(f"{a}.wqkv_a", "attention", (q_rank + hd, hidden), layers, linear=True),
           Tensor(f"{a}.q_norm", "norms", (q_rank, 1), layers),
           Tensor(f"{a}.kv_norm", "norms", (hd, 1), layers),
           Tensor(f"{a}.wq_b", "attention", (heads * hd, q_rank), layers, linear=True,
                  shard="attn_tp"),
           Tensor(f"{a}.wo_a", "attention", (groups * o_rank, heads * hd // groups), layers,
                  linear=True, shard="attn_tp"),
           Tensor(f"{a}.wo_b", "attention", (hidden, groups * o_rank), layers, linear=True,
                  shard="attn_tp"),
           Tensor(f"{a}.attn_sink", "attention", (heads, 1), layers, fp32=True)]
    ratios = t.get("compress_ratios")
    ratios = list(ratios) if isinstance(ratios, (list, tuple)) else []
    idx_heads = _int(t, "index_n_heads", default=64)
    idx_hd = _int(t, "index_head_dim", default=128)
    for ratio in (4, 128):
        these = tuple(i for i in layers if i < len(ratios) and ratios[i] == ratio)
        if not these:
            continue
        out += _v4_compressor(f"{a}.compressor", hidden, hd, ratio, these)
        if ratio == 4:
            i = f"{a}.indexer"
            out += [*_v4_compressor(f"{i}.compressor", hidden, idx_hd, ratio, these),
                    Tensor(f"{i}.wq_b", "indexer", (idx_heads * idx_hd, q_rank), these,
                           linear=True),
                    Tensor(f"{i}.weights_proj", "indexer", (idx_heads, hidden), these)]
    mult = _int(t, "hc_mult", default=4)
    mix = (2 + mult) * mult
    for site in ("attn", "ffn"):
        out += [Tensor(f"{p}.hc_{site}_fn", "hyper_connections", (mix, mult * hidden), layers,
                       fp32=True),
                Tensor(f"{p}.hc_{site}_base_scale", "hyper_connections", (mix + 3, 1), layers,
                       fp32=True)]
    return out


def _v4_compressor(c: str, hidden: int, hd: int, ratio: int,
                   layers: tuple[int, ...]) -> list[Tensor]:
    """A DeepSeek-V4 KV compressor: float32 position biases and norm, a bf16 KV-and-gate
    projection (left unquantized), twice as wide where the ratio is 4 (overlapping windows)."""
    coff = 2 if ratio == 4 else 1
    return [Tensor(f"{c}.ape", "attention", (ratio, coff * hd), layers, fp32=True),
            Tensor(f"{c}.wkv_gate", "attention", (2 * coff * hd, hidden), layers),
            Tensor(f"{c}.norm", "norms", (hd, 1), layers, fp32=True)]


def _gemma4_attention(t: Mapping[str, Any], mt: str, layers: tuple[int, ...], p: str,
                      kinds: list[str], shapes: Shapes) -> list[Tensor]:
    """Gemma 4's attention (``gemma4_causal.py``): each layer kind has its own head width and
    KV heads, and every layer normalizes q and k per head. Full-attention layers build a
    value projection even where ``attention_k_eq_v`` loads it from the key's."""
    full = tuple(i for i in layers if i < len(kinds) and kinds[i] == "full_attention")
    full_set = set(full)
    swa = tuple(i for i in layers if i not in full_set)
    out: list[Tensor] = []
    for group, hd, kv, heads_key in ((full, shapes.full_head_dim, shapes.full_kv_heads,
                                      "num_attention_heads"),
                                     (swa, shapes.swa_head_dim, shapes.swa_kv_heads,
                                      "swa_num_attention_heads")):
        if group:
            heads = _int(t, heads_key, "num_attention_heads")
            out += _gqa({**t, "num_attention_heads": heads, "head_dim": hd,
                         "num_key_value_heads": kv, "use_qk_norm": True}, mt, group, p)
    return out


def _mla(t: Mapping[str, Any], layers: tuple[int, ...], p: str) -> list[Tensor]:
    """Multi-head latent attention (DeepSeek V2/V3, Kimi K2), plus the DSA indexer if any."""
    hidden = _int(t, "hidden_size")
    heads = _int(t, "num_attention_heads")
    q_rank = _int(t, "q_lora_rank")
    kv_rank = _int(t, "kv_lora_rank")
    nope = _int(t, "qk_nope_head_dim")
    rope = _int(t, "qk_rope_head_dim")
    v = _int(t, "v_head_dim")
    a = f"{p}.self_attn"
    out: list[Tensor] = []
    if q_rank:
        out += [Tensor(f"{a}.q_a_proj", "attention", (q_rank, hidden), layers, linear=True),
                Tensor(f"{a}.q_a_layernorm", "norms", (q_rank, 1), layers),
                Tensor(f"{a}.q_b_proj", "attention", (heads * (nope + rope), q_rank), layers,
                       linear=True, shard="attn_tp")]
    else:
        out.append(Tensor(f"{a}.q_proj", "attention", (heads * (nope + rope), hidden), layers,
                          linear=True, shard="attn_tp"))
    out += [Tensor(f"{a}.kv_a_proj_with_mqa", "attention", (kv_rank + rope, hidden), layers,
                   linear=True),
            Tensor(f"{a}.kv_a_layernorm", "norms", (kv_rank, 1), layers),
            Tensor(f"{a}.kv_b_proj", "attention", (heads * (nope + v), kv_rank), layers,
                   linear=True, shard="attn_tp"),
            Tensor(f"{a}.o_proj", "attention", (hidden, heads * v), layers, linear=True,
                   shard="attn_tp"),
            # the absorbed w_kc/w_vc SGLang's post_load_weights splits out of kv_b_proj
            # (deepseek_weight_loader.py): contiguous copies beside it, in bf16 unless
            # weights.py narrows them to the fp8 copy some storages keep
            Tensor(f"{a}.kv_b_proj", "mla_absorbed", (heads * (nope + v), kv_rank), layers,
                   shard="attn_tp", padding=True)]
    own = tuple(i for i in layers if not _dsa_reuses_topk(t, i))
    if t.get("index_topk") is not None and own:
        n = _int(t, "index_n_heads", default=64)
        d = _int(t, "index_head_dim", default=128)
        i = f"{a}.indexer"
        out += [Tensor(f"{i}.wq_b", "indexer", (n * d, q_rank or hidden), own, linear=True),
                Tensor(f"{i}.wk", "indexer", (d, hidden), own, linear=True),
                Tensor(f"{i}.k_norm", "indexer", (d, 2), own),  # weight and bias
                Tensor(f"{i}.weights_proj", "indexer", (n, hidden), own)]
    return out


def _dsa_reuses_topk(t: Mapping[str, Any], layer: int) -> bool:
    """Whether a DSA layer takes the previous layer's top-k instead of scoring its own, and so
    builds no indexer (SGLang's ``dsa_layer_skips_topk``): ``indexer_types`` marks it
    "shared"; else LongCat's ``cli_factor``, an ``index_topk_pattern`` "S", or every
    ``index_topk_freq``-th layer scores, counted from ``index_skip_topk_offset`` - 1 (without
    it, from layer 1; layer 0 always scores)."""
    kinds = t.get("indexer_types")
    if isinstance(kinds, (list, tuple)):
        return layer < len(kinds) and kinds[layer] == "shared"
    cli = _int(t, "cli_factor", default=1) or 1
    if cli > 1:
        return layer % cli != 0
    pattern = t.get("index_topk_pattern")
    if pattern is not None:
        return layer < len(pattern) and pattern[layer] == "S"
    freq = _int(t, "index_topk_freq", default=1) or 1
    offset = t.get("index_skip_topk_offset")
    shift = int(offset) - 1 if offset is not None else 1
    return max(layer - shift, 0) % freq != 0


def _whisper(t: Mapping[str, Any], vocab: int, d: int) -> list[Tensor]:
    """Whisper (``whisper.py``), an encoder-decoder: the encoder's two biased width-3
    convolutions over the mel bins, its position table and encoder_layers layers (a fused
    q/k/v and out projection, fc1/fc2, two LayerNorms, all biased), a final LayerNorm; the
    decoder's token and position tables (plain embeddings, whole and unpadded), its
    decoder_layers layers (self-attention as the encoder's, cross-attention with its own q, a
    fused k/v and out projection, three LayerNorms), a final LayerNorm, and ``proj_out``, a
    vocabulary-parallel head. The encoder is whole on every pipeline stage."""
    enc = tuple(range(_int(t, "encoder_layers", "num_hidden_layers")))
    dec = tuple(range(_int(t, "decoder_layers", "num_hidden_layers")))
    f_enc = _int(t, "encoder_ffn_dim", default=4 * d)
    f_dec = _int(t, "decoder_ffn_dim", default=4 * d)
    e, x = "encoder.layers.{i}", "model.layers.{i}"

    def audio(name: str, shape: tuple[int, int], shard: str = "replicated") -> Tensor:
        return Tensor(name, "audio", shape, enc, shard=shard, every_stage=True)

    out = [Tensor("encoder.conv1", "audio", (d, 3 * _int(t, "num_mel_bins") + 1),
                  every_stage=True),
           Tensor("encoder.conv2", "audio", (d, 3 * d + 1), every_stage=True),
           Tensor("encoder.embed_positions", "audio", (_int(t, "max_source_positions"), d),
                  every_stage=True),
           audio(f"{e}.self_attn.qkv_proj", (3 * d, d + 1), "attn_tp"),
           audio(f"{e}.self_attn.out_proj", (d, d), "attn_tp"),
           audio(f"{e}.fc1", (f_enc, d + 1), "tp"),
           audio(f"{e}.fc2", (d, f_enc), "tp"),
           # (the row-parallel projections' biases, whole; two LayerNorms' weights and biases)
           audio(f"{e}.out_fc2_biases_layer_norms", (6 * d, 1)),
           Tensor("encoder.layer_norm", "audio", (2 * d, 1), every_stage=True),
           Tensor("model.embed_tokens", "embedding", (vocab, d)),
           Tensor("model.embed_positions", "embedding", (_int(t, "max_target_positions"), d)),
           Tensor(f"{x}.self_attn.qkv_proj", "attention", (3 * d, d + 1), dec, linear=True,
                  shard="attn_tp"),
           Tensor(f"{x}.encoder_attn.q_kv_proj", "attention", (3 * d, d + 1), dec,
                  linear=True, shard="attn_tp"),
           Tensor(f"{x}.self_attn_encoder_attn.out_proj", "attention", (2 * d, d), dec,
                  linear=True, shard="attn_tp"),
           Tensor(f"{x}.fc1", "mlp", (f_dec, d + 1), dec, linear=True, shard="tp"),
           Tensor(f"{x}.fc2", "mlp", (d, f_dec), dec, linear=True, shard="tp"),
           Tensor(f"{x}.out_fc2_biases", "attention", (3 * d, 1), dec),
           Tensor(f"{x}.layer_norms", "norms", (6 * d, 1), dec),
           Tensor("model.norm", "norms", (2 * d, 1), shard="last"),
           Tensor("lm_head", "lm_head", (vocab, d), shard="head")]
    return out


def _mamba1(t: Mapping[str, Any], hidden: int, layers: tuple[int, ...]) -> list[Tensor]:
    """A Mamba-1 layer: its norm and the mixer SGLang builds (in_proj to the two branches, a
    depthwise conv, x_proj to the step rank and B/C, dt_proj with its bias, A_log and D),
    every inner-width tensor split over TP."""
    inner = _int(t, "intermediate_size") or _int(t, "expand", default=2) * hidden
    state = _int(t, "state_size", default=16)
    kernel = _int(t, "conv_kernel", default=4)
    rank = _int(t, "time_step_rank") or -(-hidden // 16)  # "auto": ceil(hidden / 16)
    bias = bool(t.get("use_bias"))
    m = "model.layers.{i}.mixer"
    out = [Tensor("model.layers.{i}.norm", "norms", (hidden, 1), layers),
           Tensor(f"{m}.in_proj", "mamba", (2 * inner, hidden + bias), layers, linear=True,
                  shard="tp"),
           Tensor(f"{m}.conv1d", "mamba", (inner, kernel + bool(t.get("use_conv_bias", True))),
                  layers, shard="tp"),
           Tensor(f"{m}.x_proj", "mamba", (rank + 2 * state, inner), layers, linear=True,
                  shard="tp"),
           Tensor(f"{m}.dt_proj", "mamba", (inner, rank + 1), layers, linear=True, shard="tp"),
           Tensor(f"{m}.A_log_D", "mamba", (inner, state + 1), layers, shard="tp"),
           Tensor(f"{m}.out_proj", "mamba", (hidden, inner), layers, linear=True, shard="tp")]
    if bias:
        out.append(Tensor(f"{m}.out_proj.bias", "mamba", (hidden, 1), layers))
    return out


def _per_layer_mlp(t: Mapping[str, Any], hidden: int, layers: tuple[int, ...], p: str,
                   caveats: list[str]) -> list[Tensor]:
    """Gated MLPs whose widths the config lists layer by layer (Gemma 3n's
    intermediate_size), one stack per distinct width."""
    widths = t["intermediate_size"]
    by_width: dict[int, list[int]] = {}
    missing = []
    for i in layers:
        w = widths[i] if i < len(widths) else None
        if isinstance(w, bool) or not isinstance(w, (int, float)) or w <= 0:
            missing.append(i)
            continue
        by_width.setdefault(int(w), []).append(i)
    if missing:
        caveats.append(f"config.json's intermediate_size list gives {len(missing)} layer(s) "
                       f"no MLP width (first: layer {missing[0]}): their MLPs are not counted")
    out: list[Tensor] = []
    for w, group in by_width.items():
        out += _mlp(f"{p}.mlp", "mlp", hidden, w, tuple(group), "tp")
    return out


def _gemma3n_layer_extras(t: Mapping[str, Any], hidden: int, layers: tuple[int, ...],
                          p: str) -> list[Tensor]:
    """Gemma 3n's per-layer extras beside attention and MLP (``gemma3n_causal.py``): AltUp's
    coefficients, router and norms, the LAuReL low-rank block and its norm, and the gate and
    projection of the per-layer input with its norm."""
    n = _int(t, "altup_num_inputs", default=4)
    rank = _int(t, "laurel_rank", default=64)
    ple = _int(t, "hidden_size_per_layer_input", default=256)
    return [Tensor(f"{p}.altup.coefs", "altup", (n * n + n * n * n, 1), layers),
            Tensor(f"{p}.altup.modality_router", "altup", (n, hidden), layers),
            Tensor(f"{p}.altup.norms", "norms", (2 * hidden, 1), layers),
            Tensor(f"{p}.laurel.linear_left", "laurel", (rank, hidden), layers, linear=True,
                   shard="tp"),
            Tensor(f"{p}.laurel.linear_right", "laurel", (hidden, rank), layers, linear=True,
                   shard="tp"),
            Tensor(f"{p}.laurel.post_laurel_norm", "norms", (hidden, 1), layers),
            Tensor(f"{p}.per_layer_input_gate", "per_layer_input", (ple, hidden), layers,
                   linear=True),
            Tensor(f"{p}.per_layer_projection", "per_layer_input", (hidden, ple), layers,
                   linear=True),
            Tensor(f"{p}.post_per_layer_input_norm", "norms", (hidden, 1), layers)]


def _gemma3n_model_extras(config: Mapping[str, Any], t: Mapping[str, Any], hidden: int,
                          n_layers: int, prefix: str) -> list[Tensor]:
    """Gemma 3n's whole-model tensors: the per-layer input embedding table and projection,
    AltUp's extra streams' projections in and out, and (in the multimodal class) the vision
    and audio soft-token embedders (``gemma3n_mm.py``)."""
    ple = _int(t, "hidden_size_per_layer_input", default=256)
    streams = _int(t, "altup_num_inputs", default=4) - 1
    out = [Tensor(f"{prefix}.embed_tokens_per_layer", "embedding",
                  (_int(t, "vocab_size_per_layer_input", default=262144), n_layers * ple),
                  shard="vocab"),
           Tensor(f"{prefix}.per_layer_model_projection", "per_layer_input",
                  (n_layers * ple, hidden), linear=True, shard="tp"),
           Tensor(f"{prefix}.per_layer_projection_norm", "norms", (ple, 1)),
           Tensor(f"{prefix}.altup_projections", "altup", (2 * streams * hidden, hidden),
                  linear=True, shard="tp")]
    if config is t:
        return out
    for name, key, default in (("embed_vision", "vision_config", 2048),
                               ("embed_audio", "audio_config", 1536)):
        sub = config.get(key)
        sub = sub if isinstance(sub, Mapping) else {}
        width = _int(sub, "hidden_size", default=default)
        out += [Tensor(f"{name}.embedding", "projector",
                       (_int(sub, "vocab_size", default=128), width), shard="vocab"),
                Tensor(f"{name}.norms", "projector", (2 * width, 1)),
                Tensor(f"{name}.embedding_projection", "projector", (hidden, width),
                       linear=True)]
    return out


def _ungated_mlp(name: str, hidden: int, inter: int, layers: tuple[int, ...],
                 bias: bool) -> list[Tensor]:
    """An MLP without a gate: the up projection column-parallel, the down one row-parallel
    (its bias whole on every GPU)."""
    out = [Tensor(f"{name}.up_proj", "mlp", (inter, hidden), layers, 1, True, "tp"),
           Tensor(f"{name}.down_proj", "mlp", (hidden, inter), layers, 1, True, "tp")]
    if bias:
        out += [Tensor(f"{name}.up_proj.bias", "mlp", (inter, 1), layers, shard="tp"),
                Tensor(f"{name}.down_proj.bias", "mlp", (hidden, 1), layers)]
    return out


def _mlp(name: str, component: str, hidden: int, inter: int, layers: tuple[int, ...],
         shard: str, copies: int = 1, bias: bool = False) -> list[Tensor]:
    out = [Tensor(f"{name}.gate_proj", component, (inter, hidden), layers, copies, True, shard),
           Tensor(f"{name}.up_proj", component, (inter, hidden), layers, copies, True, shard),
           Tensor(f"{name}.down_proj", component, (hidden, inter), layers, copies, True, shard)]
    if bias:
        out += [Tensor(f"{name}.gate_up_proj.bias", component, (2 * inter, 1), layers, copies,
                       shard=shard),
                Tensor(f"{name}.down_proj.bias", component, (hidden, 1), layers, copies,
                       shard="experts" if shard == "experts" else "replicated")]
    return out


def _moe(t: Mapping[str, Any], mt: str, layers: tuple[int, ...], p: str) -> list[Tensor]:
    hidden = _int(t, "hidden_size")
    experts = _int(t, "n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
    inter = _int(t, "moe_intermediate_size") or _int(t, "intermediate_size")
    if mt in _COHERE_MOE_TYPES:  # (its experts read intermediate_size, whatever else is set)
        inter = _int(t, "intermediate_size")
    if mt == "mixtral":
        m = f"{p}.block_sparse_moe"
        return [Tensor(f"{m}.gate", "router", (experts, hidden), layers),
                Tensor(f"{m}.experts.{{e}}.w1", "experts", (inter, hidden), layers, experts, True,
                       "experts"),
                Tensor(f"{m}.experts.{{e}}.w3", "experts", (inter, hidden), layers, experts, True,
                       "experts"),
                Tensor(f"{m}.experts.{{e}}.w2", "experts", (hidden, inter), layers, experts, True,
                       "experts")]
    if mt == "kimi_linear":
        return _kimi_linear_moe(t, layers, p, experts, inter)
    if mt == "llama4_text":  # ``llama4.py``: a router, the experts, one shared expert
        m = f"{p}.feed_forward"
        return [Tensor(f"{m}.router", "router", (experts, hidden), layers),
                *_mlp(f"{m}.experts.{{e}}", "experts", hidden, inter, layers, "experts",
                      experts),
                *_mlp(f"{m}.shared_expert", "shared_experts", hidden, inter, layers, "tp")]
    m = f"{p}.mlp"
    if mt == "gpt_oss":
        return [Tensor(f"{m}.router", "router", (experts, hidden), layers),
                Tensor(f"{m}.router.bias", "router", (experts, 1), layers),
                *_mlp(f"{m}.experts", "experts", hidden, inter, layers, "experts", experts,
                      bias=True)]
    bailing = mt in _BAILING_GATE_TYPES
    out = [Tensor(f"{m}.gate", "router", (experts, hidden), layers,
                  fp32=mt in _HYV3_TYPES | _LAGUNA_TYPES | _MINIMAX_M3_TYPES or (
                      bailing and t.get("router_dtype") == "fp32")),
           *_mlp(f"{m}.experts.{{e}}", "experts", hidden, inter, layers, "experts", experts)]
    if bailing and t.get("moe_router_enable_expert_bias"):
        out.append(Tensor(f"{m}.gate.expert_bias", "router", (experts, 1), layers, fp32=True))
    if mt in _HYV3_TYPES:
        out.append(Tensor(f"{m}.expert_bias", "router", (experts, 1), layers, fp32=True))
        n_shared = _int(t, "num_shared_experts")
        if n_shared:
            out += _mlp(f"{m}.shared_mlp", "shared_experts", hidden, inter * n_shared, layers,
                        "tp")
        return out
    if mt in _HUNYUAN_MOE_TYPES and t.get("use_mixed_mlp_moe"):
        # HunYuan's shared_mlp beside the experts: intermediate_size x num_shared_expert
        # (one count for every layer, or a list with one a layer)
        counts = t.get("num_shared_expert", 1)
        per: dict[int, list[int]] = {}
        for i in layers:
            n = counts[i] if isinstance(counts, (list, tuple)) and i < len(counts) else counts
            if isinstance(n, int) and n > 0:
                per.setdefault(n, []).append(i)
        for n, ids in per.items():
            out += _mlp(f"{m}.shared_mlp", "shared_experts", hidden,
                        _int(t, "intermediate_size") * n, tuple(ids), "tp")
        return out
    if mt in _COHERE_MOE_TYPES:
        n_shared = _int(t, "num_shared_experts")
        if n_shared:
            out += _mlp(f"{m}.shared_experts", "shared_experts", hidden, inter * n_shared,
                        layers, "tp")
        return out
    if mt in _LAGUNA_TYPES:  # a float32 router and correction bias, one shared expert
        out.append(Tensor(f"{m}.gate.e_score_correction_bias", "router", (experts, 1), layers,
                          fp32=True))
        out += _mlp(f"{m}.shared_expert", "shared_experts", hidden,
                    _int(t, "shared_expert_intermediate_size"), layers, "tp")
        return out
    if mt in _ERNIE_MOE_TYPES:  # a routing bias in the model's dtype, moe_num_shared_experts
        # (default 2) shared ones as one plain-TP MLP
        out.append(Tensor(f"{m}.gate.e_score_correction_bias", "router", (experts, 1), layers))
        n_shared = _int(t, "moe_num_shared_experts", default=2)
        if n_shared:
            out += _mlp(f"{m}.shared_experts", "shared_experts", hidden, inter * n_shared,
                        layers, "tp")
        return out
    hashed: tuple[int, ...] = ()
    if mt == "deepseek_v4":  # the first num_hash_layers route by token id: a table, no bias
        hashed = tuple(i for i in layers if i < _int(t, "num_hash_layers"))
        if hashed:
            out.append(Tensor(f"{m}.topk.tid2eid", "router", (_int(t, "vocab_size"),
                              _int(t, "num_experts_per_tok")), hashed, fp32=True))
    hashed_set = set(hashed)
    biased = tuple(i for i in layers if i not in hashed_set)
    if mt == "afmoe":  # a float32 routing bias, and num_shared_experts (default 2) shared ones
        out.append(Tensor(f"{m}.expert_bias", "router", (experts, 1), layers, fp32=True))
        out += _mlp(f"{m}.shared_experts", "shared_experts", hidden,
                    inter * _int(t, "num_shared_experts", default=2), layers, "shared")
    if mt == "lfm2_moe" and t.get("use_expert_bias", True):
        out.append(Tensor(f"{m}.expert_bias", "router", (experts, 1), layers, fp32=True))
    # (minimax_m2.py, minimax_m3.py)
    routing_bias = mt in {"minimax_m2", *_MINIMAX_M3_TYPES} and bool(t.get("use_routing_bias"))
    if (t.get("topk_method") == "noaux_tc" or mt in _GLM4_MOE_TYPES | _CORRECTION_BIAS_TYPES
            or routing_bias) and biased:
        out.append(Tensor(f"{m}.gate.e_score_correction_bias", "router", (experts, 1), biased,
                          fp32=True))
    shared = _int(t, "n_shared_experts")
    if shared:
        out += _mlp(f"{m}.shared_experts", "shared_experts", hidden, inter * shared, layers,
                    "shared")
    elif _int(t, "share_expert_dim"):  # Step-3.5's config class: one shared expert this wide
        out += _mlp(f"{m}.share_expert", "shared_experts", hidden, _int(t, "share_expert_dim"),
                    layers, "shared")
    else:
        common = _common_shared_width(t, mt, inter)
        if common and not any(x.component == "shared_experts" for x in out):
            out += _mlp(f"{m}.shared_experts", "shared_experts", hidden, common, layers,
                        "shared")
    shared_inter = _int(t, "shared_expert_intermediate_size")
    if shared_inter:
        out += _mlp(f"{m}.shared_expert", "shared_experts", hidden, shared_inter, layers, "tp")
        out.append(Tensor(f"{m}.shared_expert_gate", "router", (1, hidden), layers))
    return out


#: model types built on Ling's MoE block (``bailing_moe.py``; Sarvam-MoE's class subclasses
#: it): the router's weight in float32 when ``router_dtype`` says "fp32", and a float32
#: ``expert_bias`` under ``moe_router_enable_expert_bias``
_BAILING_GATE_TYPES = frozenset({"bailing_moe", "bailing_moe_v2", "sarvam_moe"})
#: model types whose router always holds a float32 correction bias (``exaone_moe.py``)
_CORRECTION_BIAS_TYPES = frozenset({"exaone_moe"})
#: config classes that give a MoE layer shared experts when the file names no count
#: (transformers' ExaoneMoeConfig ``num_shared_experts`` 1, SarvamMoEConfig's 1, SGLang's
#: BailingHybridConfig's 1 for Ling 2.5 / V3)
_SHARED_COUNT_DEFAULTS = {"exaone_moe": 1, "sarvam_moe": 1, "bailing_hybrid": 1}
#: model types whose shared experts are each as wide as the dense MLP (``xverse_moe.py``)
_SHARED_DENSE_WIDTH_TYPES = frozenset({"xverse"})
#: model types whose SGLang class builds no shared expert whatever the file says
#: (``muse_spark.py`` refuses a count above 0)
_NO_SHARED_TYPES = frozenset({"muse_spark", "muse_spark_text"})


def _common_shared_width(t: Mapping[str, Any], mt: str, routed: int) -> int:
    """The width of the one shared MLP a MoE layer holds under the common key,
    ``num_shared_experts`` (0: none): that many experts, each as wide as
    ``moe_shared_expert_intermediate_size`` where the file gives it (Ling/Ring 2.0's
    ``bailing_moe.py``, ``llada2.py``), else as a routed one (``exaone_moe.py``,
    ``sarvam_moe.py``, ``xllm.py``, ...). Read for every type rather than per family, so a new
    one with the standard key is not priced without them; where the file also has
    DeepSeek's ``n_shared_experts`` that one decides (the config classes alias the two)."""
    if mt in _NO_SHARED_TYPES or "n_shared_experts" in t:
        return 0
    # (a null count is none; only a missing one takes the class's default)
    count = (_int(t, "num_shared_experts") if "num_shared_experts" in t
             else _SHARED_COUNT_DEFAULTS.get(mt, 0))
    if count <= 0:
        return 0
    if mt in _SHARED_DENSE_WIDTH_TYPES:
        return _int(t, "intermediate_size") * count
    return _int(t, "moe_shared_expert_intermediate_size", default=routed) * count


def _gated_delta_net(t: Mapping[str, Any], layers: tuple[int, ...], p: str) -> list[Tensor]:
    """Qwen3-Next's linear attention (Gated DeltaNet), as ``qwen3_next.py`` loads it."""
    hidden = _int(t, "hidden_size")
    nk = _int(t, "linear_num_key_heads")
    nv = _int(t, "linear_num_value_heads")
    dk = _int(t, "linear_key_head_dim")
    dv = _int(t, "linear_value_head_dim")
    kernel = _int(t, "linear_conv_kernel_dim", default=4)
    key, value = nk * dk, nv * dv
    a = f"{p}.linear_attn"
    return [Tensor(f"{a}.in_proj_qkvz", "linear_attention", (2 * key + 2 * value, hidden),
                   layers, linear=True, shard="attn_tp"),
            Tensor(f"{a}.in_proj_ba", "linear_attention", (2 * nv, hidden), layers,
                   linear=True, shard="attn_tp"),
            Tensor(f"{a}.conv1d", "linear_attention", (2 * key + value, kernel), layers,
                   shard="attn_tp"),
            Tensor(f"{a}.dt_bias", "linear_attention", (nv, 1), layers, shard="attn_tp"),
            Tensor(f"{a}.A_log", "linear_attention", (nv, 1), layers, shard="attn_tp"),
            Tensor(f"{a}.norm", "norms", (dv, 1), layers),
            Tensor(f"{a}.out_proj", "linear_attention", (hidden, value), layers, linear=True,
                   shard="attn_tp")]


def _qwen3_next_mtp(t: Mapping[str, Any], n_layers: int, caveats: list[str]) -> list[Tensor]:
    """Qwen3-Next's MTP block (``mtp.*``), when the config declares one: a full-attention
    MoE layer, the 2h -> h fc and its norms. (Qwen3-Next-80B-A3B declares none, and its
    published total matches the main stack alone.)"""
    n = _int(t, "num_nextn_predict_layers", "mtp_num_hidden_layers")
    if not n:
        return []
    hidden = _int(t, "hidden_size")
    layers = tuple(range(n))
    full = {**t, "full_attention_interval": 1, "layer_types": None}
    moe = layers if _int(t, "num_experts", "n_routed_experts") else ()
    dense = () if moe else layers  # (Qwen3.5's dense models: a dense MTP layer)
    out = _decoder(full, "qwen3_next", layers, moe, dense, "mtp", caveats)
    return out + [Tensor("mtp.fc", "mtp", (hidden, 2 * hidden)),
                  Tensor("mtp.norms", "mtp", (3 * hidden, 1))]


def _nemotron_h(t: Mapping[str, Any], vocab: int, hidden: int, n_layers: int, tied: bool,
                caveats: list[str]) -> list[Tensor]:
    """Nemotron-H: one mixer per layer, by ``hybrid_override_pattern`` (M Mamba2,
    * attention, - squared-ReLU MLP, E MoE), each behind one RMS norm. (Checked against
    the published totals: Nemotron 3 Nano's 31.6B, Super's 123.61B stored with its MTP
    block, Nemotron-H-56B's name.)"""
    pattern = str(t.get("hybrid_override_pattern") or "")
    if len(pattern) != n_layers:
        caveats.append("hybrid_override_pattern does not cover every layer: weights unknown")
        return []
    by = {c: tuple(i for i, x in enumerate(pattern) if x == c) for c in "M*-E"}
    p = "backbone.layers.{i}"
    out = [Tensor("backbone.embeddings", "embedding", (vocab, hidden), shard="vocab"),
           Tensor("backbone.norm_f", "norms", (hidden, 1), shard="last"),
           Tensor(f"{p}.norm", "norms", (hidden, 1), tuple(range(n_layers)))]
    if not tied:
        out.append(Tensor("lm_head", "lm_head", (vocab, hidden), shard="head"))
    if by["M"]:
        heads = _int(t, "mamba_num_heads")
        out += _mamba2_mixer(f"{p}.mixer", by["M"], hidden, heads * _int(t, "mamba_head_dim"),
                             heads, _int(t, "n_groups", default=1) * _int(t, "ssm_state_size"),
                             _int(t, "conv_kernel", default=4),
                             bool(t.get("use_conv_bias", True)))
    if by["*"]:
        out += _gqa(t, "nemotron_h", by["*"], "backbone.layers.{i}", name="mixer")
    if by["-"]:
        inter = _int(t, "intermediate_size")
        out += [Tensor(f"{p}.mixer.up_proj", "mlp", (inter, hidden), by["-"], linear=True,
                       shard="tp"),
                Tensor(f"{p}.mixer.down_proj", "mlp", (hidden, inter), by["-"], linear=True,
                       shard="tp")]
    if by["E"]:
        e, ly = f"{p}.mixer", by["E"]
        experts = _int(t, "n_routed_experts")
        inter = _int(t, "moe_intermediate_size")
        # latent MoE (Nemotron 3 Super and Ultra): the experts work in ``moe_latent_size``
        # dimensions, between two replicated projections from and back to the hidden size
        latent = _int(t, "moe_latent_size", default=0) or hidden
        out += [Tensor(f"{e}.gate", "router", (experts, hidden), ly),
                Tensor(f"{e}.gate.e_score_correction_bias", "router", (experts, 1), ly,
                       fp32=True),
                Tensor(f"{e}.experts.{{e}}.up_proj", "experts", (inter, latent), ly, experts,
                       True, "experts"),
                Tensor(f"{e}.experts.{{e}}.down_proj", "experts", (latent, inter), ly, experts,
                       True, "experts")]
        if latent != hidden:
            out += [Tensor(f"{e}.fc1_latent_proj", "experts", (latent, hidden), ly,
                           linear=True),
                    Tensor(f"{e}.fc2_latent_proj", "experts", (hidden, latent), ly,
                           linear=True)]
        n_shared = _int(t, "n_shared_experts", default=1)
        if n_shared:  # none at all when the config says 0
            shared = _int(t, "moe_shared_expert_intermediate_size") * n_shared
            out += [Tensor(f"{e}.shared_experts.up_proj", "shared_experts", (shared, hidden),
                           ly, linear=True, shard="shared"),
                    Tensor(f"{e}.shared_experts.down_proj", "shared_experts",
                           (hidden, shared), ly, linear=True, shard="shared")]
    return out


def _mamba2_mixer(m: str, layers: tuple[int, ...], hidden: int, inner: int, heads: int,
                  groups_state: int, kernel: int, conv_bias: bool, proj_bias: bool = False,
                  gated_norm: bool = True) -> list[Tensor]:
    """SGLang's ``MambaMixer2``: in_proj to the gate, x, B, C and dt, a depthwise conv over
    x, B and C, per-head A, D and dt bias, the gated RMS norm (whose weight exists only when
    the norm is applied) and out_proj, every one split over attention TP."""
    conv = inner + 2 * groups_state
    out = [Tensor(f"{m}.in_proj", "mamba", (2 * inner + 2 * groups_state + heads,
                                            hidden + proj_bias), layers, linear=True,
                  shard="attn_tp"),
           Tensor(f"{m}.conv1d", "mamba", (conv, kernel + conv_bias), layers, shard="attn_tp"),
           Tensor(f"{m}.dt_A_D", "mamba", (3 * heads, 1), layers, shard="attn_tp"),
           Tensor(f"{m}.out_proj", "mamba", (hidden, inner), layers, linear=True,
                  shard="attn_tp")]
    if gated_norm:
        out.append(Tensor(f"{m}.norm", "norms", (inner, 1), layers, shard="attn_tp"))
    if proj_bias:
        out.append(Tensor(f"{m}.out_proj.bias", "mamba", (hidden, 1), layers))
    return out


def _hybrid_mamba2(t: Mapping[str, Any], mt: str, hidden: int, n_layers: int,
                   caveats: list[str]) -> list[Tensor]:
    """The decoder layers of the two Mamba-2 hybrids whose layers hold a mixer and an FFN
    behind two RMS norms. Granite 4.0-H (``granitemoehybrid.py``): each layer's mixer is a
    Mamba-2 or a GQA attention (``layer_types``; by default every sixth layer attends), with
    head_dim hidden / heads, and its FFN is a bias-free routed MoE at intermediate_size (when
    num_local_experts > 0) beside a shared gated MLP at shared_intermediate_size (when not
    0); positions rotate only with position_embedding_type "rope". Falcon-H1
    (``falcon_h1.py``): every layer runs a Mamba-2 mixer (mamba_d_ssm wide, its norm weight
    only with mamba_rms_norm) beside a GQA attention with per-head q/k norms, then a gated
    MLP."""
    p = "model.layers.{i}"
    every = tuple(range(n_layers))
    heads = _int(t, "mamba_n_heads")
    groups_state = _int(t, "mamba_n_groups", default=1) * _int(t, "mamba_d_state")
    conv_bias, proj_bias = bool(t.get("mamba_conv_bias")), bool(t.get("mamba_proj_bias"))
    kernel = _int(t, "mamba_d_conv", default=4)
    out = [Tensor(f"{p}.input_layernorm", "norms", (hidden, 1), every),
           Tensor(f"{p}.post_attention_layernorm", "norms", (hidden, 1), every)]
    if mt == "falcon_h1":
        inner = _int(t, "mamba_d_ssm") or _int(t, "mamba_expand") * hidden
        hd = _int(t, "head_dim") or hidden // max(1, _int(t, "num_attention_heads"))
        return out + _mamba2_mixer(f"{p}.mamba", every, hidden, inner, heads, groups_state,
                                   kernel, conv_bias, proj_bias,
                                   bool(t.get("mamba_rms_norm"))) + _gqa(
            {**t, "head_dim": hd, "attention_bias": False}, mt, every, p) + [
            Tensor(f"{p}.self_attn.q_norm_k_norm", "norms", (2 * hd, 1), every)] + _mlp(
            f"{p}.feed_forward", "mlp", hidden, _int(t, "intermediate_size"), every, "tp"
        ) + _rope_tables({**t, "head_dim": hd}, mt)
    kinds = granite_hybrid_kinds({**t, "num_hidden_layers": n_layers})
    if len(kinds) != n_layers:
        caveats.append("layer_types does not cover every layer: weights unknown")
        return []
    mamba = tuple(i for i, k in enumerate(kinds) if k == "mamba")
    attention = tuple(i for i, k in enumerate(kinds) if k == "attention")
    heads_attn = _int(t, "num_attention_heads")
    if mamba:  # (Granite 4.0 Micro attends in every layer)
        out += _mamba2_mixer(f"{p}.mamba", mamba, hidden, _int(t, "mamba_expand") * hidden,
                             heads, groups_state, kernel, conv_bias, proj_bias)
    if attention:
        out += _gqa({**t, "head_dim": hidden // max(1, heads_attn)}, mt, attention, p)
    experts = _int(t, "num_local_experts")
    if experts > 0:
        m = f"{p}.block_sparse_moe"
        out += [Tensor(f"{m}.router", "router", (experts, hidden), every)]
        out += _mlp(f"{m}.experts.{{e}}", "experts", hidden, _int(t, "intermediate_size"),
                    every, "experts", copies=experts)
    shared = _int(t, "shared_intermediate_size")
    if shared:
        out += _mlp(f"{p}.shared_mlp", "mlp", hidden, shared, every, "tp")
    if t.get("position_embedding_type") == "rope":
        out += _rope_tables(t, mt)
    return out


#: SGLang 0.5.23's ZayaConfig defaults for the keys the tensors read (its model file reads
#: the Megatron-style names: ``ffn_hidden_size`` is the merged gate+up width of one expert,
#: ``num_query_groups`` the KV heads, ``zaya_mlp_expansion`` the router's width)
_ZAYA_DEFAULTS = {"hidden_size": 2048, "ffn_hidden_size": 4096, "num_hidden_layers": ZAYA_LAYERS,
                  "num_experts": 16, "num_attention_heads": 8, "num_query_groups": 2,
                  "head_dim": 128, "zaya_mlp_expansion": 256, "zaya_use_mod": True,
                  "zaya_use_eda": True, "cca_time0": 2, "cca_time1": 2,
                  "vocab_size": 262272, "partial_rotary_factor": 0.5,
                  "max_position_embeddings": 32768}
#: ZayaConfig's per-layer list forms: the class keeps the first non-zero entry
_ZAYA_LISTS = {"cca_num_q_heads": "num_attention_heads",
               "num_query_groups_list": "num_query_groups",
               "ffn_hidden_size_list": "ffn_hidden_size"}


def _zaya_config(t: Mapping[str, Any]) -> dict[str, Any]:
    """A ZAYA1 text config as ``ZayaConfig`` leaves it: its defaults for the keys the file
    leaves out (the newer transformers-native file's ``moe_intermediate_size`` and
    ``layer_types`` are not among its keys, so 0.5.23 builds the defaults' geometry), the
    first non-zero entry of a per-layer list, ``zaya_layers``' length as the layer count."""
    out = {**_ZAYA_DEFAULTS, **{k: v for k, v in t.items() if v is not None}}
    for key, scalar in _ZAYA_LISTS.items():
        given = t.get(key)
        if isinstance(given, (list, tuple)):
            out[scalar] = next((v for v in given if v), out[scalar])
    expansion = t.get("zaya_mlp_expansion")
    if isinstance(expansion, (list, tuple)):
        out["zaya_mlp_expansion"] = next((v for v in expansion if v), 256)
    if out.get("head_dim") is None and t.get("kv_channels") is not None:
        out["head_dim"] = t["kv_channels"]
    kinds = t.get("zaya_layers")
    if isinstance(kinds, (list, tuple)) and kinds:
        out["num_hidden_layers"] = len(kinds)
    return out


def _zaya(t: Mapping[str, Any], hidden: int, n_layers: int) -> list[Tensor]:
    """ZAYA1 (``zaya.py``): even layers attend (CCA: q and k projections over TP, two
    replicated value halves, a two-stage conv over the q and k channels, a per-KV-head
    temperature, o_proj), odd layers are MoE blocks (a replicated router MLP over
    ``zaya_mlp_expansion``, one more output with ``zaya_use_mod``, and ``num_experts`` SwiGLU
    experts of ``ffn_hidden_size`` / 2). Every layer has an input norm and a residual scale
    and bias (the first only for the hidden states); the model one more scaling at the end.
    """
    p = "model.layers.{i}"
    every = tuple(range(n_layers))
    attn = tuple(i for i in every if i % 2 == 0)
    moe = tuple(i for i in every if i % 2)
    heads, kv, hd = (_int(t, k) for k in ("num_attention_heads", "num_query_groups",
                                          "head_dim"))
    t0, t1 = _int(t, "cca_time0"), _int(t, "cca_time1")
    channels = (heads + kv) * hd
    a, r = f"{p}.self_attn", f"{p}.zaya_block.router"
    width = _int(t, "zaya_mlp_expansion")
    experts = _int(t, "num_experts")
    out = [Tensor(f"{p}.input_norm", "norms", (hidden, 1), every),
           Tensor(f"{p}.res_scale.hidden_states", "norms", (2 * hidden, 1), every),
           Tensor(f"{p}.res_scale.residual", "norms", (2 * hidden, 1), every[1:]),
           Tensor("model.res_scale", "norms", (4 * hidden, 1), shard="last")]
    if attn:
        out += [Tensor(f"{a}.qkv.linear_q", "attention", (heads * hd, hidden), attn,
                       linear=True, shard="tp"),
                Tensor(f"{a}.qkv.linear_k", "attention", (kv * hd, hidden), attn,
                       linear=True, shard="tp"),
                Tensor(f"{a}.qkv.val_proj", "attention", (kv * hd, hidden), attn,
                       linear=True),
                # depthwise conv (t0 taps) then a grouped one (head_dim inputs, t1 taps),
                # each with a bias, sized for the rank's heads
                Tensor(f"{a}.qkv.conv_qk", "attention", (channels, t0 + hd * t1 + 2), attn,
                       shard="tp"),
                Tensor(f"{a}.qkv.temp", "attention", (kv, 1), attn, shard="tp"),
                Tensor(f"{a}.o_proj", "attention", (hidden, heads * hd), attn, linear=True,
                       shard="tp")]
    if moe:
        outputs = experts + bool(t.get("zaya_use_mod"))
        out += [Tensor(f"{r}.down_proj", "router", (width, hidden + 1), moe, linear=True),
                Tensor(f"{r}.router_mlp.hidden", "router", (2 * width, width + 1), moe,
                        linear=True),
                Tensor(f"{r}.router_mlp.4", "router", (outputs, width), moe, linear=True),
                Tensor(f"{r}.norms", "router", (width * (1 + bool(t.get("zaya_use_eda"))), 1),
                       moe)]
        out += _mlp(f"{p}.zaya_block.experts.{{e}}", "experts", hidden,
                    _int(t, "ffn_hidden_size") // 2, moe, "experts", copies=experts)
    return out


def _decilm_ffn_width(mult: float, hidden: int) -> int:
    """DeciLM's FFN width: two thirds of ``ffn_mult`` times the hidden size, rounded up to a
    multiple of 256 (``nemotron_nas.py``)."""
    width = int(2 * mult * hidden / 3)
    return -(-width // 256) * 256


def _decilm(t: Mapping[str, Any], n_layers: int, caveats: list[str]) -> list[Tensor]:
    """DeciLM / Nemotron-NAS (Llama-3.3-Nemotron-Super-49B): each layer's ``block_configs``
    entry says whether it has attention (and its GQA group) and how wide its FFN is; a no-op
    attention or FFN has neither weights nor its norm (``nemotron_nas.py``)."""
    hidden = _int(t, "hidden_size")
    heads = _int(t, "num_attention_heads")
    p = "model.layers.{i}"
    blocks = t.get("block_configs") or []
    if len(blocks) < n_layers:
        caveats.append("block_configs does not cover every layer: weights unknown")
        return []
    by_kv: dict[int, list[int]] = {}
    by_ffn: dict[int, list[int]] = {}
    for i, block in enumerate(blocks[:n_layers]):
        block = block if isinstance(block, Mapping) else {}
        attn, ffn = block.get("attention") or {}, block.get("ffn") or {}
        if not attn.get("no_op"):
            group = _int(attn, "n_heads_in_group", default=1) or 1
            by_kv.setdefault(max(1, heads // group), []).append(i)
        if not ffn.get("no_op"):
            mult = ffn.get("ffn_mult")
            width = _decilm_ffn_width(float(mult), hidden) if isinstance(
                mult, (int, float)) else _int(t, "intermediate_size")
            by_ffn.setdefault(width, []).append(i)
        if attn.get("replace_with_linear") or ffn.get("replace_with_linear"):
            caveats.append(f"block_configs[{i}] replaces a block with a linear layer: "
                           "not counted")
    out: list[Tensor] = []
    for kv, ly in sorted(by_kv.items()):
        out += [Tensor(f"{p}.input_layernorm", "norms", (hidden, 1), tuple(ly)),
                *_gqa({**t, "num_key_value_heads": kv}, "llama", tuple(ly), p)]
    for width, ly in sorted(by_ffn.items()):
        out += [Tensor(f"{p}.post_attention_layernorm", "norms", (hidden, 1), tuple(ly)),
                *_mlp(f"{p}.mlp", "mlp", hidden, width, tuple(ly), "tp")]
    return out


def _kimi_linear_mixers(t: Mapping[str, Any], layers: tuple[int, ...], p: str) -> list[Tensor]:
    """Kimi-Linear / Kimi-K3 (``kimi_linear.py``, ``kimi_k3.py``): MLA on the layers
    ``linear_attn_config.full_attn_layers`` lists (1-based), with an output gate where
    ``mla_use_output_gate``; Kimi Delta Attention on the others: q/k/v, the two-step forget
    gate, the beta projection, an output gate (full rank or two-step), the short
    convolutions, and per-head decay; plus Kimi-K3's attention-residual scorers."""
    lin = t["linear_attn_config"]
    hidden = _int(t, "hidden_size")
    full_ids = {int(x) - 1 for x in lin.get("full_attn_layers") or ()}
    full = tuple(i for i in layers if i in full_ids)
    kda = tuple(i for i in layers if i not in full_ids)
    out: list[Tensor] = []
    if full:
        out += _mla(t, full, p)
        if t.get("mla_use_output_gate"):
            gate = _int(t, "num_attention_heads") * _int(t, "v_head_dim")
            out.append(Tensor(f"{p}.self_attn.g_proj", "attention", (gate, hidden), full,
                              linear=True, shard="attn_tp"))
    if kda:
        hd, heads = _int(lin, "head_dim"), _int(lin, "num_heads")
        proj = hd * heads
        kernel = _int(lin, "short_conv_kernel_size", default=4)
        a = f"{p}.self_attn"
        out += [Tensor(f"{a}.qkv_proj", "linear_attention", (3 * proj, hidden), kda,
                       linear=True, shard="attn_tp"),
                Tensor(f"{a}.f_a_proj", "linear_attention", (hd, hidden), kda, linear=True),
                Tensor(f"{a}.f_b_proj", "linear_attention", (proj, hd), kda, linear=True,
                       shard="attn_tp"),
                Tensor(f"{a}.b_proj", "linear_attention", (heads, hidden), kda, linear=True,
                       shard="attn_tp"),
                Tensor(f"{a}.qkv_conv1d", "linear_attention", (3 * proj, kernel), kda,
                       shard="attn_tp", fp32=True),
                Tensor(f"{a}.dt_bias", "linear_attention", (proj, 1), kda, shard="attn_tp",
                       fp32=True),
                Tensor(f"{a}.A_log", "linear_attention", (heads, 1), kda, shard="attn_tp",
                       fp32=True),
                Tensor(f"{a}.o_norm", "norms", (hd, 1), kda),
                Tensor(f"{a}.o_proj", "linear_attention", (hidden, proj), kda, linear=True,
                       shard="attn_tp")]
        if lin.get("use_full_rank_gate"):
            out.append(Tensor(f"{a}.g_proj", "linear_attention", (proj, hidden), kda,
                              linear=True, shard="attn_tp"))
        else:
            out += [Tensor(f"{a}.g_a_proj", "linear_attention", (hd, hidden), kda,
                           linear=True),
                    Tensor(f"{a}.g_b_proj", "linear_attention", (proj, hd), kda, linear=True,
                           shard="attn_tp")]
    if t.get("attn_res_block_size") is not None:
        out.append(Tensor(f"{p}.attn_res_norms_projs", "norms", (4 * hidden, 1), layers))
    return out


def _kimi_linear_moe(t: Mapping[str, Any], layers: tuple[int, ...], p: str, experts: int,
                     inter: int) -> list[Tensor]:
    """Kimi-Linear's MoE: a router with its correction bias, the routed experts, and
    ``num_shared_experts`` shared ones fused into one MLP. Kimi-K3's latent MoE
    (``routed_expert_hidden_size``) runs the routed experts in that narrower width,
    between two replicated projections with an optional norm (``kimi_k3.py``)."""
    hidden = _int(t, "hidden_size")
    latent = _int(t, "routed_expert_hidden_size") or hidden
    m = f"{p}.block_sparse_moe"
    out = [Tensor(f"{m}.gate", "router", (experts, hidden), layers),
           Tensor(f"{m}.gate.e_score_correction_bias", "router", (experts, 1), layers,
                  fp32=True),
           *_mlp(f"{m}.experts.{{e}}", "experts", latent, inter, layers, "experts", experts)]
    if latent != hidden:
        out += [Tensor(f"{m}.routed_expert_down_proj", "experts", (latent, hidden), layers),
                Tensor(f"{m}.routed_expert_up_proj", "experts", (hidden, latent), layers)]
        if t.get("latent_moe_use_norm"):
            out.append(Tensor(f"{m}.routed_expert_norm", "norms", (latent, 1), layers))
    shared = _int(t, "num_shared_experts")
    if shared:
        out += _mlp(f"{m}.shared_experts", "shared_experts", hidden, inter * shared, layers,
                    "shared")
    return out


#: Nemotron-H's layer kinds by name (``mtp_layers_block_type``) as pattern letters
_NEMOTRON_H_KINDS = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}


def _nemotron_h_mtp(t: Mapping[str, Any], vocab: int, hidden: int,
                    n_layers: int) -> list[Tensor]:
    """Nemotron 3's MTP block (``nemotron_h_mtp.py``), when ``num_nextn_predict_layers``
    says the checkpoint has one: the layers ``mtp_hybrid_override_pattern`` (or the
    canonical ``mtp_layers_block_type``; the class default is attention then MoE) lists,
    each like a main layer of its kind, the first with the embedding/hidden norms and the
    2h -> h projection, the last with a final norm."""
    n = _int(t, "num_nextn_predict_layers")
    if not n:
        return []
    pattern = t.get("mtp_hybrid_override_pattern")
    kinds = t.get("mtp_layers_block_type")
    if not (isinstance(pattern, str) and pattern):
        pattern = "".join(_NEMOTRON_H_KINDS.get(str(k), "?") for k in kinds) \
            if isinstance(kinds, (list, tuple)) and kinds else "*E"
    pattern *= n
    sub = _nemotron_h({**t, "hybrid_override_pattern": pattern}, vocab, hidden, len(pattern),
                      True, [])
    out = [x._replace(name=x.name.replace("backbone.", "mtp.", 1),
                      layers=tuple(n_layers + i for i in x.layers)) for x in sub if x.layers]
    first, last = (n_layers,), (n_layers + len(pattern) - 1,)
    return out + [Tensor("mtp.layers.{i}.enorm_hnorm", "mtp", (2 * hidden, 1), first),
                  Tensor("mtp.layers.{i}.eh_proj", "mtp", (hidden, 2 * hidden), first,
                         linear=True, shard="tp"),
                  Tensor("mtp.layers.{i}.final_layernorm", "norms", (hidden, 1), last)]
