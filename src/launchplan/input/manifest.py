"""Launches written in deployment manifests rather than shell lines.

Operators paste the container spec that runs SGLang as often as a shell line: a Kubernetes
pod, Deployment or LeaderWorkerSet template (``command:`` and ``args:`` lists, ``env:``
entries), a Docker Compose service (``entrypoint:``/``command:`` as a list or a string,
``environment:``), a bare exec-form array (``["python3", "-m", "sglang.launch_server",
...]``), a Dockerfile's ``CMD [...]``, a task whose ``commands``/``run`` is a shell script
(dstack, SkyPilot, a CI workflow's steps with the workflow's and job's ``env``), an Ansible
``docker_container`` task (its ``env`` a mapping) or a Vast.ai template whose image launches
from its variables. This module finds the launches in such a text: each container whose
words start SGLang's launcher (a RoleBasedGroup's prefill and decode roles are two), its
words from the launcher on, and the environment the manifest gives it.

Kubernetes expands ``$(NAME)`` in ``command``/``args`` from the container's own ``env``
entries with literal values; that is done here too, with the variables a LeaderWorkerSet
sets that its manifest fixes (``LWS_GROUP_SIZE``; ``LWS_WORKER_INDEX`` 0 in the leader's
template; a RoleBasedGroup role run as a LeaderWorkerSet, its ``leaderWorkerSet`` size and
``patchLeaderTemplate``, sets them alike), and their RoleBasedGroup spellings for a
``leaderWorkerPattern`` role (``RBG_LWP_GROUP_SIZE``; ``RBG_LWP_WORKER_INDEX`` 0, the
leader's). A SkyPilot or dstack task's script gets the variables those platforms set from
the task's resources likewise (``task_variables``), and a RoleBasedGroup role that uses a
shared template runs that template with its patch merged in (``role_templates``). A
reference the manifest cannot resolve (a worker's index, a ``valueFrom`` secret) stays as
written, so the flag that holds it is reported with the text it got. The
GPUs the launching container requests are read too (``gpus_requested``): the container
sees those, not the node's.

An operator's resource that keeps the launcher's command and its flags apart is read as the
operator joins them (llmaz's ``BackendRuntime``: ``spec.command`` and a preset's ``args``,
``_runtimes_joined``), and a recipe whose command is a template of its own values is filled
(``recipe_templates``). A bare launcher whose flags sit in a list of the same document that
no shape here joins to it is refused, naming that list (``_refuse_flags_apart``): planning
the bare command would drop them without a word.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from launchplan.errors import InputError
from launchplan.input import EXPECTED_LAUNCH
from launchplan.input.launcher_configs import launcher_config
from launchplan.input.launcher_configs import scalar_text as _text
from launchplan.input.yaml_bound import check_expansion

#: A line that only a YAML manifest writes (a key that holds a container's command or env, a
#: task's environment: SkyPilot's ``envs``).
_MANIFEST_KEY = re.compile(r"^\s*(?:-\s+)?(?:command|args|entrypoint|env|environment|"
                           r"containers|spec|services|image|commands|cmds|envs|tasks|"
                           r"ansible\.(?:builtin|legacy)\.(?:shell|command)|"
                           r"[A-Za-z]+[_-]?(?:command|Command|cmd|Cmd))\s*:", re.MULTILINE)
#: A key ``_COMMAND_KEY`` names whose value is a YAML block (``cmd: >-`` and the lines under
#: it): a document, even without the keys above (prose saying ``cmd:`` holds no block).
_BLOCK_COMMAND_KEY = re.compile(r"^\s*(?:-\s+)?_?(?:[A-Za-z]+[_-]?)?(?:command|cmd)"
                                r"(?:[_-]?line)?\s*:[ \t]*[>|][-+]?[ \t]*$",
                                re.MULTILINE | re.IGNORECASE)
#: A SkyPilot task's top-level keys: its ``run`` script, and the resources it runs on.
_SKYPILOT_RUN = re.compile(r"^run[ \t]*:", re.MULTILINE)
_SKYPILOT_RESOURCES = re.compile(r"^(?:resources|num_nodes)[ \t]*:", re.MULTILINE)
#: A GitHub Actions (Gitea, Forgejo) workflow: top-level ``jobs``, a job's ``runs-on``.
_WORKFLOW_JOBS = re.compile(r"^jobs[ \t]*:[ \t]*$", re.MULTILINE)
_WORKFLOW_RUNNER = re.compile(r"^[ \t]+runs-on[ \t]*:", re.MULTILINE)
#: (one whose steps start SGLang: a workflow that only benchmarks or tests is no launch)
_WORKFLOW_LAUNCH = re.compile(r"sglang\.launch_server|\bsglang\s+serve\b")
#: A Dockerfile instruction in exec form.
_DOCKERFILE = re.compile(r"^\s*(?:CMD|ENTRYPOINT|RUN)\s+(\[.*\])\s*$", re.DOTALL)
#: A JSON key that only a container spec writes (not a mapping of SGLang's flags).
_JSON_CONTAINER_KEY = re.compile(r'"(?:command|args|entrypoint|containers|containerDefinitions|'
                                 r'image|Image|Cmd|Entrypoint)"\s*:')
#: Comment and blank lines at the top of a text.
_LEADING_COMMENTS = re.compile(r"^(?:[ \t]*(?:#[^\n]*)?\n)+")
#: Kubernetes' dependent-variable reference in ``command``/``args``.
_REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: A value a tool renders before the container starts (Jinja's ``{{ ... }}``, Ansible's and
#: Helm's): what it becomes is the tool's business, not the text's.
_TEMPLATED = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")


def looks_like_manifest(text: str) -> bool:
    """Whether ``text`` is a manifest or an exec-form array rather than a shell line. A
    shell script that writes a manifest in a here-document (``cat > compose.yml << EOF``)
    is a script: the document's lines are a file's, not the paste's."""
    stripped = text.strip()
    if "<<" in stripped:
        from launchplan.input.heredoc import split_off

        stripped = split_off(stripped)[0].strip()
    if "sglang" not in stripped:  # a flag's value (a JSON list, say), not a launch
        return False
    if stripped.startswith("[") and stripped.endswith("]"):
        return True
    body = _LEADING_COMMENTS.sub("", stripped)  # a page's heading left over: YAML's comment
    if body.startswith("{") and body.endswith("}"):
        # a JSON document (an ECS task definition, a Kubernetes object written as JSON):
        # YAML reads it too; a shell brace group or a Python dict piece does not load
        loaded = _json_with_comments(body)
        if isinstance(loaded, dict):
            return bool(_JSON_CONTAINER_KEY.search(body))
    if _SKYPILOT_RUN.search(stripped) and _SKYPILOT_RESOURCES.search(stripped):
        return True  # read as YAML, so the variables its resources fix are known
    if _WORKFLOW_JOBS.search(stripped) and _WORKFLOW_RUNNER.search(stripped) \
            and _WORKFLOW_LAUNCH.search(stripped):
        return True  # a CI workflow: its steps' scripts run with what Actions fills in
    if _program_kind(body) == "Python":
        return False  # its ``key: value`` lines are a string's: a template it fills in
    return bool(_DOCKERFILE.match(stripped) or _MANIFEST_KEY.search(stripped)
                or _BLOCK_COMMAND_KEY.search(stripped))


def launch_in(text: str, launch: int | None = None, notes: list[str] | None = None
              ) -> tuple[list[str], list[str]]:
    """(words, env assignments) of the ``launch``-th launch (from 1; the first by default)
    in the manifest ``text``: a RoleBasedGroup's prefill and decode roles, or a file of
    several Deployments, each start one.

    ``words`` are the container's words as a shell would hand them over: exec-form items
    as they are, a string (Compose's shell form, ``sh -c "..."``) left whole for the
    pasted-line reader to split. How the words were put together, where the manifest does
    not say it plainly (an operator's preset joined to its command, a recipe's template
    filled), goes into ``notes``. Raises ``InputError`` for text that is not YAML or JSON,
    or that starts no SGLang launcher.
    """
    words, env, _, note = _chosen(text, launch)
    if note and notes is not None:
        notes.append(note)
    return list(words), list(env)


def launch_total(text: str) -> int:
    """How many containers of the manifest ``text`` start SGLang's launcher."""
    try:
        return len(_launching(text))
    except InputError:
        return 0


def gpus_requested(text: str, launch: int | None = None) -> int | None:
    """The GPUs the launching container asks for, when the manifest says: a Kubernetes
    ``resources`` limit (or request) of an ``<vendor>/gpu`` resource, or a Compose device
    reservation's (or ``gpus:`` request's) ``count`` or ``device_ids``. The container sees
    only those, whatever the node holds."""
    _, _, node, _ = _chosen(text, launch)
    if not isinstance(node, dict):
        return None
    resources = node.get("resources")
    if isinstance(resources, dict):
        for kind in ("limits", "requests"):
            amounts = resources.get(kind)
            if isinstance(amounts, dict):
                for name, amount in amounts.items():
                    count = _count(amount)
                    if str(name).endswith("/gpu") and count is not None:
                        return count
    deploy = node.get("deploy")
    reservations = _dig(deploy, "resources", "reservations", "devices")
    requests = node.get("gpus")  # Compose's own ``gpus:`` (``all``, or device requests)
    # Docker's device requests as Ansible's docker_container spells them (``count: -1`` is
    # every GPU, as ``--gpus all``)
    docker = node.get("device_requests")
    inspected = _dig(node, "HostConfig", "DeviceRequests")  # ``docker inspect``'s spelling
    if isinstance(inspected, list):
        inspected = [{key.lower().replace("deviceids", "device_ids"): value
                      for key, value in device.items()} if isinstance(device, dict) else device
                     for device in inspected]
    for device in [*(reservations if isinstance(reservations, list) else []),
                   *(requests if isinstance(requests, list) else []),
                   *(docker if isinstance(docker, list) else []),
                   *(inspected if isinstance(inspected, list) else [])]:
        if not isinstance(device, dict) or (
                "capabilities" in device and "gpu" not in _flat(device["capabilities"])):
            continue
        ids = device.get("device_ids")
        count = len(ids) if isinstance(ids, list) and ids else _count(device.get("count"))
        if count is not None:
            return count
    return None


def _flat(value: Any) -> list[Any]:
    """A list's items with nested lists opened: Docker's capabilities are a list of sets
    (``[['gpu', 'nvidia']]``), Compose writes them flat (``[gpu]``)."""
    if not isinstance(value, list):
        return []
    return [leaf for item in value for leaf in (_flat(item) if isinstance(item, list)
                                                else [item])]


def _count(value: Any) -> int | None:
    """A positive whole number of devices (YAML gives ``8`` or ``"8"``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and value > 0 else None


def _dig(node: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


#: One launch of a manifest: its words, its env assignments, the node that holds it, and a
#: note on how its words were put together (None when the manifest says it plainly).
_Launch = tuple[tuple[str, ...], tuple[str, ...], Any, str | None]


def _chosen(text: str, launch: int | None) -> _Launch:
    found = _launching(text)
    return found[min(max(launch or 1, 1), len(found)) - 1]


@lru_cache(maxsize=4)  # a pasted manifest is read for its launches and its GPU request
def _launching(text: str) -> tuple[_Launch, ...]:
    """Every launching container of the manifest, in document order (at least one)."""
    from launchplan.input.pasted import launches_sglang

    # a block indented as a whole (a fence inside a list item or a page's tab, its lines
    # kept at the fence's indent) is the same YAML without that indent
    from launchplan.input.role_templates import with_role_templates

    elided: list[int] = []
    documents, joined = _runtimes_joined(_config_maps_read(
        with_role_templates(_documents(textwrap.dedent(text).strip(), elided))))
    try:
        containers = list(map(_with_entrypoint, _containers(documents, None, set())))
    except RecursionError:
        raise InputError("the pasted manifest", "a manifest nested less deeply",
                         "more levels than a container spec has") from None
    found = tuple((tuple(words), tuple(env), node,
                   _with_elision(joined.get(id(node)) or _recipe_note(node), elided))
                  for words, env, node in containers if launches_sglang(words))
    if found:
        _refuse_flags_apart(documents, found)
    if not found:
        if not containers:  # no container at all: a chart's values, not a manifest
            from launchplan.input.pasted import refuse_values_mapping

            refuse_values_mapping(text)
        runs = [p for doc in documents for p in container_programs(doc)]
        shown = ", ".join(runs[:3]) + (", …" if len(runs) > 3 else "")
        raise InputError("the pasted manifest", "a container whose command or args start "
                         "SGLang's launcher (python -m sglang.launch_server, sglang serve)",
                         "none that does" + (f": its containers run {shown}" if shown else ""))
    return found


def _with_elision(note: str | None, elided: list[int]) -> str | None:
    """``note`` with a word on the elision lines the manifest was read without."""
    if not elided:
        return note
    shown = ", ".join(map(str, elided[:3])) + (", …" if len(elided) > 3 else "")
    said = (f"the pasted manifest abridges part of itself (elision lines at line"
            f"{'s' if len(elided) > 1 else ''} {shown}): "
            "read without them; what they leave out is not planned")
    return f"{said}; {note}" if note else said


def _config_maps_read(documents: list[Any]) -> list[Any]:
    """``documents`` with each container's variables from a ConfigMap pasted with them
    spelled out (``envFrom: [{configMapRef: {name: M}}]``, ``valueFrom: {configMapKeyRef:
    {name: M, key: K}}``), as Kubernetes sets them when both are applied together: the
    map's entries first, the container's own ``env`` over them. A map the paste lacks
    leaves its variables unset."""
    maps: dict[str, dict[str, str]] = {}
    for doc in documents:
        if isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and isinstance(
                doc.get("data"), dict) and isinstance(doc.get("metadata"), dict):
            maps[str(doc["metadata"].get("name"))] = {
                str(k): _text(v) for k, v in doc["data"].items() if v is not None}
    if not maps:
        return documents
    return [_filled_from(doc, maps, 0) for doc in documents]


def _filled_from(node: Any, maps: dict[str, dict[str, str]], depth: int) -> Any:
    if depth > 40:
        return node
    if isinstance(node, list):
        return [_filled_from(item, maps, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _filled_from(v, maps, depth + 1) for k, v in node.items()}
    sources, env = node.get("envFrom"), node.get("env")
    if not isinstance(sources, list) and not isinstance(env, list):
        return out
    entries: list[Any] = []
    for source in sources if isinstance(sources, list) else ():
        ref = source.get("configMapRef") if isinstance(source, dict) else None
        data = maps.get(str(ref.get("name"))) if isinstance(ref, dict) else None
        prefix = str(source.get("prefix") or "")
        entries.extend({"name": prefix + k, "value": v} for k, v in (data or {}).items())
    for entry in env if isinstance(env, list) else ():
        ref = entry.get("valueFrom", {}).get("configMapKeyRef") \
            if isinstance(entry, dict) and isinstance(entry.get("valueFrom"), dict) else None
        if isinstance(ref, dict) and str(ref.get("key")) in maps.get(str(ref.get("name")), {}):
            entry = {"name": entry.get("name"),
                     "value": maps[str(ref.get("name"))][str(ref.get("key"))]}
        entries.append(entry)
    out["env"] = entries
    return out


def _recipe_filled(node: dict[Any, Any]) -> dict[Any, Any]:
    """``node`` with its command template filled from its own values when it is a recipe
    (``recipe_templates``); any other mapping as it is (one lookup for most)."""
    if "command" not in node:
        return node
    from launchplan.input import recipe_templates

    return recipe_templates.filled_recipe(node)[0] if recipe_templates.is_recipe(node) \
        else node


def _recipe_note(node: Any) -> str | None:
    if not isinstance(node, dict) or "command" not in node:
        return None
    from launchplan.input import recipe_templates

    return recipe_templates.recipe_note(node) if recipe_templates.is_recipe(node) else None


#: llmaz's preset llmaz picks when the Playground names none and claims no draft model (and
#: the one it picks for a draft model). Source: InftyAI/llmaz, pkg/controller_helper/
#: helper.go (``RecommendedConfigName``, ``DetectArgFrom``).
_LLMAZ_DEFAULT = "default"
_LLMAZ_DRAFT = "speculative-decoding"
_NAMED_PRESET = "the one the pasted Playground names"


def _runtimes_joined(documents: list[Any]) -> tuple[list[Any], dict[int, str]]:
    """``documents`` with each llmaz ``BackendRuntime`` written as the container llmaz
    builds from it, and a note for each such container (by its id).

    llmaz (InftyAI/llmaz, api/inference/v1alpha1/backendruntime_types.go) keeps the
    launcher in ``spec.command`` and its flags in presets, ``spec.recommendedConfigs[]``
    (``name``, ``args``); before v0.1.1 in ``spec.commands`` and ``spec.args[]`` (``name``,
    ``flags``). It runs the command with one preset's arguments: the one a Playground names
    (``backendRuntimeConfig.configName``), else ``default`` (``speculative-decoding`` for a
    Playground claiming a draft model), the Playground's own ``args`` after them. A
    Playground pasted with the runtime is read for that choice."""
    runtimes = [(at, shape) for at, doc in enumerate(documents)
                if (shape := _runtime_shape(doc)) is not None]
    if not runtimes:
        return documents, {}
    playgrounds = [doc["spec"] for doc in documents if isinstance(doc, dict)
                   and doc.get("kind") == "Playground" and isinstance(doc.get("spec"), dict)]
    out, notes = list(documents), {}
    for at, (spec, command, presets, where) in runtimes:
        doc = documents[at]
        meta = doc.get("metadata") if isinstance(doc, dict) else None
        runtime = str(meta.get("name")) if isinstance(meta, dict) and "name" in meta else None
        name, extra, chooser = _llmaz_preset(playgrounds, runtime)
        # the first presets were ``mode: Default`` / ``SpeculativeDecoding``, the same ones
        chosen = next((args for preset, args in presets
                       if preset.replace("-", "").lower() == name.replace("-", "").lower()),
                      None)
        if chosen is None:
            names = ", ".join(repr(preset) for preset, _ in presets) or "none"
            remedy = ("llmaz refuses that Playground too: name one of those"
                      if chooser == _NAMED_PRESET else
                      "paste the Playground that names the one it runs")
            raise InputError(f"the pasted BackendRuntime's {where}", "", message=(
                f"the pasted BackendRuntime's {where}: expected an entry named {name!r}, "
                f"whose arguments llmaz appends to the runtime's command ({chooser}), got "
                f"only {names} ({remedy}, or paste the container spec llmaz renders: "
                "kubectl get pod -o yaml)"))
        envs = spec.get("envs")
        container = {"command": command, "args": [*chosen, *extra]}
        if isinstance(envs, list):
            container["env"] = envs
        if isinstance(spec.get("image"), str):
            container["image"] = spec["image"]
        joined = {**doc, "spec": container} if spec is not doc else container
        out[at] = joined
        notes[id(container)] = (
            f"the pasted BackendRuntime is read as llmaz runs it: its command with the "
            f"arguments of its {where} entry {name!r} ({chooser})"
            + (", then the Playground's own args" if extra else "")
            + ("; llmaz fills each {{ .Name }} in them from the Playground's model"
               if any("{{" in arg for arg in container["args"]) else ""))
    return out, notes


def _runtime_shape(doc: Any) -> tuple[dict[Any, Any], list[str], list[tuple[str, list[str]]],
                                      str] | None:
    """(spec, command, presets as (name, arguments), the presets' key) of an llmaz
    ``BackendRuntime`` (its document, or its spec pasted alone); None for anything else."""
    if not isinstance(doc, dict) or doc.get("kind") not in (None, "BackendRuntime"):
        return None
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else doc
    command, presets = spec.get("command"), spec.get("recommendedConfigs")
    where, key = "spec.recommendedConfigs", "args"
    if not (isinstance(command, list) and isinstance(presets, list)):
        command, presets = spec.get("commands"), spec.get("args")
        where, key = "spec.args", "flags"
        if not (isinstance(command, list) and isinstance(presets, list) and presets
                and all(isinstance(p, dict) and "flags" in p for p in presets)):
            return None
    if spec is doc:
        where = where.removeprefix("spec.")
    return spec, _as_words(command), [
        (str(p.get("name", p.get("mode", _LLMAZ_DEFAULT))), _as_words(p.get(key)))
        for p in presets if isinstance(p, dict)], where


def _llmaz_preset(playgrounds: list[dict[Any, Any]], runtime: str | None
                  ) -> tuple[str, list[str], str]:
    """(the preset llmaz runs, the Playground's own args, why that preset) for the runtime
    named ``runtime``, from the pasted Playground that uses it (a Playground's backend is
    ``vllm`` unless it names one)."""
    for spec in playgrounds:
        config = spec.get("backendRuntimeConfig")
        config = config if isinstance(config, dict) else {}
        backend = str(config.get("backendName", config.get("name", "vllm")))
        if runtime is not None and backend != runtime:
            continue
        name, args = config.get("configName"), config.get("args")
        if isinstance(args, dict):  # before v0.1.1: a preset of its own, {name, flags}
            name, args = name or args.get("name"), args.get("flags")
        extra = _as_words(args) if isinstance(args, list) else []
        if name is not None:
            return str(name), extra, _NAMED_PRESET
        claims = _dig(spec, "modelClaims", "models")
        if isinstance(claims, list) and any(
                isinstance(c, dict) and c.get("role") == "draft" for c in claims):
            return _LLMAZ_DRAFT, extra, "the one llmaz picks for a Playground with a draft model"
        return _LLMAZ_DEFAULT, extra, "the one llmaz picks when the Playground names none"
    return _LLMAZ_DEFAULT, [], "the one llmaz picks unless a Playground names another"


def _refuse_flags_apart(documents: list[Any], found: tuple[_Launch, ...]) -> None:
    """Refuse a launch whose words are the launcher alone while the same document holds
    SGLang's flags in a list no shape here joins to it (an operator's own field for the
    engine's arguments): planning the bare command would drop those flags silently. The
    one line names the list's key. Only a bare launch is looked at, so a plain manifest
    costs one pass over its launches' words."""
    bare = [node for words, _, node, _ in found
            if isinstance(node, dict) and not any(w.startswith("--") for w in words)]
    for node in bare:
        own = {id(node.get(key)) for key in _WORD_KEYS if key in node}
        for doc in documents:
            if not _holds(doc, node, 0):
                continue
            place = _flag_list(doc, own, "", 0)
            if place is None:
                continue
            where, flags = place
            launcher = " ".join(w for w in next(
                words for words, _, n, _ in found if n is node))
            raise InputError(where, "", message=(
                f"the pasted manifest: its launch is {launcher} with no flag, and SGLang's "
                f"flags ({', '.join(flags[:3])}{', …' if len(flags) > 3 else ''}) stand in "
                f"{where}, which launchplan does not join to that command: paste the "
                "command with its flags, or the container spec the operator renders "
                "(kubectl get pod -o yaml)"))


def _holds(node: Any, wanted: Any, depth: int) -> bool:
    """Whether ``wanted`` is ``node`` or inside it."""
    if node is wanted:
        return True
    if depth > 40:
        return False
    items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    return any(_holds(item, wanted, depth + 1) for item in items
               if isinstance(item, (dict, list)))


def _flag_list(node: Any, own: set[int], path: str, depth: int
               ) -> tuple[str, list[str]] | None:
    """(key path, SGLang flags) of the first list of strings under ``node`` (outside the
    launch's own lists, ``own``) that holds one of SGLang's flags; None when none does."""
    if depth > 40 or id(node) in own:
        return None
    if isinstance(node, list) and node and all(
            isinstance(item, (str, int, float)) for item in node):
        flags = _sglang_flags([_text(item) for item in node])
        return (path or "the document", flags) if flags else None
    if isinstance(node, dict):
        items = ((f"{path}.{key}" if path else str(key), value) for key, value in node.items())
    elif isinstance(node, list):
        items = ((f"{path}[{at}]", value) for at, value in enumerate(node))
    else:
        return None
    for where, value in items:
        if isinstance(value, str) and value.lstrip().startswith("--"):
            flags = _sglang_flags(value.split())  # one string of flags (``extraArgs``)
            if flags:
                return where, flags
        elif isinstance(value, (dict, list)):
            found = _flag_list(value, own, where, depth + 1)
            if found is not None:
                return found
    return None


def _sglang_flags(words: list[str]) -> list[str]:
    """The words that name one of SGLang's flags (argparse takes a unique prefix too:
    ``--tp``)."""
    from launchplan.input.fields import release_table

    table = release_table().flag_to_field
    named = [w.partition("=")[0] for w in words if w.startswith("--") and len(w) > 3]
    return [f for f in named if f in table or any(known.startswith(f) for known in table)]


def container_programs(data: Any) -> list[str]:
    """What the containers of a loaded manifest (``data``: one document) run, each named
    once (``_program``): for the message about a manifest that starts no SGLang launch."""
    try:
        containers = list(map(_with_entrypoint, _containers([data], None, set())))
    except (RecursionError, InputError):
        return []
    return list(dict.fromkeys(p for words, _, _ in containers if (p := _program(words))))


def _program(words: list[str]) -> str:
    """What a container's command runs, named as a reader knows it: ``python3 -m
    dynamo.sglang``, ``vllm serve``, a shell's script by its first words."""
    words = [w for w in words if w != "exec"]
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("bash", "sh") \
            and words[1].startswith("-") and words[1].endswith("c"):
        words = _main_command(words[2])
    words = _server_words(words)
    shown: list[str] = []
    for word in words[:4]:
        if word.startswith("-") and word not in ("-m", "-c"):
            break
        shown.append(word if len(word) <= 40 else word[:39] + "…")
    return " ".join(shown)


#: What separates a shell script's commands: ``&&``, ``||``, ``;``, a pipe, a line end.
_COMMAND_BREAK = re.compile(r"&&|\|\||[;|\n]")
#: A command that starts a server: a Python module (``python3 -m dynamo.sglang``), a console
#: script's ``serve`` (``vllm serve``).
_SERVER_COMMAND = re.compile(r"(?:^|\s)(?:python[\w.]*\s+(?:-\w+\s+)*-m\s+\S|\S+\s+serve\b)")


def _main_command(script: str) -> list[str]:
    """The words of the command a container's shell script runs its server with: ``ulimit
    -l unlimited && python3 -m dynamo.sglang ...`` runs Dynamo's worker, not ``ulimit``
    (nor the variables set before it); the script's first command when none starts one."""
    commands = [part.replace("\\", " ").split() for part in
                _COMMAND_BREAK.split(script.replace("\\\n", " "))]
    commands = [[w for w in c if not _ENV_NAME.match(w.partition("=")[0]) or "=" not in w]
                or c for c in commands if c]
    server = next((c for c in commands if _SERVER_COMMAND.search(" ".join(c))), None)
    return (server or (commands[0] if commands else []))[:4]


def _server_words(words: list[str]) -> list[str]:
    """``words`` from the server they start (``python3 -m dynamo.sglang``, ``vllm serve``),
    past the variables set for it and a preparing command before it (``ulimit -l
    unlimited``, ``cd /srv``); from the first command's program when none starts one."""
    lead = 0
    while lead < len(words) and "=" in words[lead] \
            and _ENV_NAME.match(words[lead].partition("=")[0]):
        lead += 1
    for at in range(lead, len(words) - 1):
        program = words[at].rsplit("/", 1)[-1]
        if (program.startswith("python") and words[at + 1] == "-m") or words[at + 1] == "serve":
            return words[at:]
    return words[lead:] or words


def _with_entrypoint(found: tuple[list[str], list[str], Any]
                     ) -> tuple[list[str], list[str], Any]:
    """A container whose image's own entrypoint is SGLang's launcher (``launcher_images``)
    and whose command or args give it only flags: those flags with the launcher before
    them, as the container runs them."""
    words, env, node = found
    image = node.get("image") if isinstance(node, dict) else None
    if isinstance(image, str) and (not words or words[0].startswith("-")):
        from launchplan.input.launcher_images import known_entrypoint

        entry = known_entrypoint(image)
        if entry is not None:
            return [*entry, *words], env, node
    return found


#: A ``//`` comment to the end of its line, or a string (kept whole: ``"http://..."``).
_JSONC_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
#: A comma with only space before the bracket that closes its list or object.
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def _json_with_comments(text: str) -> Any:
    """``text`` loaded as JSON, or as JSON with comments (VS Code's ``launch.json``: ``//``
    and ``/* */`` comments, a comma before a closing bracket); None when it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    if "//" not in text and "/*" not in text and not _TRAILING_COMMA.search(text):
        return None
    plain = _JSONC_TOKEN.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    # a trailing comma outside strings (a string holding ", ]" is rare enough in a config)
    plain = _TRAILING_COMMA.sub(r"\1", plain)
    try:
        return json.loads(plain)
    except ValueError:
        return None


#: A line that is only an ellipsis (``.``, ``...``, ``…``): a page abbreviating a manifest.
_ELISION_LINE = re.compile(r"^[ \t]*(?:\.|\.{3,}|…)[ \t]*$", re.MULTILINE)
_INDENT = re.compile(r"^[ \t]*")


def _documents_unabridged(text: str, elided: list[int]) -> list[Any]:
    """The manifest ``text`` read without its elision lines (their line numbers go into
    ``elided``). Where the text after an elision is indented deeper than a ``key: value``
    line before it, the elided lines held the key that opened that block: a stand-in key
    keeps the block's shape. Bad input, in one line, when the rest does not read either."""
    lines = text.split("\n")
    kept: list[str] = []
    found: list[int] = []
    for number, line in enumerate(lines, 1):
        if not _ELISION_LINE.match(line):
            kept.append(line)
            continue
        found.append(number)
        before = next((k for k in reversed(kept) if k.strip()), None)
        after = next((k for k in lines[number:] if k.strip() and not _ELISION_LINE.match(k)),
                     None)
        if before is None or after is None:
            continue
        indent = len(_INDENT.match(before).group(0))  # type: ignore[union-attr]
        if len(_INDENT.match(after).group(0)) > indent \
                and not before.rstrip().endswith(":") and ":" in before:
            kept.append(" " * indent + f"elided-{number}:")
    try:
        documents = _documents("\n".join(kept))
    except InputError:
        shown = ", ".join(map(str, found[:3])) + (", …" if len(found) > 3 else "")
        raise InputError("the pasted manifest", "a whole manifest",
                         "one abridged by elision lines ('.', '...' or '…' alone, at line"
                         f"{'s' if len(found) > 1 else ''} {shown})",
                         "it does not read without them either: paste the manifest whole"
                         ) from None
    elided.extend(found)
    return documents


def _documents(text: str, elided: list[int] | None = None) -> list[Any]:
    """The YAML/JSON documents of ``text``; with ``elided``, a manifest a page abbreviates
    with elision lines is read without them (their line numbers go there)."""
    literal = _js_data(text)
    if literal is not None:  # ``export const catalog = [{ ..., command: '...' }]``
        text = literal
    docker = _DOCKERFILE.match(text)
    if docker:
        text = docker.group(1)
    if text.startswith("{") and ("//" in text or "/*" in text):
        loaded = _json_with_comments(text)  # YAML takes no comments of this kind
        if isinstance(loaded, dict):
            return [loaded]
    from launchplan.input.interpolation import dotenv_apart, filled_in

    text, dotenv = dotenv_apart(text)  # a Compose file pasted with its ``.env``
    try:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        documents = [doc for doc in yaml.load_all(text, Loader=loader) if doc is not None]
    except RecursionError:
        raise InputError("the pasted manifest", "a manifest nested less deeply",
                         "more levels than a container spec has") from None
    except Exception as exc:  # yaml.YAMLError, or a value YAML cannot build
        if elided is not None and _ELISION_LINE.search(text):
            return _documents_unabridged(text, elided)
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        helm = ("a Helm chart's template ({{ ... }}), not YAML until it is rendered: paste "
                "the output of helm template CHART -f values.yaml") if "{{" in text else None
        compiled = _compiled_language(text)
        if compiled is not None:  # a test or generator holding a Compose file in a string
            raise InputError("the pasted text", "a manifest (YAML, JSON) or a launch command",
                             None, f"it is {compiled} source, not a manifest: the manifest it "
                             "holds in a string is data of the program, which launchplan does "
                             "not read from that language; paste the manifest itself (the "
                             "string's content), or the launch command") from None
        code = _program_code(text)
        if code is not None:  # a program that builds a manifest, which only its run makes
            raise InputError("the pasted text", "a manifest (YAML, JSON) or a launch command",
                             None, f"it is {code} code, not a manifest: launchplan reads a "
                             "launch from it only where it spawns one with an argv array; "
                             "paste the manifest it renders, or the launch command") from None
        _refuse_prose_page(text)
        raise InputError("the pasted manifest", "YAML or a JSON array",
                         f"{problem}{where}", helm) from None
    check_expansion(documents, "the pasted manifest")
    return [filled_in(_matrix_jobs(doc), dotenv) for doc in documents]


#: A command that starts SGLang's server (or its router, or the offline engine).
_ANY_LAUNCHER = re.compile(r"sglang(?:_router)?\.launch_server|\bsglang[ \t]+serve\b"
                           r"|\bEngine\s*\(")
#: A sentence of a page's prose: a line at the margin, three words or more of letters, that
#: is no YAML key (``name: x``), list item, comment or flow collection.
_PROSE_LINE = re.compile(r"^(?![-#{\[\s]|[\w.\"'-]+[ \t]*:(?:[ \t]|$))[^\n:]*?[A-Za-z]{2,}"
                         r"(?:[ \t]+[^\s]+){2,}[ \t]*$", re.MULTILINE)


def _refuse_prose_page(text: str) -> None:
    """Refuse, as a text that starts no launch, a page copied from a rendered web page
    (headings, sentences, YAML snippets of another tool's deployment config, the fences
    gone) that no line of starts SGLang's server: the YAML parser's complaint about a
    sentence at some line and column says nothing the reader can act on. A text that does
    hold a launch command is left to the YAML error (a manifest that fails to load)."""
    found = None if "{{" in text or _ANY_LAUNCHER.search(text) else _PROSE_LINE.search(text)
    if found is None:
        return
    sentence = found.group(0).strip()
    shown = sentence if len(sentence) <= 60 else sentence[:57] + "…"
    expected = EXPECTED_LAUNCH
    raise InputError("the pasted text", expected, message=(
        f"the pasted text: expected {expected}, got none: it is a page of prose "
        f"({shown!r}) with YAML snippets, and none of its lines starts SGLang's server "
        "(another tool's deployment config starts it itself: paste the command that tool "
        "runs)"))


#: lines that start JavaScript/TypeScript statements (a Pulumi or CDK8s program, a Node
#: script), which YAML cannot be
_PROGRAM_LINE = re.compile(r"^\s*(?:(?:export\s+)?(?:const|let|var|function|class|import)\s"
                           r"|new\s+[\w.]+\(|\}\);?\s*$)", re.MULTILINE)
#: A JavaScript/TypeScript module's first statement: an import, an export, a declaration
#: (``export const catalog = [``, ``const t: Template = {``; a shell's ``let x=1`` and
#: ``function f {`` are not taken for one).
_JS_HEAD = re.compile(r"(?:import[ \t]+(?:[\w$*{][^\n]*[ \t]from[ \t]|['\"])|export[ \t]+"
                      r"(?:default|const|let|var|function|class|async|interface|type|enum)\b|"
                      r"(?:const|let|var)[ \t]+[\w$]+(?:[ \t]*:[^=\n]+)?[ \t]+=|"
                      r"module\.exports\b|['\"]use strict['\"])")
#: A Python statement at the margin: an import, a ``def``, a ``class``, the main guard.
_PYTHON_LINE = re.compile(r"^(?:from[ \t]+[\w.]+[ \t]+import[ \t]|import[ \t]+[\w.]+"
                          r"(?:[ \t]+as[ \t]+\w+)?[ \t]*(?:,[ \t]*[\w.]+[ \t]*)*(?:#.*)?$|"
                          r"(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+[ \t]*[(:]|"
                          r"if[ \t]+__name__[ \t]*==)", re.MULTILINE)
#: A Python string literal over lines (a docstring, a template ``\"\"\"services: ...\"\"\"``).
_TRIPLE_QUOTED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')
#: What a program file starts with before its first statement: blank and comment lines (a
#: shebang, ``//``, ``/* ... */``, a JSDoc block's `` * `` lines).
_CODE_PREAMBLE = re.compile(r"^(?:[ \t]*(?:(?:#|//)[^\n]*|/\*[\s\S]*?\*/[^\n]*|\*[^\n]*)?\n)+")


#: A JavaScript/TypeScript module that only binds one literal: ``export const t = [`` ...
#: ``];`` (``export default {``, a type after the name, ``as const``).
_JS_DATA = re.compile(r"^(?:export[ \t]+(?:default[ \t]+)?)?(?:(?:const|let|var)[ \t]+[\w$]+"
                      r"(?:[ \t]*:[^=\n]+)?[ \t]*=[ \t]*)?(?P<literal>[\[{][\s\S]*[\]}])"
                      r"(?:[ \t]+as[ \t]+const)?[ \t]*;?[ \t]*$")


def _js_data(text: str) -> str | None:
    """The literal a JavaScript/TypeScript data module binds (a platform's catalog of
    templates, each ``{ image: '...', command: 'sglang serve ...' }``), as YAML's flow
    syntax reads it (unquoted keys, either quote, trailing commas); None for a module
    that does anything else, or a literal YAML cannot read (a template string, a call)."""
    head = _CODE_PREAMBLE.sub("", text.lstrip("\n") + "\n", count=1).strip()
    if not _JS_HEAD.match(head):
        return None
    # a comment on a line of its own, or after an item (``id: 'x', // the recipe``; one
    # with a quote after it is left, as it may be inside a string)
    found = _JS_DATA.match(re.sub(r"(?:^|[ \t]+)//[^'\"\n]*$", "", head, flags=re.MULTILINE))
    if found is None or "`" in found.group("literal"):
        return None
    literal = found.group("literal")
    import yaml

    try:
        data = yaml.load(literal, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:  # yaml.YAMLError, or a value YAML cannot build: code, not data
        return None
    return literal if isinstance(data, (dict, list)) else None


def _program_kind(text: str) -> str | None:
    """The language of a program ``text`` is (a Python script, a JavaScript or TypeScript
    module), else None. Such a text's ``key: value`` lines are a literal it holds (a
    Compose template in a triple-quoted string that the script fills in, a catalog's
    objects with a ``command: 'sglang serve ...'`` field), not a manifest: a Python file
    has a statement at the margin outside its strings, a module starts with one of its
    statements, which no YAML document does."""
    if ("import" in text or "def " in text or "class " in text or "__main__" in text) \
            and _PYTHON_LINE.search(_TRIPLE_QUOTED.sub('""', text)):
        return "Python"
    head = _CODE_PREAMBLE.sub("", text.lstrip("\n") + "\n", count=1).lstrip()
    return "JavaScript or TypeScript" if _JS_HEAD.match(head) else None


#: Lines at a program's margin that only one language writes so: a marker of it.
_COMPILED_MARKERS = (
    ("Rust", re.compile(r'\br#+(?:"|$)|^\s*(?:pub\s+)?fn\s+\w+\s*\(|^\s*use\s+\w+::'
                        r"|^\s*let\s+mut\s|\b(?:println|format|vec)!\s*[(\[]", re.MULTILINE)),
    ("Go", re.compile(r"^package\s+\w+\s*$|^func\s|^import\s+\($|^\s*\w+\s*:=\s", re.MULTILINE)),
    ("Swift", re.compile(r"^\s*(?:@Suite|@Test|import\s+(?:Foundation|Testing|XCTest|SwiftUI)\b)"
                         r'|^\s*(?:(?:private|fileprivate|public|static)\s+)*(?:let|var)\s+\w+'
                         r'(?:\s*:\s*[\w.\[\]?]+)?\s*=\s*"""', re.MULTILINE)),
    ("Kotlin", re.compile(r'^\s*(?:fun\s+\w+\s*\(|val\s+\w+\s*=\s*"""|package\s+[\w.]+$)',
                          re.MULTILINE)),
    ("Java or C#", re.compile(r"^\s*(?:(?:public|private|protected|internal)\s+)+(?:static\s+)?"
                              r"(?:final\s+)?(?:class|record|void|string|String)\b"
                              r"|^using\s+System\b", re.MULTILINE)),
)


def _compiled_language(text: str) -> str | None:
    """The language (Rust, Go, Swift, Kotlin, Java or C#) of source that failed to load as a
    manifest, by a line only that language writes (``package main``, ``let x = r#"``,
    ``private let compose = \"\"\"``); None for any other text. Such source holds its
    Compose file as a string literal, which YAML then stumbles over at the code around it."""
    for language, marker in _COMPILED_MARKERS:
        if marker.search(text):
            return language
    return None


def _program_code(text: str) -> str | None:
    """The language of a program that failed to load as a manifest (``_program_kind``, or
    two statement lines of JavaScript: a Pulumi or CDK8s program with a comment on top)."""
    kind = _program_kind(text)
    if kind is None and len(_PROGRAM_LINE.findall(text)) >= 2:
        kind = "JavaScript or TypeScript"
    return kind


def _containers(node: Any, implicit: dict[str, str] | None, seen: set[int],
                outer: str = "") -> Iterator[tuple[list[str], list[str], Any]]:
    """Every (words, env, node) a manifest holds, in document order: a mapping with command or
    argument keys is a container (or a Compose service); a list of scalars is an exec
    form of its own. ``implicit``: variables the controller sets (LeaderWorkerSet's).
    A node YAML anchors and reuses is walked once (``seen``): aliases can make a short
    text a huge or cyclic tree. ``outer``: the ``export`` lines of the variables a CI
    workflow or job sets for every step under it (``_CI_SCOPES``)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    implicit = implicit or {}
    if isinstance(node, dict) and (inspected := _inspected(node)) is not None:
        # ``docker inspect``'s record of a container: what it runs (``Path`` and ``Args``,
        # the entrypoint and command already joined) and its environment (``Config.Env``);
        # ``Config.Cmd`` is the same command again, the image's part left out
        yield inspected[0], inspected[1], node
        return
    if isinstance(node, dict):
        node = launcher_config(_with_file_vars(node))
        if isinstance(node.get("variables"), dict) or ("tasks" in node and "env" in node):
            # GitLab CI's ``variables`` (a file's or a job's) and a Taskfile's ``env`` reach
            # the scripts under them, the node's own included
            outer += _task_exports({"env": node.get("env") if "tasks" in node else None,
                                    "variables": node.get("variables")})
        words = _words_of(_recipe_filled(node), outer) or _image_launch(node)
        if words:
            yield words, _env_of(node, words, implicit), node
            # its command lists are its own, not exec forms of their own
            seen.update(id(node.get(key)) for key in _WORD_KEYS if key in node)
        for group_key in ("leaderWorkerTemplate", "leaderWorkerSet", "workloadTemplate"):
            group = node.get(group_key)
            if group_key == "workloadTemplate" and not (
                    isinstance(group, dict) and "leaderTemplate" in group):
                continue  # llmaz's Service wraps a LeaderWorkerSet's template in one
            if isinstance(group, dict) and isinstance(group.get("size"), int):
                # LeaderWorkerSet sets the group's size in every pod, index 0 in the
                # leader's (a RoleBasedGroup role whose workload is one: its
                # ``leaderWorkerSet`` mapping, the leader's ``patchLeaderTemplate``)
                implicit = {**implicit, "LWS_GROUP_SIZE": str(group["size"])}
        pattern = node.get("leaderWorkerPattern")
        if isinstance(pattern, dict) and isinstance(pattern.get("size"), int):
            # a RoleBasedGroup's leader-worker role sets the same two in each pod; its
            # template (and patch) is the leader's too, index 0
            implicit = {**implicit, "RBG_LWP_GROUP_SIZE": str(pattern["size"]),
                        "RBG_LWP_WORKER_INDEX": "0"}
        if any(key in node for key in _CI_SCOPES):
            # a workflow's or a job's ``env`` reaches the run scripts of its steps
            outer += _task_exports({"env": node.get("env")})
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("x-"):
                # a Compose extension field: a template services merge in (``<<: *anchor``),
                # which Compose itself never runs
                continue
            if isinstance(value, (dict, list)):
                inner = {**implicit, "LWS_WORKER_INDEX": "0"} if key in _LEADER_KEYS \
                    and "LWS_GROUP_SIZE" in implicit else implicit
                if key == "workerTemplatePatch":  # a worker's own words: not index 0
                    inner = {k: v for k, v in inner.items() if k != "RBG_LWP_WORKER_INDEX"}
                yield from _containers(value, inner, seen, outer)
    elif isinstance(node, list):
        if node and all(isinstance(item, (str, int, float)) for item in node):
            yield [_text(item) for item in node], [], None
            return
        for item in node:
            yield from _containers(item, implicit, seen, outer)


def _inspected(node: dict[Any, Any]) -> tuple[list[str], list[str]] | None:
    """(words, env) of a ``docker inspect`` container record, or None for another mapping:
    Docker keeps the argv it started as ``Path`` plus ``Args`` and the environment it gave
    as ``Config.Env`` (``NAME=VALUE`` strings, the image's own ``PATH`` among them)."""
    path, args, config = node.get("Path"), node.get("Args"), node.get("Config")
    if not (isinstance(path, str) and isinstance(args, list) and isinstance(config, dict)):
        return None
    env = config.get("Env")
    pairs = [str(item) for item in env if _ENV_NAME.match(str(item).partition("=")[0])
             and "=" in str(item)] if isinstance(env, list) else []
    return [path, *(_text(arg) for arg in args)], pairs


#: Keys that hold a LeaderWorkerSet's leader pod (a RoleBasedGroup role's patch of it too).
_LEADER_KEYS = ("leaderTemplate", "patchLeaderTemplate")
#: Keys of a CI workflow or job whose ``env`` mapping every step under it inherits (GitHub
#: Actions: the workflow's ``jobs``, a job's ``steps``).
_CI_SCOPES = ("jobs", "steps")
#: The most matrix combinations read (GitHub Actions runs at most 256 jobs a matrix).
_MAX_COMBINATIONS = 256


def _matrix_jobs(doc: Any) -> Any:
    """A GitHub Actions workflow with each job whose ``strategy.matrix`` spells out several
    combinations written once per combination (in the order Actions starts them: the keys'
    product, ``exclude`` taken out, ``include`` added), each job's matrix that one
    combination: Actions fills ``${{ matrix.X }}`` per job, so each is a launch of its own
    (``--launch N``), the first the default. Any other document as it is."""
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    if not isinstance(jobs, dict):
        return doc
    out: dict[Any, Any] = {}
    for name, job in jobs.items():
        strategy = job.get("strategy") if isinstance(job, dict) else None
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
        combinations = _matrix_combinations(matrix) if isinstance(matrix, dict) else None
        if combinations is None or len(combinations) < 2:
            out[name] = job
            continue
        for combination in combinations:
            shown = ", ".join(_ci_text(v) for v in combination.values())
            one = {key: [value] for key, value in combination.items()}
            out[f"{name} ({shown})"] = {**job, "strategy": {**strategy, "matrix": one}}
    return {**doc, "jobs": out}


def _matrix_combinations(matrix: dict[Any, Any]) -> list[dict[str, Any]] | None:
    """The combinations a ``strategy.matrix`` runs, in order; None when a key's values are
    an expression (``${{ fromJSON(...) }}``) the text does not spell out."""
    keys = [str(k) for k in matrix if k not in ("include", "exclude")]
    combinations: list[dict[str, Any]] = [{}] if keys else []
    for key in keys:
        options = matrix[key]
        if not isinstance(options, list) or not options:
            return None
        combinations = [{**c, key: v} for c in combinations for v in options]
        if len(combinations) > _MAX_COMBINATIONS:
            return None
    excluded = matrix.get("exclude")
    for entry in excluded if isinstance(excluded, list) else []:
        if isinstance(entry, dict):
            combinations = [c for c in combinations
                            if not all(c.get(str(k)) == v for k, v in entry.items())]
    originals = [dict(c) for c in combinations]
    included = matrix.get("include")
    for entry in included if isinstance(included, list) else []:
        if not isinstance(entry, dict):
            continue
        entry = {str(k): v for k, v in entry.items()}
        extended = False
        for combination, original in zip(combinations, originals):
            # added to each combination none of whose own values it changes
            if all(original[k] == v for k, v in entry.items() if k in original):
                combination.update(entry)
                extended = True
        if not extended:  # else a combination of its own
            combinations.append(dict(entry))
            originals.append(dict(entry))
    return combinations or None


def _ci_text(value: Any) -> str:
    """A value as GitHub Actions writes it into a script (``true``, not ``True``)."""
    return ("true" if value else "false") if isinstance(value, bool) else _text(value)


#: Keys whose values are a container's words.
_WORD_KEYS = ("entrypoint", "command", "args", "commands", "run", "script")
#: A key that names a command, alone or in a compound word (``start_command``,
#: ``startCommand``, ``docker_cmd``, Ansible's ``cmd`` and its private ``_sglang_command``
#: facts, ``SGLANG_CMD``, ``cmd_line``): its value is the command line (or exec-form list) a
#: platform runs. A folded (``>``) value is one line by the time YAML hands it over.
_COMMAND_KEY = re.compile(r"^_?(?:[A-Za-z]+[_-]?)?(?:command|cmd)(?:[_-]?line)?$",
                          re.IGNORECASE)
#: Keys that hold a shell script rather than a command: dstack's ``commands`` (a list of
#: scripts), SkyPilot's and CI steps' ``run``, GitLab CI's ``script``, Task's ``cmds``.
_SCRIPT_KEYS = ("commands", "run", "script", "cmds")
#: A Task (go-task) template reference to a variable: ``{{.MODEL}}``.
_TASK_VAR = re.compile(r"\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _words_of(node: dict[Any, Any], outer: str = "") -> list[str]:
    """Compose runs ``entrypoint`` then ``command``; Kubernetes ``command`` then ``args``;
    a task that gives a shell script runs it with the shell, after the ``outer`` exports
    of the workflow and job around it."""
    module = node.get("module")
    if isinstance(module, str) and node.get("request") == "launch":
        # an editor's debug configuration (VS Code's launch.json): Python runs the module
        # with the configuration's args, in its env
        return _argv(["python", "-m", module, *_as_words(node.get("args"))])
    first, second = ("entrypoint", "command") if "entrypoint" in node else ("command", "args")
    # a shell's -c script inherits the container's environment (Kubernetes ``env``,
    # Compose ``environment``): its ``$TP`` is that value, set before the script runs
    given = "".join(f"{name}={shlex.quote(value)}\n" for name, value in _env_pairs(node)
                    if _ENV_NAME.match(name))
    words = _argv([*_as_words(node.get(first)), *_as_words(node.get(second))], given)
    if words:
        return words
    from launchplan.input.pasted import launches_sglang

    for key, value in node.items():
        # a platform's own name for a command it runs: Baseten Truss's
        # ``docker_server.start_command``, a ``startCommand``, a ``run_cmd`` (the one that
        # starts SGLang, not a setup hook beside it)
        if isinstance(key, str) and _COMMAND_KEY.match(key) and isinstance(value, (str, list)):
            try:
                words = _argv(_as_words(value))
            except InputError:  # a hook's own unbalanced string: not the launch
                continue
            if launches_sglang(words):
                return words
    for key in _SCRIPT_KEYS:
        script = node.get(key)
        if isinstance(script, list) and all(isinstance(line, str) for line in script):
            script = "\n".join(script)
        if isinstance(script, str) and "sglang" in script:
            if key == "cmds":  # Task fills {{.NAME}} from the task's vars before the shell
                script = _task_templated(script, node.get("vars"))
            return _argv(["sh", "-c", _platform_lines(node) + outer + _task_exports(node)
                          + script])
    return []


def _platform_lines(node: dict[Any, Any]) -> str:
    """The variables SkyPilot or dstack sets from the task's resources
    (``task_variables``), as shell assignments before its script: the script reads them,
    and they are the platform's, not an SGLang setting the launch is given."""
    import shlex

    from launchplan.input.task_variables import platform_variables

    return "".join(f"{name}={shlex.quote(value)}\n"
                   for name, value in platform_variables(node).items())


def _with_file_vars(node: dict[Any, Any]) -> dict[Any, Any]:
    """A Taskfile (go-task: ``version``, ``tasks``) whose top-level ``vars`` every task
    sees, under its own: a copy whose tasks each hold both (a task's own win); any other
    mapping as it is."""
    tasks, shared = node.get("tasks"), node.get("vars")
    if not (isinstance(tasks, dict) and isinstance(shared, dict) and "version" in node):
        return node
    return {**node, "tasks": {
        name: {**task, "vars": {**shared, **(task.get("vars") or {})}}
        if isinstance(task, dict) and isinstance(task.get("vars") or {}, dict) else task
        for name, task in tasks.items()}}


def _task_templated(script: str, values: Any) -> str:
    """A Task (go-task) ``cmds`` script with ``{{.NAME}}`` filled from the task's ``vars``
    (a plain value each); a name they do not set is the shell's ``${NAME}``, left open
    (Task takes it from the environment or the command line, which the paste lacks)."""
    known = {str(k): _text(v) for k, v in values.items()
             if not isinstance(v, (dict, list))} if isinstance(values, dict) else {}
    return _TASK_VAR.sub(lambda m: known.get(m.group(1), "${" + m.group(1) + "}"), script)


def _image_launch(node: dict[Any, Any]) -> list[str]:
    """The launch of a container or template that gives no command but an image that
    starts SGLang from the variables its ``env`` mapping sets (a Vast.ai template)."""
    image, env = node.get("image"), node.get("env")
    if not isinstance(image, str) or not isinstance(env, dict):
        return []
    from launchplan.input.launcher_images import environment_launch

    values = {str(k): _text(v) for k, v in env.items() if v is not None}
    return environment_launch(image, values) or []


def _task_exports(node: dict[Any, Any]) -> str:
    """The variables a task file gives its script, as ``export`` lines to run before it:
    SkyPilot's ``envs`` mapping, a CI step's ``env`` mapping, dstack's ``env`` list of
    ``NAME=value`` items. The script reads them (``--model-path $MODEL_NAME``) and the
    launch inherits them. An entry left empty (SkyPilot's ``HF_TOKEN:``, for ``--env`` at
    launch time) or naming only the variable (dstack's ``- HF_TOKEN``) is the caller's,
    left unset, so a flag holding it is reported."""
    import shlex

    pairs: list[tuple[str, str]] = []
    for key in ("envs", "env", "variables"):
        entries = node.get(key)
        if isinstance(entries, dict):
            pairs.extend((str(name), _text(value)) for name, value in entries.items()
                         if value is not None and not isinstance(value, (dict, list)))
        elif isinstance(entries, list):
            for entry in entries:
                name, eq, value = str(entry).partition("=") if isinstance(entry, str) \
                    else ("", "", "")
                if eq:
                    pairs.append((name.strip(), value))
    return "".join(f"export {name}={shlex.quote(value)}\n" for name, value in pairs
                   if _ENV_NAME.match(name))


def _as_words(value: Any) -> list[str]:
    """An exec form's items as they are (each is one argument, spaces and all); a string
    (Compose's short form) split as Compose splits it, into words."""
    if value is None:
        return []
    if isinstance(value, list):
        return [_text(item) for item in value if item is not None]
    import shlex

    try:
        return shlex.split(_text(value))
    except ValueError as exc:
        raise InputError("the pasted manifest", "a command string with balanced quotes",
                         _text(value)[:60], str(exc)) from None


#: Programs whose ``-c`` argument is a shell script (``sh -c "python3 -m ..."``).
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash"})


def _argv(words: list[str], environment: str = "") -> list[str]:
    """The words a container runs, a shell's ``-c`` script taken apart as the shell would
    (its other commands, exports and redirections dropped, as for a pasted line), with the
    ``environment`` assignment lines it inherits read first."""
    for at, word in enumerate(words[:-2]):
        if word.rsplit("/", 1)[-1] in _SHELLS and words[at + 1] in ("-c", "-lc", "-ec"):
            from launchplan.input.pasted import shell_words

            return shell_words(environment + words[at + 2])
    return words




def _env_of(node: dict[Any, Any], words: list[str], implicit: dict[str, str]) -> list[str]:
    """The container's ``NAME=VALUE`` pairs (Kubernetes ``env`` entries with a literal
    value, Compose ``environment`` as a mapping or a list), with ``$(NAME)`` references in
    ``words`` replaced in place as Kubernetes does (from those and ``implicit``)."""
    pairs = _env_pairs(node)
    known = {**implicit, **dict(pairs)}
    if known:
        words[:] = [_REFERENCE.sub(lambda m: known.get(m.group(1), m.group(0)), w)
                    for w in words]
    return [f"{name}={value}" for name, value in pairs if _ENV_NAME.match(name)]


def _env_pairs(node: dict[Any, Any]) -> list[tuple[str, str]]:
    """The (name, value) pairs a container's environment keys give it, in order."""
    pairs: list[tuple[str, str]] = []
    env = node.get("env")
    if env is None:
        # SageMaker HyperPod's inference CRDs (InferenceEndpointConfig, JumpStartModel) name a
        # worker container's ``env`` list so, with the same name/value items
        env = node.get("environmentVariables")
    if isinstance(env, list):
        for entry in env:
            if isinstance(entry, dict) and "value" in entry and "name" in entry:
                pairs.append((str(entry["name"]), _text(entry["value"])))
    elif isinstance(env, dict) and not any(key in node for key in _SCRIPT_KEYS):
        # a mapping of names to values: Ansible's docker_container ``env``, a Nomad-style
        # task (a task's script exports its own, ``_task_exports``); a value its tool
        # renders first (``"{{ lookup(...) }}"``) is not known here
        pairs.extend((str(k), _text(v)) for k, v in env.items()
                     if v is not None and not isinstance(v, (dict, list))
                     and not _TEMPLATED.search(_text(v)))
    environment = node.get("environment")
    if isinstance(environment, dict):
        pairs.extend((str(k), _text(v)) for k, v in environment.items() if v is not None)
    elif isinstance(environment, list):
        for item in environment:
            if isinstance(item, dict) and "name" in item and "value" in item:
                pairs.append((str(item["name"]), _text(item["value"])))  # an ECS task's
                continue
            name, eq, value = str(item).partition("=")
            if eq:
                pairs.append((name, value))
    return pairs
