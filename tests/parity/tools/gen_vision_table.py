"""Record how transformers 5.24 (with SGLang 0.5.23's registrations) presents ``vision_config``.

    ~/sglang-oracle/bin/python tests/parity/tools/gen_vision_table.py

SGLang sizes a VLM's memory headroom from ``getattr(hf_config.vision_config,
"num_hidden_layers", 24)`` and ``hidden_size`` (1024). What that reads depends on the config
class: a sub-config object answers through its ``attribute_map`` (``depth`` for Qwen2-VL
style encoders) and its class defaults; a ``vision_config`` left as a plain dict answers
neither, so the defaults apply. This writes ``src/launchplan/facts/data/vision_configs.json``
with, per top-level model_type, the vision class a dict becomes (``fixed``, or chosen by the
dict's own ``model_type`` with a default), and per vision model_type, the JSON keys that
answer ``num_hidden_layers`` / ``hidden_size`` and the class defaults. A top-level type
whose class leaves ``vision_config`` unset when config.json has none is marked
``"absent": "none"`` (SGLang then makes no VLM memory adjustment); one that builds its own
default records the depth and width SGLang reads from it as ``absent_size`` (LLaVA's default
is a ViT-L/14, not the CLIP vision class's own defaults).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "src" / "launchplan" / "facts" / "data" / "vision_configs.json"
ORACLE = os.environ.get("LAUNCHPLAN_ORACLE_DIR", "/work/shared/oracle")


def main() -> None:
    sys.path.insert(0, ORACLE)
    import sglang_oracle as so

    p = dict(so.PLATFORMS["h100"])
    so._STUB_ACTIVE.update(so.STUB_ROOTS["common"] | so.STUB_ROOTS[p["vendor"]])
    sys.meta_path.append(so._StubFinder())
    so.install_device_fakes(p)
    import sglang.srt.server_args  # noqa: F401
    from sglang.srt.utils.hf_transformers.common import _CONFIG_REGISTRY
    from transformers import CONFIG_MAPPING, PretrainedConfig

    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")

    def cls_of(mt):
        return _CONFIG_REGISTRY.get(mt) or CONFIG_MAPPING[mt]

    def describe(vcls) -> dict:
        amap = dict(getattr(vcls, "attribute_map", {}) or {})
        try:
            plain = vcls()
        except Exception:  # noqa: BLE001 - a class that needs arguments has no defaults here
            plain = None
        row = {}
        for key in ("num_hidden_layers", "hidden_size"):
            default = getattr(plain, key, None) if plain is not None else None
            row[key] = {"key": amap.get(key, key),
                        "default": default if isinstance(default, int) else None}
        return row

    top: dict = {}
    vision: dict = {}
    known = sorted(set(CONFIG_MAPPING.keys()) | set(_CONFIG_REGISTRY))
    for mt in known:
        try:
            cls = cls_of(mt)
        except Exception:  # noqa: BLE001
            continue
        subs = getattr(cls, "sub_configs", {}) or {}
        sub = subs.get("vision_config")
        try:
            built = cls(vision_config={})
            vc = getattr(built, "vision_config", None)
        except Exception:  # noqa: BLE001
            vc = None
        if sub is None and not isinstance(vc, PretrainedConfig):
            continue  # a dict stays a dict (or the class has no vision encoder)
        default_type = getattr(vc, "model_type", None) if isinstance(vc, PretrainedConfig) \
            else None
        by_type = sub is not None and getattr(sub, "__name__", "") == "AutoConfig"
        if default_type is None and sub is not None and not by_type:
            default_type = getattr(sub, "model_type", None)
        if not default_type and not by_type:
            continue
        top[mt] = {"by_model_type": by_type, "default": default_type}
        try:  # without any vision_config: does the class build its default one?
            bare = getattr(cls(), "vision_config", None)
        except Exception:  # noqa: BLE001 - needs arguments: assume it builds one, as above
            bare = vc
        if not isinstance(bare, PretrainedConfig):
            top[mt]["absent"] = "none"
        else:  # what SGLang's getattr reads from the vision config the class builds itself
            top[mt]["absent_size"] = [
                value if isinstance(value, int) else fallback
                for value, fallback in ((getattr(bare, "num_hidden_layers", None), 24),
                                        (getattr(bare, "hidden_size", None), 1024))]
        if default_type and default_type not in vision:
            vision[default_type] = describe(type(vc) if isinstance(vc, PretrainedConfig)
                                            else sub)
    for mt in known:  # every class a dict's own model_type may choose
        if mt in vision:
            continue
        try:
            cls = cls_of(mt)
        except Exception:  # noqa: BLE001
            continue
        if "vision" in mt or mt.endswith(("_vit", "_encoder")) or mt in ("clip", "siglip"):
            vision[mt] = describe(cls)
    OUT.write_text(json.dumps({
        "source": "transformers 5.24.0 config classes with SGLang 0.5.23's registered configs, "
                  "recorded by tests/parity/tools/gen_vision_table.py",
        "top": top, "vision": vision}, indent=1, sort_keys=True) + "\n")
    print(f"{len(top)} top-level types, {len(vision)} vision types -> {OUT}")


if __name__ == "__main__":
    main()
