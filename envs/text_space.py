"""A ``Text`` space whose observations survive ``AsyncVectorEnv``'s shared memory.

``AsyncVectorEnv`` (default ``shared_memory=True``) reads its observation buffer once, when
it is built, and relies on the result being a *view* that the workers' writes update in
place; that holds for numpy arrays, but gymnasium's ``Text`` reader returns a tuple of
immutable strings (decoded from index-padded codes), so every later batch is stale or
garbage. :class:`SharedText` registers its own shared-memory functions with gymnasium's
single-dispatch registry: the codes are ``index + 1`` with 0 ending the text, and the reader
returns a :class:`SharedTextBatch`, a live view that decodes the current buffer when read and
snapshots to a tuple of ``str`` on ``deepcopy`` (what ``AsyncVectorEnv`` returns with its
default ``copy=True``). So ``gym.make_vec(..., vectorization_mode="async")`` is correct with
its defaults; the codec must be registered in each process, which importing
:mod:`collabsim.envs` does.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
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


class SharedTextBatch(Sequence[str]):
    """A live, read-only view of ``n`` texts in shared memory (see module docstring)."""

    def __init__(self, space: SharedText, shared_memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, shared_memory, n

    def _rows(self) -> np.ndarray:
        data = np.frombuffer(self._memory.get_obj(), dtype=np.int32)
        return data.reshape((self._n, self._space.max_length))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        return self._space.decode(self._rows()[index])

    def __iter__(self) -> Any:
        return iter([self._space.decode(row) for row in self._rows()])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return f"SharedTextBatch({tuple(self)!r})"

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)


@create_shared_memory.register(SharedText)
def _create(space: SharedText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


@read_from_shared_memory.register(SharedText)
def _read(space: SharedText, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(space, shared_memory, n)


@write_to_shared_memory.register(SharedText)
def _write(space: SharedText, index: int, values: str, shared_memory: Any) -> None:
    size = space.max_length
    destination = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    np.copyto(destination[index * size : (index + 1) * size], space.encode(values))
