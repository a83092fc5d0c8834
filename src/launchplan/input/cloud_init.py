"""cloud-init user data (``#cloud-config``) that starts SGLang on a VM's first boot.

A GPU VM is often provisioned with user data: ``write_files`` puts a start script or a
unit on the disk and ``runcmd`` runs commands, each a shell line (``- docker run ...
python3 -m sglang.launch_server ...``) or an argv list (``- [bash, /opt/serve.sh]``). Read
as a manifest it has no container; read as shell text its YAML keys would be commands. This
module rewrites it as the script cloud-init runs in effect: each written file as a
here-document that writes it (so a later ``bash /opt/serve.sh`` runs its lines, as the
shell reader does for any written file), then ``bootcmd`` and ``runcmd`` in order.
"""

from __future__ import annotations

import shlex
from typing import Any

from launchplan.input.yaml_bound import check_expansion


def looks_like_cloud_config(text: str) -> bool:
    """Whether ``text`` is cloud-init user data: its first line is ``#cloud-config``."""
    return text.lstrip().startswith("#cloud-config") and "sglang" in text


def as_script(text: str) -> str | None:
    """The shell script the user data ``text`` amounts to, or None when it is not YAML of
    that shape (it is then read as it is)."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    check_expansion(data, "the pasted cloud-init user data")
    lines: list[str] = []
    for entry in data.get("write_files") or []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str) and isinstance(
                entry.get("content"), str):
            content = entry["content"].rstrip("\n")
            lines += [f"cat > {shlex.quote(entry['path'])} << 'CLOUD_INIT_EOF'", content,
                      "CLOUD_INIT_EOF"]
    for key in ("bootcmd", "runcmd"):
        for item in data.get(key) or []:
            command = _command(item)
            if command:
                lines.append(command)
    return "\n".join(lines) + "\n" if lines else None


def _command(item: Any) -> str:
    """One ``runcmd`` item as a shell line: a string as it is, a list joined as an argv."""
    if isinstance(item, str):
        return item.rstrip("\n")
    if isinstance(item, list):
        return shlex.join(str(word) for word in item)
    return ""
