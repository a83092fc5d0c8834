"""``ModelFacts``: the record of one model that rules read (``view.model``, ``view.draft``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launchplan.facts.models.architectures import _MM_DEFAULT_OFF, _MULTIMODAL_ARCHS
from launchplan.facts.models.fields import _num
from launchplan.struct import Struct, uncompared


class ModelFacts(Struct):
    """Everything the rules read about one model, as SGLang's cached ``ModelConfig`` has it.

    Built under SGLang's defaults (``--dtype auto``, no ``--enable-multimodal``, no
    ``--disable-hybrid-swa-memory``, no ``--is-embedding``); rules that see those flags
    combine them with the fields below (see ``multimodal``).
    """

    path: str  # the model path as given
    name: str  # bundled name, or the folder's name
    config_file: str  # the config.json that was read
    architectures: tuple[str, ...]  # after post-fixes, overrides and draft renames
    arch0: str  # architectures[0]: what dispatch-style rules read
    model_type: str  # top-level model_type
    text_model_type: str | None  # model_type of the text config (same object for plain LLMs)
    model_type_known: bool  # transformers 5 / SGLang know the type (else remote code only)
    attention_arch: str  # "MLA" | "MHA" | "SSM" (any-arch detection, §2.2)
    num_hidden_layers: int | None  # text config layers (None if absent and no class default)
    hidden_size: int | None  # text config hidden size
    vocab_size: int | None  # text config vocabulary (vision vocabulary for GLM-Image)
    num_attention_heads: int | None  # text config heads (None for head-less SSMs)
    total_num_kv_heads: int  # SGLang's get_total_num_kv_heads()
    head_dim: int  # after the MLA override (256 for DeepSeek)
    v_head_dim: int  # value head width
    swa_head_dim: int  # sliding-window layers' key width
    swa_v_head_dim: int  # sliding-window layers' value width
    has_asymmetric_kv: bool  # head_dim != v_head_dim or swa widths differ
    kv_lora_rank: int | None  # MLA ranks; None when not MLA
    qk_nope_head_dim: int | None
    qk_rope_head_dim: int | None
    context_len: int  # the context length SGLang uses (--context-length applied)
    derived_context_len: int  # from config.json alone
    dtype: str  # the dtype under --dtype auto, e.g. "bfloat16"
    config_dtype: str | None  # the dtype the text config declares (None: float32 assumed)
    quant_method: str | None  # detected from the checkpoint (§3.2), lower-case; "" = unnamed
    quantization_config: Mapping[str, Any] | None = uncompared()  # raw, top level
    quant_config: Mapping[str, Any] | None = uncompared()  # the description verified
    #: the KV-cache quantization the checkpoint declares (``checkpoint_kv_algo``)
    checkpoint_kv_algo: str | None = uncompared()
    sliding_window: int | None  # first of sliding_window_size / sliding_window / window_size
    attention_chunk_size: int | None  # Llama-4 chunked attention
    is_hybrid_swa: bool  # before --disable-hybrid-swa-memory
    has_attention_sinks: bool  # learned sinks (GPT-OSS and friends)
    learnable_sink: bool  # top-level learnable_sink, which the DSA rules read
    is_multimodal: bool  # under default flags
    multimodal_default: bool  # what an unset --enable-multimodal becomes
    has_text_config: bool  # the text config is a sub-config (counts as multimodal)
    language_model_only: bool  # the checkpoint declares language_model_only
    mm_chunked_prefill_supported: bool  # architecture allows multimodal chunked prefill
    mm_breakable_graph_supported: bool  # a multimodal arch validated for a breakable prefill graph
    linear_attn_kind: str | None  # mamba-ish kind: "mamba" | "gdn" | "kda" | "lightning"
    uses_kda: bool  # Kimi delta attention layers (uses_kda_attention)
    mamba_chunk_size: int  # top-level mamba_chunk_size (default 64)
    is_deepseek_dsa: bool  # DeepSeek-family arch0 with index_topk
    index_topk: int | None  # DSA top-k (top level)
    num_nextn_predict_layers: int | None  # MTP layers in the text config
    is_encoder_decoder: bool  # Whisper / Mllama / MossVL
    is_generation: bool  # without --is-embedding
    auto_embedding: bool  # architecture declares is_embedding by itself
    is_embedding_gemma: bool  # gemma3_text with bidirectional attention
    has_remote_code: bool  # auto_map present
    has_dspark_keys: bool  # dspark_* keys at the top level
    rope_scaling: Mapping[str, Any] | None = uncompared()  # normalised, text config
    is_draft: bool  # built as a speculative draft (renamed arch, target context)
    is_gguf: bool  # the path named a .gguf file (config.json read beside it)
    caveats: tuple[str, ...]  # where the facts may differ from SGLang's
    #: the top level as SGLang's hf_config shows it: overrides applied, class defaults filled
    #: (tabulated types), text attributes copied up; read-only
    config: Mapping[str, Any] = uncompared()
    text_config: Mapping[str, Any] = uncompared()  # same object if plain

    @property
    def is_mla(self) -> bool:
        """``use_mla_backend``: the attention arch is MLA."""
        return self.attention_arch == "MLA"

    @property
    def is_hybrid_linear(self) -> bool:
        """Hybrid linear attention or Mamba (``mambaish_config`` is not None)."""
        return self.linear_attn_kind is not None

    @property
    def tied_word_embeddings(self) -> tuple[bool | None, bool | None]:
        """(top level, text config): ``tie_word_embeddings`` as SGLang's ``hf_config`` and its
        ``text_config`` hold them, for checks that need both tied (Gemma4Renoise).

        A side the file leaves unset takes its class's default where launchplan knows it
        (DiffusionGemma's two classes tie), else None: unknown. The text side is None also
        when the config has no text sub-config (SGLang's ``hf_config.text_config`` does not
        exist then). The parse fills an unset text value from the top level, which
        DiffusionGemma's classes do not; that changes whether both sides tie only when the top
        level is untied already.
        """
        top = _tie(self.config.get("tie_word_embeddings"), self.model_type)
        if not self.has_text_config:
            return top, None
        return top, _tie(self.text_config.get("tie_word_embeddings"), self.text_model_type)

    def has_arch(self, *names: str) -> bool:
        """Any-arch test: one of ``names`` appears anywhere in ``architectures``."""
        return any(a in self.architectures for a in names)

    def num_kv_heads(self, tp_size: int, dcp_size: int = 1) -> int:
        """KV heads per rank: heads shard over ``tp // dcp`` groups, at least one each.

        A draft never joins the decode-context-parallel group, so it ignores ``dcp_size``.
        """
        groups = tp_size // (1 if self.is_draft else dcp_size)
        return max(1, self.total_num_kv_heads // max(groups, 1))

    def multimodal(self, enable_multimodal: bool | None = None, *,
                   language_model_only: bool = False, model_impl: str = "auto") -> bool:
        """``is_multimodal`` under explicit flags (§2.10)."""
        if enable_multimodal is None:
            enable_multimodal = self.multimodal_default or (
                model_impl == "transformers" and self.arch0 in _MM_DEFAULT_OFF)
        if not enable_multimodal or language_model_only or self.language_model_only:
            return False
        if self.is_multimodal or self.has_text_config:
            return True
        if any(a in _MULTIMODAL_ARCHS for a in self.architectures):
            return True
        if self.model_type == "deepseek_v41" and _num(self.config.get("vision_n_layers")) > 0:
            return True
        return model_impl == "transformers" and (
            "vision_config" in self.config or "audio_config" in self.config)


#: ``tie_word_embeddings`` of the config classes whose default launchplan knows (transformers
#: 5: both DiffusionGemma classes declare True)
TIED_BY_DEFAULT: Mapping[str, bool] = {"diffusion_gemma": True, "diffusion_gemma_text": True}


def _tie(value: Any, model_type: str | None) -> bool | None:
    """A ``tie_word_embeddings`` value as the class holds it: the file's boolean, else the
    class default if known, else None."""
    if isinstance(value, bool):
        return value
    if value is None and model_type is not None:
        return TIED_BY_DEFAULT.get(model_type)
    return None
