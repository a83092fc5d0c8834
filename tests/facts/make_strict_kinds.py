"""Write ``src/launchplan/facts/data/strict_kinds.json``: for every model type whose config
class transformers 5.24 validates strictly (``huggingface_hub``'s strict dataclasses), the JSON
kinds each field it declares with a concrete type admits.

    env -u PYTHONPATH ~/sglang-oracle/bin/python tests/facts/make_strict_kinds.py

Run in the oracle's venv (transformers 5.24, with SGLang 0.5.23's registrations imported, so a
type SGLang registers over transformers' resolves as SGLang resolves it). Only what the strict
check enforces at construction is kept: a field annotated with a string (the base class's
fields) is not checked, nor are a container's elements here, and a field whose annotation holds
a type this table cannot name as a JSON kind is left out (any value passes).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "src" / "launchplan" / "facts" / "data" / \
    "strict_kinds.json"


def kinds(annotation: object) -> set[str] | None:
    """The JSON kinds a value of ``annotation`` may have, or None when it cannot say."""
    if annotation is None or annotation is type(None):
        return {"null"}
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        out: set[str] = set()
        for member in typing.get_args(annotation):
            found = kinds(member)
            if found is None:
                return None
            out |= found
        return out
    if origin is typing.Literal:
        return None
    plain = origin or annotation
    if plain is bool:
        return {"bool"}
    if plain is int:
        return {"int"}
    if plain is float:
        return {"float"}
    if plain is str:
        return {"str"}
    if plain in (list, tuple):
        return {"list"}
    if plain is dict or (isinstance(plain, type) and issubclass(plain, dict)):
        return {"dict"}
    if typing.is_typeddict(plain):
        return {"dict"}
    return None


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_model_fixtures import _setup

    _setup("h100")  # the oracle's stubs, so SGLang imports and registers its config classes
    import sglang.srt.utils.hf_transformers_utils  # noqa: F401
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    table: dict[str, dict[str, list[str]]] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            cls = CONFIG_MAPPING[model_type]
        except Exception:  # noqa: BLE001  (a class whose module does not import here)
            continue
        if not dataclasses.is_dataclass(cls) or not hasattr(cls, "__validators__"):
            continue
        fields: dict[str, list[str]] = {}
        for field in dataclasses.fields(cls):
            if isinstance(field.type, str):
                continue  # not validated (the base class's string annotations)
            found = kinds(field.type)
            if found is not None:
                fields[field.name] = sorted(found)
        if fields:
            table[model_type] = fields
    source = ("transformers 5.24 strict config classes, with SGLang 0.5.23's registrations "
              "(tests/facts/make_strict_kinds.py)")
    rows = ",\n".join(f"  {json.dumps(mt)}: {json.dumps(table[mt], sort_keys=True)}"
                      for mt in sorted(table))
    OUT.write_text(f'{{"source": {json.dumps(source)},\n "kinds": {{\n{rows}\n}}}}\n')
    print(f"wrote {len(table)} model types to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
