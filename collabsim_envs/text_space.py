"""A ``Text`` space whose observations survive ``AsyncVectorEnv``'s shared memory.

gymnasium's shared-memory codec for :class:`~gymnasium.spaces.Text` stores character indices
padded with index 0, and index 0 of a printable charset is ``"0"``: every observation read
back from shared memory is padded to ``max_length`` with ``"0"`` characters (60,000 of them
for a short prompt). :class:`SharedText` registers its own codec (``index + 1``, 0 = end of
text) with gymnasium's single-dispatch functions, so ``gym.make_vec(...,
vectorization_mode="async")`` is correct with its default ``shared_memory=True``.
"""

from __future__ import annotations

import multiprocessing as mp
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)


class SharedText(Text):
    """:class:`~gymnasium.spaces.Text` with a lossless shared-memory codec (see module)."""

    def encode(self, text: str) -> np.ndarray:
        """Character indices + 1 of ``text`` in a zero-padded int32 array of ``max_length``."""
        codes = np.zeros(self.max_length, dtype=np.int32)
        index = self.character_index
        values = [index[ch] + 1 for ch in text[: self.max_length]]
        codes[: len(values)] = values
        return codes

    def decode(self, codes: np.ndarray) -> str:
        """Inverse of :meth:`encode`."""
        stop = np.flatnonzero(codes == 0)
        used = codes[: stop[0]] if len(stop) else codes
        chars = self.character_list
        return "".join(chars[c - 1] for c in used.tolist())

    @property
    def character_index(self) -> dict[str, int]:
        """Character -> index in :attr:`character_list` (cached)."""
        cached = self.__dict__.get("_char_index")
        if cached is None:
            cached = {ch: i for i, ch in enumerate(self.character_list)}
            self.__dict__["_char_index"] = cached
        return cached


@create_shared_memory.register(SharedText)
def _create(space: SharedText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


@read_from_shared_memory.register(SharedText)
def _read(space: SharedText, shared_memory: Any, n: int = 1) -> tuple[str, ...]:
    data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length))
    return tuple(space.decode(row) for row in data)


@write_to_shared_memory.register(SharedText)
def _write(space: SharedText, index: int, values: str, shared_memory: Any) -> None:
    size = space.max_length
    destination = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    np.copyto(destination[index * size : (index + 1) * size], space.encode(values))
