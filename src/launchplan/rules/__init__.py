"""SGLang 0.5.23's decisions, one module per domain.

How a rule is written (see ``attention.py`` for examples):

* A rule is a pure function of a read-only ``View`` (``v.page_size``, ``v["page_size"]``;
  facts as ``v.target`` and ``v.model``; ``v.explicit(name)`` for "the user gave it";
  ``v.raw(name)`` for the input as given). It never mutates what it reads.
* It returns ``None`` (nothing to decide), a ``dict`` of declarations, ``Declare(fields,
  note)`` (the note becomes a warning and the reason ``explain`` shows) or ``Refuse(message)``
  (SGLang raises here; the message is in launchplan's own words).
* ``@rule(phase=..., reads=..., writes=..., facts=..., sglang=...)`` only attaches metadata:
  every field the rule reads or writes, the facts it consults, and its SGLang counterpart.
  Its docstring states the condition, the effect and the kernel or hardware fact behind it.
* ``archs=``, ``applies=`` and ``triggers=`` state when the rule has anything to decide; the
  engine never calls it otherwise, so the body does not test them again (rule tests call it
  through ``tests.rules.conftest.decide``, which applies them as the engine does).
* Declaring a field outside ``writes`` fails loudly. ``launchplan.rulesets.PIPELINE`` lists
  which rules run and in what order (SGLang's pipeline order).
"""
