"""Architecture-name tables: which SGLang 0.5.23 architectures take which path.

Every test against these sets is an any-arch test over ``architectures`` unless the code
using it says arch0.
"""

from __future__ import annotations

_MLA_DEEPSEEK_ARCHS = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGeneration",
    "Glm5NextForConditionalGenerationNextN", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "DotsVLMForCausalLM", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle",
    "KimiK25ForConditionalGeneration", "Eagle3DeepseekV2ForCausalLM", "GigaChat35ForCausalLM",
    "GigaChat35ForCausalLMNextN",
})

#: The §2.2 rows after the DeepSeek row, in order (Pixtral and the Bailing NextN are
#: conditional and handled in ``_mla_branch``).
_SHAPE_BRANCHES: tuple[tuple[str, frozenset[str]], ...] = (
    ("dsv4", frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                        "DeepseekV4ForCausalLMDSpark"})),
    ("glm4_nextn", frozenset({"Glm4MoeForCausalLMNextN"})),
    ("minicpm3", frozenset({"MiniCPM3ForCausalLM"})),
    ("deepseek_vl2", frozenset({"DeepseekVL2ForCausalLM"})),
    ("kimi_vl", frozenset({"KimiVLForConditionalGeneration"})),
    ("kimi_linear", frozenset({"KimiLinearForCausalLM", "KimiK3LinearForCausalLM",
                               "KimiK3ForConditionalGeneration"})),
    ("bailing_v25", frozenset({"BailingMoeV2_5ForCausalLM"})),
    ("bailing_v3", frozenset({"BailingMoeV3ForCausalLM",
                              "BailingMoeV3VLForConditionalGeneration"})),
    ("sarvam", frozenset({"SarvamMLAForCausalLM"})),
)

_PURE_SSM = frozenset({"Mamba2ForCausalLM", "MambaForCausalLM", "FalconMambaForCausalLM"})

_SWA_SINK_ARCHS = frozenset({"GptOssForCausalLM", "GraniteSWAForCausalLM",
                             "GraniteMoeSWAForCausalLM", "IQuestQ1ForCausalLM", "IQuestQ1MTP"})
_MIMO_V2_ARCHS = frozenset({"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP"})
_HYBRID_SWA_ARCHS = _SWA_SINK_ARCHS | _MIMO_V2_ARCHS | frozenset({
    "BeamForCausalLM", "Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark", "Step3p5ForCausalLM",
    "Step3p5MTP", "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "LagunaForCausalLM", "MellumForCausalLM", "MuseGlimmerForCausalLM",
    "MuseGlimmerForConditionalGeneration", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP", "UnlimitedOCRForCausalLM",
})

_DSA_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGenerationNextN",
    "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
})

_ENCODER_DECODER_ARCHS = frozenset({"WhisperForConditionalGeneration",
                                    "MllamaForConditionalGeneration",
                                    "MossVLForConditionalGeneration"})

_NON_GENERATION_ARCHS = frozenset({
    "LlamaEmbeddingModel", "MistralModel", "LlamaForSequenceClassification",
    "LlamaForSequenceClassificationWithNormal_Weights", "InternLM2ForRewardModel",
    "Qwen2ForRewardModel", "Qwen3ForRewardModel", "Qwen2ForSequenceClassification",
    "Qwen3ForSequenceClassification", "Qwen3Model", "CLIPModel", "BertModel", "Contriever",
    "BertForSequenceClassification", "XLMRobertaModel", "XLMRobertaForSequenceClassification",
    "Gemma2ForSequenceClassification", "EmbeddingGemma2Model", "Lfm2BidirectionalModel",
})

_AUTO_EMBEDDING_ARCHS = frozenset({"BertModel", "CLIPModel", "Contriever",
                                   "LlamaEmbeddingModel", "MistralModel", "XLMRobertaModel",
                                   "EmbeddingGemma2Model"})

_MM_DEFAULT_OFF = frozenset({"Gemma3ForConditionalGeneration",
                             "Llama4ForConditionalGeneration",
                             "Step3VLForConditionalGeneration",
                             "InklingForConditionalGeneration"})

_MM_NO_CHUNKED_PREFILL = frozenset({"Grok1VForCausalLM", "Grok1AForCausalLM",
                                    "LlavaLlamaForCausalLM", "MllamaForConditionalGeneration",
                                    "MossVLForConditionalGeneration", "CLIPModel"})

# Multimodal architectures SGLang 0.5.23 lets keep the breakable prefill CUDA graph
# (configs/model_config.py's allowlist); any other multimodal model has it disabled.
_MM_BREAKABLE_GRAPH = frozenset("""
    MiniMaxM3SparseForConditionalGeneration MiniMaxM3SparseForCausalLM
    Cohere2VisionForConditionalGeneration Glm5NextForConditionalGeneration
    InternS2MobiusForConditionalGeneration PaddleOCRVLForConditionalGeneration
    Qwen3_5ForConditionalGeneration Qwen3_5MoeForConditionalGeneration
    Qwen4ExpForConditionalGeneration MuseGlimmerForConditionalGeneration
    MuseSparkForConditionalGeneration KimiK3ForConditionalGeneration
    KimiK25ForConditionalGeneration
""".split())

_MULTIMODAL_ARCHS = frozenset("""
    CLIPModel Cohere2VisionForConditionalGeneration Cosmos3EdgeForConditionalGeneration
    DeepseekVL2ForCausalLM Ernie4_5_VLMoeForConditionalGeneration
    MiniMaxM3SparseForConditionalGeneration Gemma3ForConditionalGeneration
    Gemma3nForConditionalGeneration Gemma4ForConditionalGeneration EmbeddingGemma2Model
    Gemma4UnifiedForConditionalGeneration DiffusionGemmaForBlockDiffusion
    Glm4vForConditionalGeneration Glm4vMoeForConditionalGeneration
    Glm5NextForConditionalGeneration GlmOcrForConditionalGeneration
    GlmAsrForConditionalGeneration GlmImageForConditionalGeneration Grok1VForCausalLM
    Grok1AForCausalLM LlavaLlamaForCausalLM Llama4ForConditionalGeneration
    LlavaMistralForCausalLM LlavaQwenForCausalLM LlavaForConditionalGeneration
    LlavaVidForCausalLM Lfm2VlForConditionalGeneration LightOnOCRForConditionalGeneration
    MiMoV2ForCausalLM MiMoV2ASRForCausalLM MiniCPMO MiniCPMV
    Mistral3ForConditionalGeneration MultiModalityCausalLM MllamaForConditionalGeneration
    MossVLForConditionalGeneration NemotronH_Nano_VL_V2 NemotronH_Nano_Omni_Reasoning_V3
    NemotronH_Omni_Reasoning_V3 MuseGlimmerForConditionalGeneration
    MuseSparkForConditionalGeneration PixtralForConditionalGeneration
    Qwen2AudioForConditionalGeneration Qwen2VLForConditionalGeneration
    Qwen2_5_VLForConditionalGeneration Qwen3VLForConditionalGeneration
    Qwen3VLMoeForConditionalGeneration Qwen3_5ForConditionalGeneration
    Qwen3_5MoeForConditionalGeneration Qwen4ExpForConditionalGeneration
    InternS2PreviewForConditionalGeneration InternS2MobiusForConditionalGeneration
    Qwen3ASRForConditionalGeneration Qwen3OmniMoeForConditionalGeneration
    KimiVLForConditionalGeneration LocateAnythingForConditionalGeneration InternVLChatModel
    InternS1ForConditionalGeneration InternS1ProForConditionalGeneration Phi4MMForCausalLM
    VoxtralForConditionalGeneration WhisperForConditionalGeneration
    Step3VLForConditionalGeneration POINTSV15ChatModel DotsVLMForCausalLM
    Dots3NoteForCausalLM DotsOCRForCausalLM Sarashina2VisionForCausalLM
    NVILAForConditionalGeneration NVILALiteForConditionalGeneration DeepseekOCRForCausalLM
    UnlimitedOCRForCausalLM JetVLMForConditionalGeneration
    PaddleOCRVLForConditionalGeneration MiDashengLMModel StepVLForConditionalGeneration
    Step3p7ForConditionalGeneration KimiK25ForConditionalGeneration
    BailingMMNativeForConditionalGeneration BailingMM2NativeForConditionalGeneration
    BailingMoeV3VLForConditionalGeneration
""".split())
