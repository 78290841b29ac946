"""Disk cache of model replies, so a rerun costs nothing and replays identically.

The key is the SHA-256 of the canonical JSON of ``(model, messages, sampling parameters
(tools and tool_choice among them), scope, occurrence)``: the *scope* names the session a call
belongs to (so different seeds or sessions never share a reply) and the *occurrence* ``n``
says that this is the n-th identical request of that session (0-based), so a session that asks
the same thing twice gets two samples and a rerun replays them in the same order.
Credentials never enter the key: parameters whose names look like secrets (``api_key``,
``*_token``, ``*secret*``, headers, ...) are dropped before hashing, so the same call with a
different key hits the same entry and no cache file name or content depends on a key.

One file per entry, ``<dir>/<key[:2]>/<key>.json``, written atomically (temporary file in the
same folder, then :func:`os.replace`), so concurrent writers and crashes never leave a
half-written entry, and only for a completed call (the client stores an entry after the
provider answered; a failed or cancelled call stores nothing). A hit returns exactly what was
stored; an unreadable entry or one of another format is a miss.
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
from collabsim.llm.toolcalls import ToolCall

# 2: the key gained scope and occurrence, entries gained finish_reason and tool_calls.
CACHE_FORMAT = 2

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


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, str]],
    params: Mapping[str, Any],
    *,
    scope: str = "",
    occurrence: int = 0,
) -> str:
    """Return the hex SHA-256 of the canonical JSON of the request and where it was made.

    Args:
        model: litellm model name.
        messages: Chat messages (``role``/``content`` dicts).
        params: Sampling parameters (temperature, max_tokens, tools, tool_choice, seed,
            extra); secrets and transport settings are ignored.
        scope: The session the call belongs to ("" outside sessions).
        occurrence: How many identical requests the scope made before this one.

    Returns:
        64 hex characters.
    """
    payload = {
        "format": CACHE_FORMAT,
        "model": model,
        "messages": [jsonable(dict(m)) for m in messages],
        "params": sampling_params(params),
        "scope": scope,
        "occurrence": occurrence,
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
        finish_reason: Why the model stopped (``"stop"``, ``"length"``, ``"tool_calls"``;
            None when the provider did not say).
        tool_calls: The native tool calls of the reply.
    """

    key: str
    model: str
    response_model: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_known: bool
    finish_reason: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


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
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
            return None
        finish = data.get("finish_reason")
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
                finish_reason=None if finish is None else str(finish),
                tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, entry: CacheEntry) -> Path:
        """Store ``entry`` atomically; return its file."""
        path = self.path_for(entry.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fields = {**asdict(entry), "tool_calls": [c.to_dict() for c in entry.tool_calls]}
        record = redact_data({"format": CACHE_FORMAT, **fields})  # no credential on disk
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
        # Temporary files of writes in flight are hidden (".tmp-..."): not entries.
        return sum(1 for p in self.root.glob("*/*.json") if not p.name.startswith("."))
