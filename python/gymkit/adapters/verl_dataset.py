"""Gym JSONL → the data verl trains on, for :mod:`gymkit.adapters.verl`.

    python -m gymkit.adapters.verl_dataset train.jsonl train_verl.jsonl [--agent NAME]
    python -m gymkit.adapters.verl_dataset train.jsonl train_verl.parquet [--agent NAME]

``.jsonl`` output: the Gym rows themselves, checked and made ready for the JSONL dataset class of
verl-recipe's NeMo Gym recipe (``NeMoGymJSONLDataset`` in ``nemo_gym/dataset.py`` at
verl-project/verl-recipe 48ea0a7, named with ``data.custom_cls``): every row has
``responses_create_params.input`` and an ``agent_ref`` (``--agent`` fills rows without one, as that
class refuses them). ``.parquet`` output (needs pyarrow): verl's own ``RLHFDataset`` schema --
``data_source`` (``gymkit/<agent>``), ``prompt`` (the input messages as ``{role, content}`` text),
``ability``, ``reward_model``, ``extra_info`` (``index``, ``agent``) -- plus ``gym_row``, the whole
row as JSON text, which is what the adapter sends (JSON text keeps parquet's schema flat however the
rows differ).

A bad line is an error naming the file, the line and the key. Standard library only, except pyarrow
for parquet.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, Iterator, List, Optional, Sequence

__all__ = ["ConversionError", "convert", "prompt_messages", "read_gym_rows", "to_parquet_record"]


class ConversionError(ValueError):
    """A row that cannot be converted; the message names the file and line."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""


def prompt_messages(rcp_input: Any) -> List[Dict[str, str]]:
    """``responses_create_params.input`` as chat messages ``{role, content}`` (text parts joined; items without a role left out)."""
    if isinstance(rcp_input, str):
        return [{"role": "user", "content": rcp_input}]
    return [{"role": str(item["role"]), "content": _text(item.get("content"))} for item in rcp_input if isinstance(item, dict) and item.get("role")]


def read_gym_rows(path: str, agent: Optional[str] = None) -> Iterator[Dict[str, Any]]:
    """The rows of a Gym JSONL, each checked; ``agent`` becomes the ``agent_ref`` of rows without one."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except ValueError as error:
                raise ConversionError(f"{where}: not JSON ({error})") from None
            if not isinstance(row, dict):
                raise ConversionError(f"{where}: a row must be a JSON object, got {type(row).__name__}")
            rcp = row.get("responses_create_params")
            if not isinstance(rcp, dict):
                raise ConversionError(f"{where}: no responses_create_params object (each Gym row carries the model request there)")
            if not isinstance(rcp.get("input"), (str, list)) or not rcp["input"]:
                raise ConversionError(f"{where}: responses_create_params.input must be a non-empty string or list of messages")
            ref = row.get("agent_ref")
            if ref is None:
                if not agent:
                    raise ConversionError(f"{where}: no agent_ref; pass --agent NAME to use one agent for rows without it")
                row["agent_ref"] = {"type": "responses_api_agents", "name": agent}
            elif not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
                raise ConversionError(f'{where}: agent_ref must be an object with a name, e.g. {{"name": "my_agent"}}')
            yield row


def to_parquet_record(row: Dict[str, Any], index: int) -> Dict[str, Any]:
    """One row of verl's RLHFDataset schema for a Gym row."""
    agent = row["agent_ref"]["name"]
    return {
        "data_source": f"gymkit/{agent}",
        "prompt": prompt_messages(row["responses_create_params"]["input"]),
        "ability": "agent",
        "reward_model": {"style": "gymkit", "ground_truth": ""},
        "extra_info": {"index": index, "agent": agent},
        "gym_row": json.dumps(row, ensure_ascii=False),
    }


def convert(source: str, target: str, agent: Optional[str] = None) -> int:
    """Writes ``target`` (.jsonl or .parquet) from the Gym JSONL ``source``; returns the row count."""
    if target.endswith(".parquet"):
        try:
            import pyarrow  # type: ignore[import-not-found]
            import pyarrow.parquet as parquet  # type: ignore[import-not-found]
        except ImportError:
            jsonl = target[: -len(".parquet")] + ".jsonl"
            raise ConversionError(
                f"writing {target} needs pyarrow, which is not importable here; write JSONL instead "
                f"(python -m gymkit.adapters.verl_dataset {source} {jsonl}) and read it with data.custom_cls"
            ) from None
        records = [to_parquet_record(row, i) for i, row in enumerate(read_gym_rows(source, agent))]
        parquet.write_table(pyarrow.Table.from_pylist(records), target)
        return len(records)
    if not target.endswith(".jsonl"):
        raise ConversionError(f"{target}: the output must end in .jsonl or .parquet")
    count = 0
    rows = list(read_gym_rows(source, agent))  # all checked before anything is written
    with open(target, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gymkit.adapters.verl_dataset", description="Gym JSONL → verl data (JSONL for data.custom_cls, or parquet)")
    parser.add_argument("source", help="a Gym JSONL (rows with responses_create_params, agent_ref, verifier fields)")
    parser.add_argument("target", help="OUT.jsonl or OUT.parquet")
    parser.add_argument("--agent", help="agent_ref name for rows without one")
    args = parser.parse_args(argv)
    try:
        count = convert(args.source, args.target, args.agent)
    except (ConversionError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {count} rows to {args.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
