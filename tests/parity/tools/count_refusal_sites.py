"""Count SGLang's refusal sites and how many the recorded oracle results have met.

    python tests/parity/tools/count_refusal_sites.py [--sglang DIR] [--unmet]

A site is a ``raise X(msg)`` or ``assert cond, msg`` with a message in SGLang's resolution
(``srt/arg_groups/**``, ``srt/server_args.py``, ``srt/configs/model_config.py``) whose message
has some literal text. Its key is the longest literal fragment of the message: string constants
joined as the source joins them (adjacent literals, ``+``, an f-string's constant parts), cut at
each f-string placeholder, and an operand that is no literal is skipped. A site is met when
some recorded error (the ``error`` of any ``tests/parity/data/results-*.jsonl`` row) holds its
key. This is the count the README's refusals paragraph quotes (0.5.23: 777 sites).

Skipping a non-literal operand of ``+`` joins its neighbours (``"a: " + ", ".join(x) + "."``
keys on ``"a: ."``), which no error holds: such sites stay unmet whatever is recorded.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SGLANG = Path("/root/sglang-oracle/lib/python3.11/site-packages/sglang/srt")


def _fragments(node: ast.expr | None) -> list[str]:
    """The literal runs of a message expression, in order."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        runs, current = [], ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                current += str(part.value)
            else:
                runs.append(current)
                current = ""
        return [*runs, current]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fragments(node.left), _fragments(node.right)
        if left and right:
            return [*left[:-1], left[-1] + right[0], *right[1:]]
        return left + right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _fragments(node.left)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        return _fragments(node.func.value)
    return []


def sites(root: Path) -> list[tuple[str, int, str]]:
    """(file, line, key) for every raise or assert whose message has literal text."""
    files = sorted((root / "arg_groups").rglob("*.py"))
    files += [root / "server_args.py", root / "configs" / "model_config.py"]
    out = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            message = None
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                message = node.exc.args[0]
            elif isinstance(node, ast.Assert):
                message = node.msg
            runs = [run for run in _fragments(message) if run.strip()]
            if runs:
                out.append((str(path.relative_to(root)), node.lineno,
                            max(runs, key=len).strip()))
    return out


def recorded_errors(data: Path = DATA) -> str:
    """Every recorded error, one per line."""
    errors = []
    for path in sorted(data.glob("results-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                error = json.loads(line).get("error")
                if error:
                    errors.append(str(error))
    return "\n".join(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sglang", type=Path, default=SGLANG, help="an installed sglang/srt")
    parser.add_argument("--unmet", action="store_true", help="list the sites not met")
    args = parser.parse_args()
    found, errors = sites(args.sglang), recorded_errors()
    unmet = [site for site in found if site[2] not in errors]
    print(f"{len(found)} sites, {len(found) - len(unmet)} met")
    if args.unmet:
        for file, line, key in unmet:
            print(f"{file}:{line}  {key[:100]}")


if __name__ == "__main__":
    main()
