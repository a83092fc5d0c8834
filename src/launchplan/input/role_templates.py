"""A RoleBasedGroup's shared pod templates, merged into the roles that use them.

RoleBasedGroup (sgl-project/rbg, KEP-8 "RoleTemplate", v0.6.0) lets a group define a pod
template once under ``spec.roleTemplates`` and have a role use it by name: ``templateRef:
{name: ...}`` with the role's differences in a ``templatePatch`` beside it (v1alpha1), or
in the reference's own ``patch`` under a pattern such as ``standalonePattern`` or
``leaderWorkerPattern`` (v1alpha2). The controller builds each role's pod from the template
with the patch applied as a Kubernetes strategic merge patch: mappings merge key by key, a
list of named items (containers, env, volumes, volume mounts) merges item by item on
``name``, any other list (a command, its args) is replaced, and a null removes the key.

Read without that merge, the role's container is the patch alone: the launch is found but
the template's image and GPU request are lost, so a container the template gives one GPU
that runs ``--tp-size 2`` would plan as if it saw the whole node. The merged template is
what the role runs; the shared templates themselves start no pod.
"""

from __future__ import annotations

from typing import Any


def with_role_templates(node: Any) -> Any:
    """``node`` (a loaded manifest, or a list of documents) with every role that refers to
    one of its group's ``roleTemplates`` given the merged template instead; the same object
    when nothing refers to one."""
    if isinstance(node, list):
        out = [with_role_templates(item) for item in node]
        return node if all(a is b for a, b in zip(out, node)) else out
    if not isinstance(node, dict):
        return node
    spec = node.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("roleTemplates"), list):
        return node
    templates = {str(entry["name"]): entry.get("template")
                 for entry in spec["roleTemplates"]
                 if isinstance(entry, dict) and "name" in entry}
    roles = spec.get("roles")
    if not isinstance(roles, list):
        return node
    merged_roles = [_role(role, templates) for role in roles]
    # the shared templates are no pods of their own: only the roles' merged copies run
    rest = {k: v for k, v in spec.items() if k != "roleTemplates"}
    return {**node, "spec": {**rest, "roles": merged_roles}}


def _role(role: Any, templates: dict[str, Any]) -> Any:
    if not isinstance(role, dict):
        return role
    role = _resolved(role, templates, role.get("templatePatch"))  # v1alpha1: on the role
    for key, value in role.items():  # v1alpha2: under the role's pattern
        if isinstance(value, dict) and isinstance(value.get("templateRef"), dict):
            role = {**role, key: _resolved(value, templates, None)}
    return role


def _resolved(holder: dict[Any, Any], templates: dict[str, Any], patch: Any) -> dict[Any, Any]:
    """``holder`` with its ``templateRef`` replaced by the ``template`` it names, patched
    by the reference's own ``patch``, else by ``patch`` (the role's ``templatePatch``)."""
    ref = holder.get("templateRef")
    if not isinstance(ref, dict) or str(ref.get("name")) not in templates:
        return holder
    patch = ref.get("patch", patch)
    template = templates[str(ref.get("name"))]
    merged = strategic_merge(template, patch) if isinstance(patch, dict) else template
    rest = {k: v for k, v in holder.items() if k not in ("templateRef", "templatePatch")}
    return {**rest, "template": merged}


def strategic_merge(base: Any, patch: Any) -> Any:
    """``patch`` applied to ``base`` as Kubernetes' strategic merge patch applies it to a
    pod template (see the module); neither is changed."""
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return patch
    out = dict(base)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = strategic_merge(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list) \
                and _named(value) and _named(out[key]):
            out[key] = _merged_by_name(out[key], value)
        else:
            out[key] = value
    return out


def _named(items: list[Any]) -> bool:
    return all(isinstance(item, dict) and "name" in item for item in items)


def _merged_by_name(base: list[dict[Any, Any]], patch: list[dict[Any, Any]]) -> list[Any]:
    """Items of ``base`` with each ``patch`` item of the same name merged into it; a patch
    item naming none is added after them."""
    by_name = {item["name"]: item for item in patch}
    out: list[Any] = [strategic_merge(item, by_name[item["name"]])
                      if item["name"] in by_name else item for item in base]
    known = {item["name"] for item in base}
    out.extend(item for item in patch if item["name"] not in known)
    return out
