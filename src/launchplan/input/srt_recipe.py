"""An srt-slurm recipe (the YAML NVIDIA's ``srtctl apply -f`` submits) as the workers it starts.

A recipe holds no command line. Its ``backend`` (of ``type: sglang``, srtctl's default)
gives each worker mode a mapping of SGLang's options under ``sglang_config`` (``prefill``,
``decode``, ``aggregated``) and that mode's environment under ``<mode>_environment``;
``resources`` says how many GPUs a worker of each mode takes (``gpus_per_prefill``,
``gpus_per_decode``, ``gpus_per_agg``) out of ``gpus_per_node``. srtctl starts each worker
with Python running Dynamo's SGLang worker module, ``dynamo.sglang``, or SGLang's own
launcher when the recipe's frontend is SGLang's (``frontend: {type: sglang}``), and gives
it, before the mapping's options: the model as mounted in the container (``--model-path
/model``), a served name (the prefill's or aggregated mode's ``served-model-name``, else
the model's path), ``--host 0.0.0.0``, and the mode (``--disaggregation-mode``) of a
prefill or decode worker. A worker whose GPUs span nodes gets the options of its first
node: ``--dist-init-addr`` at the leader's port 29500, ``--nnodes``, ``--node-rank 0``.
The mapping's options follow in key order, ``_`` in a key written ``-``: ``true`` is the
switch alone, ``false`` and an empty value give nothing, a list the option with its items.

The 2.0 layout (``schema: 2``) says the same per role: ``engine: sglang`` and under
``roles`` each worker mode (``prefill``, ``decode``, ``agg``) with its options (``args``),
its environment (``env``) and a worker's GPUs (``gpus``).

``as_script`` writes that as the script srtctl amounts to, one line per mode with its
environment before it, so that the pasted-line reader takes the workers as the text's
launches (a prefill and a decode worker are two) and names what it runs.
"""

from __future__ import annotations

import shlex
from typing import Any

from launchplan.input.yaml_bound import check_expansion

#: The worker modes a recipe's ``sglang_config`` may give, in the order srtctl starts them,
#: with the ``resources`` key of a worker's GPU count.
_MODES = (("prefill", "gpus_per_prefill"), ("decode", "gpus_per_decode"),
          ("aggregated", "gpus_per_agg"))
#: Options srtctl takes out of a mode's mapping and passes itself.
_GIVEN_ANEW = frozenset({"model-path", "served-model-name", "nccl-port"})
#: The port srtctl gives a multi-node worker's distributed start-up on its first node.
_DIST_PORT = 29500


def looks_like_recipe(text: str) -> bool:
    """Whether ``text`` may be a recipe: it names an ``sglang_config`` and a ``backend``, or
    (the 2.0 layout) an ``engine`` and its ``roles``."""
    return ("sglang_config" in text and "backend" in text) or (
        "engine:" in text and "roles:" in text)


def as_script(text: str) -> str | None:
    """The script a recipe's SGLang workers amount to (see the module), or None when
    ``text`` is no recipe of an SGLang backend with at least one worker mode."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if isinstance(data, dict) and isinstance(data.get("roles"), dict):
        check_expansion(data, "the pasted recipe")
        data = _as_backend(data)
    if not isinstance(data, dict) or not isinstance(data.get("backend"), dict):
        return None
    check_expansion(data, "the pasted recipe")
    backend = data["backend"]
    config = backend.get("sglang_config")
    if str(backend.get("type", "sglang")) != "sglang" or not isinstance(config, dict):
        return None
    modes = [(mode, gpus) for mode, gpus in _MODES if isinstance(config.get(mode), dict)]
    if not modes:
        return None
    frontend = data.get("frontend")
    own = isinstance(frontend, dict) and frontend.get("type") == "sglang"
    module = "sglang.launch_server" if own else "dynamo.sglang"
    resources = data.get("resources") if isinstance(data.get("resources"), dict) else {}
    lines = []
    for mode, gpus_key in modes:
        env = backend.get(f"{mode}_environment")
        assigned = [f"{name}={_text(value)}" for name, value in env.items()] \
            if isinstance(env, dict) else []
        words = ["python3", "-m", module, "--model-path", "/model",
                 "--served-model-name", _served_name(config, data), "--host", "0.0.0.0"]
        if mode != "aggregated":
            words += ["--disaggregation-mode", mode]
        nodes = _nodes(resources.get(gpus_key), resources.get("gpus_per_node"))
        if nodes > 1:
            words += ["--dist-init-addr", f"leader:{_DIST_PORT}", "--nnodes", str(nodes),
                      "--node-rank", "0"]
        words += _options(config[mode])
        lines.append(" ".join(shlex.quote(word) for word in [*assigned, *words]))
    return "\n".join(lines) + "\n"


#: A 2.0 role's name -> the worker mode of the older layout it is.
_ROLES = {"prefill": "prefill", "decode": "decode", "agg": "aggregated",
          "aggregated": "aggregated"}


def _as_backend(data: dict[Any, Any]) -> dict[Any, Any] | None:
    """A 2.0 recipe written as the older layout (``backend``, its ``sglang_config`` and
    ``<mode>_environment``, ``resources.gpus_per_<mode>``); None unless its engine is
    SGLang."""
    engine = data.get("engine")
    kind = engine.get("type") if isinstance(engine, dict) else engine
    if str(kind) != "sglang":
        return None
    config: dict[str, Any] = {}
    backend: dict[str, Any] = {"type": "sglang", "sglang_config": config}
    resources = dict(data["resources"]) if isinstance(data.get("resources"), dict) else {}
    for role, spec in data["roles"].items():
        mode = _ROLES.get(str(role))
        if mode is None or not isinstance(spec, dict):
            continue
        config[mode] = spec.get("args") if isinstance(spec.get("args"), dict) else {}
        if isinstance(spec.get("env"), dict):
            backend[f"{mode}_environment"] = spec["env"]
        gpus_key = dict(_MODES)[mode]
        if isinstance(spec.get("gpus"), int):
            resources[gpus_key] = spec["gpus"]
    return {**data, "backend": backend, "resources": resources}


def _served_name(config: dict[Any, Any], data: dict[Any, Any]) -> str:
    """The served name srtctl gives every worker: the first the prefill's or the aggregated
    mode's options set, else the last part of the model's path."""
    for mode in ("prefill", "aggregated"):
        options = config.get(mode)
        if isinstance(options, dict):
            for key in ("served-model-name", "served_model_name"):
                if options.get(key):
                    return _text(options[key])
    model = data.get("model")
    path = _text(model.get("path")) if isinstance(model, dict) and model.get("path") else "model"
    return path.rstrip("/").rsplit("/", 1)[-1]


def _nodes(gpus: Any, per_node: Any) -> int:
    """How many nodes a worker of ``gpus`` GPUs spans at ``per_node`` a node (1 unless both
    are whole numbers and the worker needs more than one node)."""
    if not (isinstance(gpus, int) and isinstance(per_node, int) and per_node > 0):
        return 1
    return max(1, -(-gpus // per_node))


def _options(options: dict[Any, Any]) -> list[str]:
    """A mode's mapping as the options srtctl passes (see the module)."""
    words: list[str] = []
    for key in sorted(options, key=str):
        value = options[key]
        if str(key).replace("_", "-") in _GIVEN_ANEW:
            continue  # srtctl passes its own (the served name once, before the options)
        flag = "--" + str(key).replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            words.append(flag)
        elif isinstance(value, list):
            words += [flag, *(str(item) for item in value)]
        else:
            words += [flag, str(value)]
    return words


def _text(value: Any) -> str:
    """A YAML scalar as the text it passes on the command line or in the environment."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
