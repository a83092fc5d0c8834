"""Capture-size lists too long to build, described exactly instead.

SGLang generates its CUDA-graph capture sizes from a user number (``max_bs``): with
``--cuda-graph-max-bs-decode 2147483648`` it builds a list of 67 million batch sizes (and
with 2^63 it never finishes). Every such list is a few explicit small values, one arithmetic
progression and at most one appended maximum, so launchplan keeps lists longer than
``LIMIT`` in that form: ``SizeList`` is an immutable sequence whose length, ends, membership,
equality and JSON form cost nothing proportional to its length. Shorter lists stay plain
lists, exactly as before.

In JSON a ``SizeList`` is written as ``{"length": N, "head": [...], "range": {"start": a,
"stop": b, "step": s}, "tail": [...]}``: the values are ``head``, then ``a, a+s, ...`` below
``b``, then ``tail``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from launchplan.encoding import int_text

LIMIT = 8192
"""Longest capture-size list launchplan builds; longer ones are described (SizeList)."""


class SizeList(Sequence):
    """``head + range(start, stop, step) + tail`` without building it (ascending sizes)."""

    __slots__ = ("head", "start", "stop", "step", "tail", "length")

    def __init__(self, head: Sequence[int], start: int, stop: int, step: int,
                 tail: Sequence[int] = ()) -> None:
        self.head = tuple(head)
        self.start, self.step = start, step
        count = max(0, -(-(stop - start) // step))
        self.stop = start + count * step  # normalised: equal progressions compare equal
        self.tail = tuple(tail)
        self.length = len(self.head) + count + len(self.tail)

    @property
    def _count(self) -> int:
        return (self.stop - self.start) // self.step

    def __len__(self) -> int:
        return self.length  # OverflowError above sys.maxsize: use .length

    def __bool__(self) -> bool:  # not through __len__: a length may exceed sys.maxsize
        return self.length > 0

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, stride = index.indices(self.length)
            if len(range(start, stop, stride)) > LIMIT:
                raise ValueError("slice of a described capture-size list is too long to build")
            return [self[i] for i in range(start, stop, stride)]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("SizeList index out of range")
        if index < len(self.head):
            return self.head[index]
        index -= len(self.head)
        if index < self._count:
            return self.start + index * self.step
        return self.tail[index - self._count]

    def __iter__(self) -> Iterator[int]:
        yield from self.head
        yield from range(self.start, self.stop, self.step)
        yield from self.tail

    def __contains__(self, value: object) -> bool:
        if value in self.head or value in self.tail:
            return True
        return isinstance(value, int) and value in range(self.start, self.stop, self.step)

    def first(self) -> int:
        return self[0]

    def last(self) -> int:
        return self[-1]

    def _key(self) -> tuple:
        return (self.head, self.start, self.stop, self.step, self.tail)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SizeList):
            return self._key() == other._key() or (
                self.length == other.length and self.length <= LIMIT
                and list(self) == list(other))
        if isinstance(other, (list, tuple)):
            return len(other) == self.length and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._key())

    def as_json(self) -> dict[str, Any]:
        """The exact, compact JSON form (see the module docstring)."""
        return {"length": self.length, "head": list(self.head),
                "range": {"start": self.start, "stop": self.stop, "step": self.step},
                "tail": list(self.tail)}

    def __repr__(self) -> str:
        ends = ", ".join(int_text(self[i]) for i in range(min(3, self.length)))
        return (f"[{ends}, ..., {int_text(self[-1])}] ({count_text(self.length)} sizes; "
                f"{int_text(self.start)} to {int_text(self.stop - self.step)} step {self.step})")

    __str__ = __repr__


def sizes(head: Sequence[int], start: int, step: int, max_bs: int, *,
          append_max: bool) -> list[int] | SizeList:
    """``head`` values up to ``max_bs``, then ``start, start+step, ...`` up to ``max_bs``,
    then ``max_bs`` itself if ``append_max`` and it is not there yet: a list when short, else
    a ``SizeList`` (the same values)."""
    progression = range(start, max_bs + 1, step)  # TypeError on a float or text, as SGLang's
    kept = [s for s in head if s <= max_bs]
    count = len(kept) + max(0, -(-(max_bs + 1 - start) // step))
    if count <= LIMIT:
        out = kept + list(progression)
        if append_max and max_bs not in out:
            out.append(max_bs)
        return out
    present = max_bs in kept or (max_bs >= start and (max_bs - start) % step == 0)
    tail = (max_bs,) if append_max and not present else ()
    return SizeList(kept, start, max_bs + 1, step, tail)


def largest(values: Sequence[int]) -> int:
    """``max(values)`` without walking a SizeList."""
    if isinstance(values, SizeList):
        return values.last()
    return max(values)


def count_of(values: Sequence[Any]) -> int:
    """``len(values)``, also for SizeLists longer than ``sys.maxsize``."""
    return values.length if isinstance(values, SizeList) else len(values)


def rounded_up(values: Sequence[int], multiple: int) -> list[int] | SizeList:
    """Sorted distinct values each rounded up to a multiple (DeepEP's token alignment)."""
    def up(v: int) -> int:
        return -(-v // multiple) * multiple

    if not isinstance(values, SizeList) or values.length <= LIMIT:
        return sorted({up(v) for v in values})
    start, count = up(values.start), (values.stop - values.start) // values.step
    if values.step % multiple == 0:  # every value moves by the same amount
        progression = range(start, start + count * values.step, values.step)
    elif multiple % values.step == 0:  # dense enough to hit every multiple in between
        last = up(values.start + (count - 1) * values.step)
        progression = range(start, last + multiple, multiple)
    else:  # no generator of ours produces this
        raise ValueError("cannot align this described capture-size list")
    head = sorted({up(v) for v in values.head} - {start})
    tail = sorted({up(v) for v in values.tail if up(v) not in progression})
    return SizeList(head, progression.start, progression.stop, progression.step, tail)


def at_most(values: Sequence[int], limit: int) -> list[int] | SizeList:
    """The values not above ``limit``, in order (a SizeList stays described when long)."""
    if not isinstance(values, SizeList):
        return [v for v in values if v <= limit]
    head = [v for v in values.head if v <= limit]
    tail = [v for v in values.tail if v <= limit]
    out = SizeList(head, values.start, min(values.stop, max(values.start, limit + 1)),
                   values.step, tail)
    return list(out) if out.length <= LIMIT else out


def multiples_of(values: Sequence[int], k: int) -> list[int] | SizeList:
    """The values divisible by ``k``, in order (a SizeList stays described when long)."""
    if not isinstance(values, SizeList) or values.length <= LIMIT:
        return [v for v in values if v % k == 0]
    head = [v for v in values.head if v % k == 0]
    tail = [v for v in values.tail if v % k == 0]
    if values.step % k == 0:  # the whole progression, or none of it
        start, stop, step = values.start, values.stop, values.step
        if start % k:
            stop = start
    elif k % values.step == 0:  # every k-th value of a denser progression, if on it
        start = -(-values.start // k) * k
        stop, step = (values.stop if values.start % values.step == 0 else start), k
    else:  # no generator of ours produces this
        raise ValueError("cannot filter this described capture-size list")
    out = SizeList(head, start, max(start, stop), step, tail)
    return list(out) if out.length <= LIMIT else out


def as_sequence(values: Sequence[int]) -> list[int] | SizeList:
    """A SizeList as it is, anything else as a list (for comparisons with generated sizes)."""
    return values if isinstance(values, SizeList) else list(values)


def described_note(phase: str, values: SizeList) -> str:
    """The plan's warning for a described list: how long SGLang's list would be, and why."""
    return (f"{phase} CUDA-graph capture sizes: SGLang would build {count_text(values.length)} "
            f"sizes up to {count_text(values.last())} (one graph each); launchplan describes "
            f"the list instead of building it")


def count_text(value: int) -> str:
    """A count with thousands separators, as long as Python can print it."""
    return f"{value:,}" if value.bit_length() <= 14_000 else int_text(value)


def is_described(value: Any) -> bool:
    return isinstance(value, SizeList)
