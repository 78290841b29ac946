"""Disk cache of model replies, so a rerun costs nothing and replays identically.

The key is the SHA-256 of the canonical JSON of ``(model, messages, sampling parameters)``.
Credentials never enter the key: parameters whose names look like secrets (``api_key``,
``*_token``, ``*secret*``, headers, ...) are dropped before hashing, so the same call with a
different key hits the same entry and no cache file name or content depends on a key.

One file per entry, ``<dir>/<key[:2]>/<key>.json``, written atomically (temporary file in the
same folder, then :func:`os.replace`), so concurrent writers and crashes never leave a
half-written entry. A hit returns exactly what was stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from collabsim.core.redaction import redact_data

CACHE_FORMAT = 1

# Parameter names that never enter a cache key or a log (they may carry credentials).
_SECRET_PARAM = re.compile(
    r"(api_?key|secret|password|passwd|authorization|credential|headers|access_key"
    r"|(^|_)token$|_ad_token|session_token)",
    re.IGNORECASE,
)

# Parameters that change how a call is made, not what it answers.
NON_SAMPLING_PARAMS: frozenset[str] = frozenset(
    {"timeout", "num_retries", "max_retries", "latency_ms", "metadata", "api_base", "base_url"}
)


def is_secret_param(name: str) -> bool:
    """True when a parameter name looks like it carries a credential (``api_key``, headers...)."""
    return bool(_SECRET_PARAM.search(name))


def jsonable(value: Any) -> Any:
    """Map a parameter value to canonical JSON-able data (exceptions become their repr)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    return repr(value)


def loggable_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """All parameters except credentials, as JSON-able data (for call logs)."""
    return {k: jsonable(v) for k, v in sorted(params.items()) if not is_secret_param(k)}


def sampling_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the parameters that can change a reply: drop secrets and transport settings."""
    return {
        k: jsonable(v)
        for k, v in sorted(params.items())
        if not is_secret_param(k) and k not in NON_SAMPLING_PARAMS
    }


def cache_key(model: str, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]) -> str:
    """Return the hex SHA-256 of the canonical JSON of (model, messages, sampling params).

    Args:
        model: litellm model name.
        messages: Chat messages (``role``/``content`` dicts).
        params: Sampling parameters (temperature, max_tokens, extra); secrets are ignored.

    Returns:
        64 hex characters.
    """
    payload = {
        "format": CACHE_FORMAT,
        "model": model,
        "messages": [jsonable(dict(m)) for m in messages],
        "params": sampling_params(params),
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One stored reply.

    Attributes:
        key: The cache key.
        model: Model name of the request.
        response_model: Model name the provider reported.
        text: Reply text.
        prompt_tokens: Prompt tokens of the original call.
        completion_tokens: Completion tokens of the original call.
        cost_usd: Cost of the original call (0 when unknown).
        cost_known: Whether litellm knew the model's price.
    """

    key: str
    model: str
    response_model: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_known: bool


class DiskCache:
    """A directory of cached replies (safe for concurrent readers and writers)."""

    def __init__(self, root: Path) -> None:
        """Create (if needed) and use ``root`` as the cache directory."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path_for(self, key: str) -> Path:
        """Return the file that holds (or would hold) ``key``."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CacheEntry | None:
        """Return the stored entry, or None on a miss or an unreadable entry."""
        path = self.path_for(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("format") != CACHE_FORMAT or data.get("key") != key:
            return None
        try:
            return CacheEntry(
                key=key,
                model=str(data["model"]),
                response_model=str(data["response_model"]),
                text=str(data["text"]),
                prompt_tokens=int(data["prompt_tokens"]),
                completion_tokens=int(data["completion_tokens"]),
                cost_usd=float(data["cost_usd"]),
                cost_known=bool(data["cost_known"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, entry: CacheEntry) -> Path:
        """Store ``entry`` atomically; return its file."""
        path = self.path_for(entry.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = redact_data({"format": CACHE_FORMAT, **asdict(entry)})  # no credential on disk
        body = json.dumps(record, ensure_ascii=False, indent=1)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(body)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def __len__(self) -> int:
        """Number of stored entries."""
        return sum(1 for _ in self.root.glob("*/*.json"))
