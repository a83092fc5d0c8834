"""What the memory modules raise where SGLang would refuse to start for want of memory."""

from __future__ import annotations


class NotEnoughMemory(ValueError):
    """SGLang would refuse to start: the KV pool gets no (or too little) memory."""
