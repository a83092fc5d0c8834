"""Each vocabulary set is spelled out once: no module keeps its own copy of one."""

from __future__ import annotations

import importlib
import pkgutil

import launchplan
from launchplan import vocabulary

SETS = {name: value for name, value in vars(vocabulary).items()
        if name.isupper() and isinstance(value, (tuple, frozenset))}


def _modules():
    for info in pkgutil.walk_packages(launchplan.__path__, "launchplan."):
        if info.name.startswith("launchplan.commands"):
            continue  # entry points: nothing here defines backend or algorithm sets
        yield importlib.import_module(info.name)


def test_no_module_defines_a_vocabulary_set_again():
    copies = []
    for module in _modules():
        if module is vocabulary:
            continue
        for name, value in vars(module).items():
            if (not isinstance(value, (tuple, frozenset, set)) or not value
                    or not all(isinstance(item, str) for item in value)):
                continue
            for vocab_name, vocab in SETS.items():
                if value is not vocab and set(value) == set(vocab):
                    copies.append(f"{module.__name__}.{name} repeats vocabulary.{vocab_name}")
    assert not copies, copies


def test_the_vocabulary_is_used():
    """Every set in the vocabulary is imported by some other module (none is dead)."""
    used = {name: False for name in SETS}
    for module in _modules():
        for name, vocab in SETS.items():
            if module is not vocabulary and any(v is vocab for v in vars(module).values()):
                used[name] = True
    assert all(used.values()), [n for n, u in used.items() if not u]
