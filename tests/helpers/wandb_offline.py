"""Read an offline wandb run back from what wandb wrote, with wandb's own record schema.

wandb >= 0.31 writes an offline run only as its transaction log ``run-<id>.wandb`` (plus
media, table and staged artifact files): no ``wandb-summary.json`` or ``config.yaml``, no
``wandb sync --view``, no Python datastore reader, and ``wandb.Api`` only talks to a
server. So the tests read the log the way ``wandb sync`` does: the LevelDB-log framing
(a ``:W&B`` header, 32 KiB blocks of chunks ``crc32 | length | type``, chunk types FULL /
FIRST / MIDDLE / LAST) around serialised :class:`wandb.proto.wandb_internal_pb2.Record`
messages, parsed by wandb's own protobuf classes. The reader refuses anything it does not
understand (bad header, unknown chunk type, a record split without its start), so a change
of format fails the tests instead of passing silently.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADER = b":W&B"
BLOCK = 32768
CHUNK_HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


@dataclass
class OfflineRun:
    """What one offline run logged."""

    folder: Path
    name: str = ""
    group: str = ""
    job_type: str = ""
    tags: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    artifacts: list[dict[str, Any]] = field(default_factory=list)


def _records(data: bytes):
    from wandb.proto import wandb_internal_pb2 as pb

    if data[:4] != HEADER:
        raise ValueError("not a wandb transaction log (no :W&B header)")
    pos, pending = 7, None
    while pos + CHUNK_HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < CHUNK_HEADER:  # block trailer: zero padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + CHUNK_HEADER])
        chunk = data[pos + CHUNK_HEADER:pos + CHUNK_HEADER + length]
        pos += CHUNK_HEADER + length
        if kind == 0 and length == 0:
            continue  # zero padding
        if kind == FULL:
            pending, complete = None, chunk
        elif kind == FIRST:
            pending, complete = chunk, None
        elif kind in (MIDDLE, LAST):
            if pending is None:
                raise ValueError("record continuation without its start")
            pending += chunk
            complete, pending = (pending, None) if kind == LAST else (None, pending)
        else:
            raise ValueError(f"unknown chunk type {kind}")
        if complete is not None:
            record = pb.Record()
            record.ParseFromString(complete)
            yield record


def _key(item: Any) -> str:
    return item.key or "/".join(item.nested_key)


def read_offline_run(folder: Path) -> OfflineRun:
    """Decode the ``run-*.wandb`` log of one ``offline-run-*`` folder."""
    (path,) = Path(folder).glob("run-*.wandb")
    run = OfflineRun(Path(folder))
    for record in _records(path.read_bytes()):
        which = record.WhichOneof("record_type")
        if which == "run":
            run.name, run.group = record.run.display_name, record.run.run_group
            run.job_type, run.tags = record.run.job_type, list(record.run.tags)
            for item in record.run.config.update:
                run.config[_key(item)] = json.loads(item.value_json)
        elif which == "config":
            for item in record.config.update:
                run.config[_key(item)] = json.loads(item.value_json)
        elif which == "summary":
            for item in record.summary.update:
                run.summary[_key(item)] = json.loads(item.value_json)
        elif which == "history":
            run.history.append({_key(i): json.loads(i.value_json) for i in record.history.item})
        elif which == "artifact":
            run.artifacts.append({
                "name": record.artifact.name, "type": record.artifact.type,
                "files": {e.path: e.local_path for e in record.artifact.manifest.contents},
            })
    # wandb stores every config value as {"value": v} (plus its own _wandb key)
    run.config = {k: (v["value"] if isinstance(v, dict) and set(v) == {"value"} else v)
                  for k, v in run.config.items() if k != "_wandb"}
    return run


def offline_runs(folder: Path) -> list[OfflineRun]:
    """Every offline run under ``folder`` (searched recursively), oldest first."""
    return [read_offline_run(p) for p in sorted(Path(folder).rglob("offline-run-*"))
            if p.is_dir()]
