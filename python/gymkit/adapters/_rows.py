"""Shared pieces of the trainer adapters: trainer values made JSON-safe, and a batch whose rollouts
come back matched to the request rows that asked for them.

Standard library only.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ..client import RolloutsIncomplete, RolloutStream, stream_rollouts

__all__ = ["collect_by_row", "jsonable", "load_adapter_config", "rollouts_by_row", "setting"]


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, tuples and mapping types turned into plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars, torch tensors
    if callable(tolist):
        return jsonable(tolist())
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    # OmegaConf containers and other mapping-like objects
    if hasattr(value, "items"):
        return {str(k): jsonable(v) for k, v in value.items()}
    raise TypeError(f"cannot send a value of type {type(value).__name__} to the rollout service: {value!r}")


def setting(config: Any, dotted: str, default: Any = None) -> Any:
    """``config.a.b.c`` for attribute objects (OmegaConf, dataclasses) and mappings alike."""
    current = config
    for key in dotted.split("."):
        if current is None:
            return default
        if isinstance(current, Mapping):
            current = current.get(key, None)
        elif hasattr(current, key):
            current = getattr(current, key)
        elif callable(getattr(current, "get", None)):
            current = current.get(key, None)
        else:
            current = None
    return default if current is None else current


def load_adapter_config(path: Optional[str], key: str = "gymkit") -> Dict[str, Any]:
    """The ``key:`` block of a YAML (OmegaConf or PyYAML, whichever imports) or JSON file; ``$VARS`` expanded."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as handle:
        text = os.path.expandvars(handle.read())
    data: Any = None
    try:
        from omegaconf import OmegaConf  # type: ignore[import-not-found]

        data = OmegaConf.to_container(OmegaConf.create(text), resolve=True)
    except ImportError:
        try:
            import yaml  # type: ignore[import-untyped]

            data = yaml.safe_load(text)
        except ImportError:
            try:
                data = json.loads(text)
            except ValueError as error:
                raise ValueError(f"{path}: neither OmegaConf nor PyYAML is importable, and the file is not JSON ({error})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top, got {type(data).__name__}")
    block = data.get(key) or {}
    if not isinstance(block, dict):
        raise ValueError(f"{path}: `{key}:` must be a mapping, got {type(block).__name__}")
    return block


def _pair_owners(stream: RolloutStream, count: int) -> Dict[Tuple[int, int], int]:
    """(task, rollout) → index of the request row it belongs to, from the stream's plan line."""
    plan = stream.plan or {}
    pairs = plan.get("pairs") or []
    if len(pairs) != count:
        raise RolloutsIncomplete(f"the plan line lists {len(pairs)} request rows but {count} were sent", [], [])
    owners: Dict[Tuple[int, int], int] = {}
    for row_index, (task, first, repeats) in enumerate(pairs):
        if repeats != 1:
            raise RolloutsIncomplete(f"request row {row_index} was expanded to {repeats} rollouts, not 1", [], [])
        owners[(task, first)] = row_index
    return owners


def rollouts_by_row(
    base_url: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    format: str,
    **options: Any,
) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Yields ``(request row index, rollout)`` as rollouts finish, one rollout per row.

    Identical rows share a task on the service (their rollouts get consecutive indices); the plan
    line says which pair answers which row, so each row gets its own rollout back. The iterator
    raises :class:`RolloutsIncomplete` at the end unless every row's rollout arrived (and as soon as
    the stream is shown to be broken).
    """
    stream = stream_rollouts(base_url, rows, num_repeats=1, format=format, **options)
    owners: Optional[Dict[Tuple[int, int], int]] = None
    with stream:
        for rollout in stream:
            if owners is None:
                owners = _pair_owners(stream, len(rows))
            pair = (rollout["_ng_task_index"], rollout["_ng_rollout_index"])
            if pair not in owners:
                raise RolloutsIncomplete(f"the service returned (task, rollout) {pair}, which the plan did not list", [], [])
            yield owners[pair], rollout


def collect_by_row(base_url: str, rows: Sequence[Mapping[str, Any]], *, format: str, **options: Any) -> List[Dict[str, Any]]:
    """Every row's rollout, in row order; raises :class:`RolloutsIncomplete` unless all came back."""
    results: List[Optional[Dict[str, Any]]] = [None] * len(rows)
    for index, rollout in rollouts_by_row(base_url, rows, format=format, **options):
        results[index] = rollout
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:  # the stream already proved the batch complete; this guards the mapping itself
        raise RolloutsIncomplete(f"no rollout for request rows {missing}", [], [r for r in results if r is not None])
    return [r for r in results if r is not None]
