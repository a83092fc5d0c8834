#!/usr/bin/env python3
"""Record how many vision-tower parameters SGLang's own classes put on one GPU.

    /root/sglang-oracle/bin/python tests/parity/tools/record_vision_params.py \\
        --out tests/parity/data/results-vision-params.jsonl

Each case resolves a launch with SGLang's ``ServerArgs`` and publishes it as a scheduler
process would (``record_kv_pool.py``'s machinery: device fakes, stubs, forked children),
then builds the model's vision tower and projector with SGLang 0.5.23's classes on the
``meta`` device (no memory, no weights) and counts the parameters rank 0 holds: what each
tower family's split leaves on one GPU. ``test_vision_weights.py`` replays the recording.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
RESULTS = os.path.join(DATA, "results-vision-params.jsonl")

#: (model as record_kv_pool names it, tower family); every model under every launch below
MODELS = (
    ("qwen2.5-vl-7b", "qwen2_5_vl"),
    ("shipped/Qwen--Qwen3-VL-2B-Instruct", "qwen3_vl"),
    ("gemma-3-27b", "siglip"),
    ("shipped/moonshotai--Kimi-K2.5", "moonvit"),
    ("shipped/google--gemma-4-26B-A4B", "gemma4"),
    ("shipped/moonshotai--Kimi-K3", "moonvit_k3"),
    ("tests/parity/models/llama-3.2-11b-vision-instruct", "mllama"),
    ("tests/parity/models/glm-4.5v", "glm4v"),
    ("tests/parity/models/locateanything-3b-4bit", "moonvit_vl"),
    ("tests/parity/models/qwen3-omni-30b-a3b-instruct", "qwen3_omni_vision"),
    ("tests/parity/models/qwen3-omni-30b-a3b-instruct", "qwen3_omni_audio"),
    # added with archdraws6: GLM-OCR's blocks, Pixtral under LightOnOCR and Mistral 3, and
    # PaddleOCR-VL's SigLIP with its projector (each from the whole class SGLang builds)
    ("tests/parity/models/glm-ocr", "glm_ocr"),
    ("tests/parity/models/lightonocr-2-1b-bbox-soup", "pixtral"),
    ("tests/parity/models/mistral-small-3.1-24b-instruct", "pixtral_mistral3"),
    ("tests/parity/models/paddleocr-vl", "paddleocr_vl"),
    # LLaVA's own classes (LlavaQwen/LlavaLlama): the projector and image_newline SGLang
    # builds, and the tower load_weights fetches by mm_vision_tower's name, built here from
    # that checkpoint's published config with the transformers class SGLang loads it as
    ("tests/parity/models/llava-onevision-qwen2-7b-ov", "llava_named"),
    ("tests/parity/models/llava-v1.5-7b", "llava_named"),
    # transformers-format LLaVA (LlavaForConditionalGeneration): SGLang's own tower class for
    # the vision config, and transformers' projector
    ("tests/parity/models/llava-1.5-7b-hf", "llava_hf"),
)
#: the public configs of the towers LLaVA checkpoints name in ``mm_vision_tower`` (each Hub
#: repository's config.json; CLIP's vision_config block)
NAMED_TOWERS = {
    "google/siglip-so400m-patch14-384": ("siglip", dict(
        hidden_size=1152, image_size=384, intermediate_size=4304, num_attention_heads=16,
        num_hidden_layers=27, patch_size=14)),
    "openai/clip-vit-large-patch14-336": ("clip", dict(
        hidden_size=1024, image_size=336, intermediate_size=4096, num_attention_heads=16,
        num_hidden_layers=24, patch_size=14, projection_dim=768)),
}
LAUNCHES = (["--tp-size", "1"], ["--tp-size", "2"], ["--tp-size", "4"], ["--tp-size", "8"],
            ["--tp-size", "4", "--mm-enable-dp-encoder"],
            # attention DP: attention TP 2 of 4, and 1 of 4
            ["--tp-size", "4", "--enable-dp-attention", "--dp-size", "2"],
            ["--tp-size", "4", "--enable-dp-attention", "--dp-size", "4"])


def cases() -> list[dict]:
    return [dict(name=f"{family}-{'-'.join(a[1:]).replace('--', '')}", model=model,
                 family=family, platform="h100", argv=list(a))
            for model, family in MODELS for a in LAUNCHES]


def _towers(family: str, config, dp: bool) -> list:
    """The modules SGLang's model class builds for the family's tower and projector."""
    import importlib

    import torch

    def m(name):
        return importlib.import_module(f"sglang.srt.models.{name}")

    v = getattr(config, "vision_config", None)
    if family == "qwen2_5_vl":
        return [m("qwen2_5_vl").Qwen2_5_VisionTransformer(
            v, norm_eps=getattr(config, "rms_norm_eps", 1e-6), prefix="visual",
            use_data_parallel=dp)]
    if family == "qwen3_vl":
        return [m("qwen3_vl").Qwen3VLMoeVisionModel(
            v, quant_config=None, norm_eps=getattr(config, "rms_norm_eps", 1e-6),
            prefix="model.visual", use_data_parallel=dp)]
    if family == "siglip":
        g3 = m("gemma3_mm")
        return [m("siglip").SiglipVisionModel(config=v, prefix="vision_tower"),
                g3.Gemma3MultiModalProjector(config)]
    if family == "moonvit":
        k = m("kimi_k25")
        return [k.MoonViT3dPretrainedModel(v, use_data_parallel=dp, prefix="vision_tower"),
                k.K2VLMultiModalProjector(v)]
    if family == "gemma4":
        g4v, g4 = m("gemma4_vision"), m("gemma4_mm")
        return [g4v.Gemma4VisionEncoder(config=v, prefix="vision_tower"),
                g4.Gemma4MultimodalEmbedder(v, config.text_config, prefix="embed_vision")]
    if family == "moonvit_k3":
        k3 = m("kimi_k3_vl")
        return [k3.KimiK3VisionTower(v), k3.KimiK3MultiModalProjector(v)]
    if family == "mllama":  # the tower, and the projector MllamaForConditionalGeneration adds
        from sglang.srt.layers.linear import ReplicatedLinear

        return [m("mllama").MllamaVisionModel(v, prefix="vision_model"),
                ReplicatedLinear(v.vision_output_dim, config.text_config.hidden_size,
                                 bias=True, prefix="multi_modal_projector")]
    if family == "glm4v":  # as Glm4vMoeForConditionalGeneration builds it: dummy heads first
        from sglang.srt.layers.attention import vision_utils

        vision_utils.update_vit_attn_dummy_heads_config(config)
        return [m("glm4v").Glm4vVisionModel(config.vision_config, quant_config=None,
                                            prefix="model.visual", use_data_parallel=dp)]
    if family == "qwen3_omni_vision":  # the thinker's towers, as its class builds them
        t = config.thinker_config
        return [m("qwen3_omni_moe").Qwen3OmniMoeVisionEncoder(
            t.vision_config, quant_config=None, norm_eps=getattr(config, "rms_norm_eps", 1e-6),
            prefix="thinker.visual")]
    if family == "qwen3_omni_audio":
        return [m("qwen3_omni_moe").Qwen3OmniMoeAudioEncoder(
            config.thinker_config.audio_config, None)]
    if family == "moonvit_vl":  # LocateAnything's tower (never use_data_parallel), projector
        la = m("locate_anything")
        return [m("kimi_vl_moonvit").MoonVitPretrainedModel(v),
                la.LocateAnythingMultiModalProjector(config)]
    if family == "glm_ocr":  # its class pads the heads after GLM-4V's __init__ did
        from sglang.srt.layers.attention import vision_utils

        vision_utils.update_vit_attn_dummy_heads_config(config)
        return [m("glm_ocr").GlmOcrVisionModel(config.vision_config, quant_config=None,
                                               prefix="model.visual", use_data_parallel=dp)]
    if family == "pixtral":  # LightOnOCR's class with its Qwen3 text model left out
        lo = m("lightonocr")
        text_cls = lo.Qwen3ForCausalLM
        lo.Qwen3ForCausalLM = lambda **kw: torch.nn.Module()
        try:
            model = lo.LightOnOCRForConditionalGeneration(config=config)
        finally:
            lo.Qwen3ForCausalLM = text_cls
        return [model.vision_encoder, model.vision_projection_norm, model.patch_merger,
                model.vision_language_adapter]
    if family == "pixtral_mistral3":  # the tower LLaVA's class resolves, Mistral 3's projector
        from transformers.models.mistral3.modeling_mistral3 import (
            Mistral3MultiModalProjector,
        )

        return [m("pixtral").PixtralVisionModel(v, quant_config=None, prefix="vision_tower"),
                Mistral3MultiModalProjector(config)]
    if family == "paddleocr_vl":
        p = m("paddleocr_vl")
        return [p.SiglipVisionModel(config=v, quant_config=None, prefix="visual"),
                p.Projector(config, v, prefix="mlp_AR")]
    if family in ("llava_named", "llava_hf"):  # the class with its text model left out
        lv = m("llava")
        m("registry")  # (loaded with the model loader in a real start; the class asks it)

        class _Text(torch.nn.Module):
            def __init__(self, *a, **k):
                super().__init__()
                self.model = torch.nn.Module()  # where image_newline is kept

        saved = {n: getattr(lv, n) for n in ("LlamaForCausalLM", "Qwen2ForCausalLM")}
        get_cls = lv.LlavaForConditionalGeneration._get_sgl_model_cls
        for n in saved:
            setattr(lv, n, _Text)

        def text_stubbed(self, cfg, auto=None):
            from transformers import AutoModelForCausalLM
            return _Text if auto is AutoModelForCausalLM else get_cls(self, cfg, auto)

        lv.LlavaForConditionalGeneration._get_sgl_model_cls = text_stubbed
        try:
            cls = getattr(lv, config.architectures[0])
            model = cls(config=config)
        finally:
            for n, c in saved.items():
                setattr(lv, n, c)
            lv.LlavaForConditionalGeneration._get_sgl_model_cls = get_cls
        out = [model]
        if family == "llava_named":  # what load_weights loads from the tower's own repository
            import transformers

            kind, values = NAMED_TOWERS[config.mm_vision_tower]
            if kind == "siglip":
                out.append(transformers.SiglipVisionModel(
                    transformers.SiglipVisionConfig(**values)))
            else:
                out.append(transformers.CLIPVisionModel(
                    transformers.CLIPVisionConfig(**values)))
        return out
    raise ValueError(family)


@contextlib.contextmanager
def scheduler_model_config(argv: list[str], facts: dict):
    """SGLang's ``ModelConfig`` (and parallel view) for ``argv`` as rank 0's scheduler would
    see it: the launch resolved and published under the platform ``facts``; one process
    stands for rank 0 of one pipeline stage, and the TP groups stay unbuilt, so SGLang's
    linears take their logical (rank, size) partitions."""
    import argparse as ap

    import torch
    import torch.distributed
    from sglang.srt.runtime_context import (
        SpawnRanks,
        get_flags,
        get_parallel,
        override_platform,
        publish,
    )
    from sglang.srt.server_args import ServerArgs

    torch.distributed.all_reduce = lambda tensor, *a, **k: None

    class _Parser(ap.ArgumentParser):
        def error(self, message):
            raise ValueError(f"argparse: {message}")

    parser = _Parser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    with override_platform(**facts):
        sa = ServerArgs.from_cli_args(parser.parse_args(argv))
        sa.resolve_once()
        publish(sa, role="scheduler", ranks=SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
        par = get_parallel()
        stages = int(getattr(par, "pp_size", 1) or 1)  # rank 0 stands for the first stage
        par.override_permanently(
            world_group=types.SimpleNamespace(cpu_group=None, world_size=par.tp_size),
            pp_group=types.SimpleNamespace(cpu_group=None, world_size=stages, rank_in_group=0,
                                           is_first_rank=True, is_last_rank=stages == 1))
        # as initialize_dp_attention does when the process groups are built (0.5.21's
        # parallel context has no such entry: it reads attention DP off the server args)
        try:
            get_flags().dp.enabled = bool(par.attn_dp_enabled)
        except AttributeError:
            pass
        from sglang.srt.configs.model_config import ModelConfig

        yield ModelConfig.from_server_args(sa), par


def run_vision_case(case: dict, facts: dict, oracle) -> dict:
    import record_kv_pool as rk
    import torch
    from sglang.srt.runtime_context import get_mm

    argv = ["--model-path", rk._model_path(case["model"]), *case["argv"]]
    out = dict(name=case["name"], family=case["family"], model=case["model"],
               argv=case["argv"], ok=False, error=None)
    with scheduler_model_config(argv, facts) as (mc, par):
        dp = bool(get_mm().mm_enable_dp_encoder)
        try:
            with torch.device("meta"):
                towers = _towers(case["family"], mc.hf_config, dp)
        except Exception as e:  # noqa: BLE001 - SGLang refusing to build the tower is an answer
            out["error"] = f"{type(e).__name__}: {e}"
            return out
        out["params_rank0"] = sum(p.numel() for t in towers for p in t.parameters())
        out["tp_size"], out["attn_tp_size"] = par.tp_size, par.attn_tp_size
        out["mm_enable_dp_encoder"] = dp
        out["ok"] = True
    return out


def record_main(doc: str, results: str, todo: list[dict], run_case, script: str) -> None:
    """A meta-device recorder's command line: the cases in one forked-worker process (the
    ``--worker`` re-entry runs ``run_case`` for each), their rows written to ``--out``."""
    a = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    a.add_argument("--out", default=results)
    a.add_argument("--timeout", type=float, default=300)
    a.add_argument("--worker", help=argparse.SUPPRESS)
    args = a.parse_args()
    sys.path.insert(0, HERE)
    if args.worker:
        import record_kv_pool as rk

        rk.run_kv_case = run_case  # the worker's per-case call
        rk.worker(args.worker, json.load(sys.stdin), args.timeout)
        return
    proc = subprocess.run([sys.executable, os.path.abspath(script), "--worker", "h100",
                           "--timeout", str(args.timeout)], input=json.dumps(todo),
                          capture_output=True, text=True)
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if len(rows) < len(todo):
        sys.stderr.write(proc.stderr[-3000:])
    with open(args.out, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"{sum(r.get('ok', False) for r in rows)}/{len(todo)} cases recorded -> {args.out}")


def main() -> None:
    record_main(__doc__, RESULTS, cases(), run_vision_case, __file__)


if __name__ == "__main__":
    main()
