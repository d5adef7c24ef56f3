"""Client of the Gymkit rollout service (``POST /v1/rollouts`` on ``gym serve`` or a head server).

Only the standard library is used. Rows go in as a JSON body; rollouts come back one NDJSON line
each as they finish, then a summary that accounts for every requested (task, rollout) pair. This
client accepts a batch only when the stream proves it complete: anything else -- a connection that
drops, a server that dies, a stream with no summary, a repeated pair, a summary that disagrees with
what arrived, or pairs the service reports as failed -- raises :class:`RolloutsIncomplete`, which
names the pairs that have no rollout. A request the service refuses (422 for a malformed row, 503
when no agent runs, ...) raises :class:`RolloutServiceError` carrying the response body.

Wire format matched: Gymkit's ``src/protocol/rollout_service.ts`` (the ``plan: true`` request field
and ``format``), whose rows are NeMo Gym 07d6b0d's rollout lines.
"""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union
from urllib.parse import urlsplit

__all__ = [
    "ROLLOUTS_PATH",
    "RolloutServiceError",
    "RolloutStream",
    "RolloutsIncomplete",
    "collect_rollouts",
    "stream_rollouts",
]

ROLLOUTS_PATH = "/v1/rollouts"
FORMATS = ("raw", "tokens")
Pair = Tuple[int, int]
_SHOWN_PAIRS = 20


def _pairs_text(pairs: Sequence[Pair]) -> str:
    shown = ", ".join(f"({t}, {r})" for t, r in pairs[:_SHOWN_PAIRS])
    more = f" and {len(pairs) - _SHOWN_PAIRS} more" if len(pairs) > _SHOWN_PAIRS else ""
    return shown + more


class RolloutServiceError(Exception):
    """The service refused the request before any rollout ran (HTTP status other than 200).

    ``status`` is the HTTP status, ``body`` the response text, and ``detail`` the parsed JSON body
    when it is JSON (a 422 lists every problem under ``detail`` with its ``loc``).
    """

    def __init__(self, status: int, body: str) -> None:
        self.status = status
        self.body = body
        try:
            self.detail: Any = json.loads(body)
        except ValueError:
            self.detail = None
        super().__init__(f"the rollout service answered {status}: {body[:2000]}")


class RolloutsIncomplete(Exception):
    """The service did not deliver every requested rollout, or the stream cannot be trusted.

    Attributes:
        reason: what went wrong, in words.
        missing: the (task, rollout) pairs with no rollout row. From the summary when one arrived,
            else from the plan line the service sent first; empty only if neither is known.
        failures: the summary's entries for the missing pairs (``failure_class``, ``error``, and for
            token export failures ``first_difference``); empty when no summary arrived.
        rows: from :func:`collect_rollouts`, every rollout row that did arrive, in arrival order (a
            trainer may decide to use them); from a stream, empty (its reader already has them).
        received: how many rollout rows arrived.
        summary: the summary line, when one arrived.
    """

    def __init__(
        self,
        reason: str,
        missing: Sequence[Pair],
        rows: Sequence[Dict[str, Any]],
        summary: Optional[Dict[str, Any]] = None,
        received: Optional[int] = None,
    ) -> None:
        self.reason = reason
        self.received = len(rows) if received is None else received
        self.missing: List[Pair] = list(missing)
        self.rows: List[Dict[str, Any]] = list(rows)
        self.summary = summary
        self.failures: List[Dict[str, Any]] = list(summary.get("missing", [])) if summary else []
        if self.missing:
            named = f"; missing (task, rollout): {_pairs_text(self.missing)}"
        else:
            named = "; the missing pairs are unknown (the service sent no plan line)"
        super().__init__(f"{reason} ({self.received} rollout rows arrived{named})")


class RolloutStream:
    """An iterator over rollout rows as they finish; raises at the end unless the batch is complete.

    Made by :func:`stream_rollouts`. After iteration ends normally, ``summary`` holds the service's
    summary line. ``plan`` holds the plan line (``pairs``: ``[task, first_rollout, count]`` per
    request row). ``close()`` (or leaving a ``with`` block) hangs up, which makes the service cancel
    the request's remaining rollouts.
    """

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self._connection = connection
        self._response = response
        self._seen: Set[Pair] = set()
        self._rows: List[Dict[str, Any]] = []
        self._keep_rows = False
        self._finished = False
        self.plan: Optional[Dict[str, Any]] = None
        self.summary: Optional[Dict[str, Any]] = None
        self.error_line: Optional[Dict[str, Any]] = None
        header = response.getheader("x-gymkit-requested")
        self.requested: Optional[int] = int(header) if header and header.isdigit() else None

    def __iter__(self) -> "RolloutStream":
        return self

    def __enter__(self) -> "RolloutStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Hangs up; the service stops the request's rollouts that have not finished."""
        self._finished = True
        try:
            self._connection.close()
        except OSError:
            pass

    @property
    def received(self) -> int:
        """How many rollout rows have arrived so far."""
        return len(self._seen)

    def _planned(self) -> List[Pair]:
        pairs: List[Pair] = []
        if self.plan:
            for task, first, count in self.plan.get("pairs", []):
                pairs.extend((task, r) for r in range(first, first + count))
        return pairs

    def _incomplete(self, reason: str) -> RolloutsIncomplete:
        self.close()
        if self.summary is not None and self.summary.get("missing"):
            missing = [(m["_ng_task_index"], m["_ng_rollout_index"]) for m in self.summary["missing"]]
        else:
            missing = []
            listed: Set[Pair] = set()
            for pair in self._planned():
                if pair not in self._seen and pair not in listed:
                    listed.add(pair)
                    missing.append(pair)
        return RolloutsIncomplete(reason, missing, self._rows, self.summary, self.received)

    def _read_line(self) -> Optional[bytes]:
        try:
            line = self._response.readline()
        except (OSError, http.client.HTTPException, ValueError) as error:
            raise self._incomplete(f"the rollout stream broke: {type(error).__name__}: {error}") from error
        if not line:
            return None
        if not line.endswith(b"\n"):
            raise self._incomplete("the rollout stream was cut in the middle of a line")
        return line

    def __next__(self) -> Dict[str, Any]:
        if self._finished:
            raise StopIteration
        while True:
            line = self._read_line()
            if line is None:
                self._finish()
                raise StopIteration
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                raise self._incomplete(f"the rollout stream has a line that is not JSON: {line[:200]!r}") from None
            if not isinstance(item, dict):
                raise self._incomplete(f"the rollout stream has a line that is not an object: {line[:200]!r}")
            # Rows always carry their pair; control lines never do.
            if isinstance(item.get("_ng_task_index"), int):
                if self.summary is not None:
                    raise self._incomplete("the rollout stream has a rollout row after its summary")
                pair = (item["_ng_task_index"], item.get("_ng_rollout_index"))
                if pair in self._seen:
                    raise self._incomplete(f"the rollout stream repeated (task, rollout) {pair}")
                self._seen.add(pair)  # type: ignore[arg-type]
                if self._keep_rows:
                    self._rows.append(item)
                return item
            kind = item.get("type")
            if kind == "plan" and self.plan is None and not self._seen and self.summary is None:
                self.plan = item
            elif kind == "summary" and self.summary is None:
                self.summary = item
            elif kind == "error" and self.error_line is None:
                self.error_line = item
            else:
                raise self._incomplete(f"the rollout stream has an unexpected line: {line[:200]!r}")

    def _finish(self) -> None:
        summary = self.summary
        if summary is None:
            if self.error_line is not None:
                raise self._incomplete(f"the rollout service failed: {self.error_line.get('message')}")
            raise self._incomplete("the rollout stream ended without a summary line (the service stopped or the connection was cut)")
        requested = summary.get("requested")
        succeeded = summary.get("succeeded")
        missing = summary.get("missing") or []
        if succeeded != self.received:
            raise self._incomplete(f"the summary counts {succeeded} succeeded rollouts but the stream carried {self.received}")
        for name, count in (("the x-gymkit-requested header", self.requested), ("the plan line", (self.plan or {}).get("requested"))):
            if count is not None and count != requested:
                raise self._incomplete(f"the summary counts {requested} requested rollouts but {name} says {count}")
        if not isinstance(requested, int) or succeeded + len(missing) != requested:
            raise self._incomplete(f"the summary does not add up: {succeeded} succeeded + {len(missing)} missing != {requested} requested")
        if missing:
            classes = ", ".join(f"{k}: {v}" for k, v in sorted((summary.get("failure_classes") or {}).items()))
            raise self._incomplete(f"{len(missing)} of {requested} requested rollouts are missing ({classes})")
        if self.error_line is not None:
            raise self._incomplete(f"the rollout service reported an error after a complete summary: {self.error_line.get('message')}")
        self.close()


def _request_body(
    rows: Sequence[Mapping[str, Any]],
    num_repeats: Union[int, Mapping[str, int], None],
    concurrency: Optional[int],
    format: str,
    responses_create_params: Optional[Mapping[str, Any]],
    agent: Optional[str],
    num_repeats_add_seed: Optional[bool],
    rollout_timeout_s: Optional[float],
) -> Dict[str, Any]:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    body: Dict[str, Any] = {"rows": [dict(row) for row in rows], "format": format, "plan": True}
    optional = {
        "num_repeats": dict(num_repeats) if isinstance(num_repeats, Mapping) else num_repeats,
        "concurrency": concurrency,
        "responses_create_params": dict(responses_create_params) if responses_create_params is not None else None,
        "agent": agent,
        "num_repeats_add_seed": num_repeats_add_seed,
        "rollout_timeout_s": rollout_timeout_s,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    return body


def stream_rollouts(
    base_url: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    num_repeats: Union[int, Mapping[str, int], None] = None,
    concurrency: Optional[int] = None,
    format: str = "raw",
    responses_create_params: Optional[Mapping[str, Any]] = None,
    agent: Optional[str] = None,
    num_repeats_add_seed: Optional[bool] = None,
    rollout_timeout_s: Optional[float] = None,
    timeout: Optional[float] = None,
    headers: Optional[Mapping[str, str]] = None,
) -> RolloutStream:
    """Sends ``rows`` to the rollout service and returns an iterator over rollouts as they finish.

    Args:
        base_url: the service (``http://host:port``; a URL ending in ``/v1/rollouts`` works too).
        rows: data rows as lines of a NeMo Gym input JSONL (``responses_create_params``, optional
            ``agent_ref``, the verifier's fields).
        num_repeats: rollouts per row, or a per-agent map such as ``{"my_agent": 8, "_default": 1}``.
        concurrency: rollouts in flight at once for this request (default: the service's).
        format: ``"raw"`` yields the scored rollouts; ``"tokens"`` yields each rollout's token
            export (``prompt_ids``, ``response_ids``, ``response_mask``, ``response_logprobs``,
            ``reward`` and the pair), as ``gym eval export --format tokens`` writes it. A rollout
            whose tokens cannot be exported is a failure (``tokens_unusable``) in the summary.
        responses_create_params: merged into every row's (temperature, top_p, max_output_tokens, ...).
        agent: agent for rows without ``agent_ref`` (default: the only agent, if exactly one runs).
        num_repeats_add_seed: use each rollout's index as its sampling seed.
        rollout_timeout_s: deadline of one whole rollout on the service (0: none).
        timeout: seconds to wait to connect and for each read; ``None`` (default) waits as long as
            rollouts take. A read that times out raises :class:`RolloutsIncomplete`.
        headers: extra request headers.

    Raises:
        RolloutServiceError: the service refused the request (its body is on the exception).
        RolloutsIncomplete: while iterating, as soon as the stream is shown to be broken, and at
            its end unless every requested pair arrived.
    """
    body = _request_body(rows, num_repeats, concurrency, format, responses_create_params, agent, num_repeats_add_seed, rollout_timeout_s)
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    path = parts.path.rstrip("/")
    if not path.endswith(ROLLOUTS_PATH):
        path += ROLLOUTS_PATH
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_class(parts.hostname, parts.port, timeout=timeout)
    payload = json.dumps(body).encode("utf-8")
    request_headers = {"content-type": "application/json", "accept": "application/x-ndjson", **(headers or {})}
    try:
        connection.request("POST", path, body=payload, headers=request_headers)
        response = connection.getresponse()
    except (OSError, http.client.HTTPException, socket.timeout) as error:
        connection.close()
        raise RolloutsIncomplete(f"could not send the request to {base_url}: {type(error).__name__}: {error}", [], []) from error
    if response.status != 200:
        try:
            text = response.read().decode("utf-8", errors="replace")
        except (OSError, http.client.HTTPException):
            text = ""
        connection.close()
        raise RolloutServiceError(response.status, text)
    return RolloutStream(connection, response)


def collect_rollouts(
    base_url: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    num_repeats: Union[int, Mapping[str, int], None] = None,
    concurrency: Optional[int] = None,
    format: str = "raw",
    responses_create_params: Optional[Mapping[str, Any]] = None,
    agent: Optional[str] = None,
    num_repeats_add_seed: Optional[bool] = None,
    rollout_timeout_s: Optional[float] = None,
    timeout: Optional[float] = None,
    headers: Optional[Mapping[str, str]] = None,
) -> List[Dict[str, Any]]:
    """Runs a whole batch and returns every rollout, sorted by (task, rollout).

    Takes the arguments of :func:`stream_rollouts`. Returns only if every requested pair came back;
    otherwise raises :class:`RolloutsIncomplete` (its ``rows`` holds what did arrive, ``missing``
    the pairs that did not) or :class:`RolloutServiceError`.
    """
    stream = stream_rollouts(
        base_url,
        rows,
        num_repeats=num_repeats,
        concurrency=concurrency,
        format=format,
        responses_create_params=responses_create_params,
        agent=agent,
        num_repeats_add_seed=num_repeats_add_seed,
        rollout_timeout_s=rollout_timeout_s,
        timeout=timeout,
        headers=headers,
    )
    stream._keep_rows = True
    with stream:
        for _ in stream:
            pass
    return sorted(stream._rows, key=lambda row: (row["_ng_task_index"], row["_ng_rollout_index"]))
