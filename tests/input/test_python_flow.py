"""Where a pasted script's statement sits: the branches and loops around it."""

from __future__ import annotations

import ast

from launchplan.input.python_flow import ancestors, branches, in_flow

SCRIPT = """
cmd = ["python", "-m", "sglang.launch_server"]
extra = {}
if big:
    cmd += ["--tp", "8"]
    if fp8:
        extra["quantization"] = "fp8"
else:
    cmd += ["--tp", "1"]
for k in names:
    extra[k] = 1
while False:
    pass
else:
    extra["x"] = 2
extra.update({"page-size": 16})
"""


def _statements(tree: ast.Module) -> list[ast.stmt]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.Expr))]


def _at(tree: ast.Module, line: int) -> ast.stmt:
    return next(s for s in _statements(tree) if s.lineno == line)


def test_branches_name_each_if_and_its_side_outermost_first() -> None:
    tree = ast.parse(SCRIPT)
    outer = next(n for n in ast.walk(tree) if isinstance(n, ast.If) and n.lineno == 4)
    inner = next(n for n in ast.walk(tree) if isinstance(n, ast.If) and n.lineno == 6)
    assert branches(tree, _at(tree, 7)) == [(outer, "body"), (inner, "body")]
    assert branches(tree, _at(tree, 9)) == [(outer, "orelse")]
    assert branches(tree, _at(tree, 2)) == []


def test_in_flow_holds_under_an_if_or_a_loop_and_not_at_top_level() -> None:
    tree = ast.parse(SCRIPT)
    assert in_flow(tree, _at(tree, 5))
    assert in_flow(tree, _at(tree, 11))  # a for loop's body
    assert in_flow(tree, _at(tree, 15))  # a while loop's else: still the loop's business
    assert not in_flow(tree, _at(tree, 3))
    assert not in_flow(tree, _at(tree, 16))


def test_a_node_outside_the_tree_has_no_ancestors() -> None:
    tree = ast.parse(SCRIPT)
    stray = ast.parse("x = 1").body[0]
    assert ancestors(tree, stray) == []
    assert not in_flow(tree, stray)
    assert ancestors(tree, tree) == []
