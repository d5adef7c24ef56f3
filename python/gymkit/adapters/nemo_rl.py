"""NeMo RL adapter: the ``NemoGym`` environment actor, backed by Gymkit's rollout service.

NeMo RL drives NeMo Gym through a Ray actor, ``NemoGym`` in ``nemo_rl/environments/nemo_gym.py``
(NVIDIA-NeMo/RL 7ea279abf), created by ``spinup_nemo_gym_actor`` and consumed by
``run_async_nemo_gym_rollout`` in ``nemo_rl/experience/rollouts.py``. :class:`GymkitNemoGym` has the
same methods with the same return shapes -- ``_spinup()``, ``set_tokenizer(tokenizer)``,
``health_check()``, the async generator ``run_rollouts(examples, timer_prefix,
deduplicate_multimodal_data=False)`` yielding ``(row index, result, timing metrics or None)`` where
``result`` is ``{"message_log", "input_message_log", "full_result"}``, ``shutdown()``, and ``step`` /
``global_post_process_and_metrics`` that raise ``NotImplementedError`` -- so NeMo RL's rollout loop
runs unchanged. :func:`spinup_gymkit_actor` takes ``spinup_nemo_gym_actor``'s arguments.

Each batch goes to the service as one request of raw rollouts (NeMo RL keeps the whole rollout as
``full_result`` for its metrics and penalties). Each rollout's model calls become NeMo RL's message
log as NeMo RL builds it: per call with sampled ids, a ``user`` message of the ids the call's prompt
adds, then an ``assistant`` message of the sampled ids with ``generation_logprobs``; token ids are
plain lists (NeMo RL's driver makes tensors of them). A call whose prompt does not continue the ids
before it, or a batch that is not complete, raises :class:`gymkit.RolloutsIncomplete` naming the
pairs: the step fails rather than train on a short or off-policy batch.

Where the engines come from (the ``gymkit`` key of the NeMo RL ``env.nemo_gym`` config, which
reaches this actor as ``initial_global_config_dict``): ``url`` of a running ``gym serve`` / head
server, or ``serve_command`` (+ ``serve_args``) to start ``gym serve`` pointed at NeMo RL's vLLM
servers (``base_urls``) serving ``model_name``, as the upstream actor starts NeMo Gym's servers.

Standard library only; ray is imported by :func:`ray_actor_class` / :func:`spinup_gymkit_actor`.
"""

from __future__ import annotations

import asyncio
import http.client
import math
import time
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from ..client import RolloutsIncomplete
from ._rows import jsonable, rollouts_by_row
from ._serve import GymServe, policy_url_args

__all__ = ["GymkitNemoGym", "NonContiguousTokens", "nemo_rl_result", "ray_actor_class", "spinup_gymkit_actor"]

#: Keys of the ``gymkit`` block (in ``initial_global_config_dict``, or top level of the actor's config).
SETTINGS = ("url", "serve_command", "serve_args", "serve_ready_timeout_s", "concurrency", "rollout_timeout_s", "agent")


class NonContiguousTokens(ValueError):
    """A model call's prompt does not start with every id the rollout had so far."""

    def __init__(self, message: str, first_difference: int) -> None:
        super().__init__(message)
        self.first_difference = first_difference


def _first_difference(seen: Sequence[int], prompt: Sequence[int]) -> int:
    for i in range(min(len(seen), len(prompt))):
        if seen[i] != prompt[i]:
            return i
    return len(prompt) if len(seen) > len(prompt) else -1


def nemo_rl_result(rollout: Dict[str, Any], tokenizer: Any = None) -> Dict[str, Any]:
    """One raw rollout → NeMo RL's result dict ``{"message_log", "input_message_log", "full_result"}``.

    Output items with non-empty ``generation_token_ids`` are the trainable calls (NeMo RL skips the
    others, and so does this). Their token fields are moved out of ``full_result`` into the message
    log; with a tokenizer, each such item gets ``prompt_str`` / ``generation_str`` as upstream does.
    Raises :class:`NonContiguousTokens` with the first differing position, or ``ValueError`` when
    the rollout has no sampled tokens at all.
    """
    message_log: List[Dict[str, Any]] = []
    seen: List[int] = []
    decoded: List[Tuple[Dict[str, Any], List[int], List[int]]] = []
    pair = f"(task {rollout.get('_ng_task_index')}, rollout {rollout.get('_ng_rollout_index')})"
    output = ((rollout.get("response") or {}).get("output")) or []
    for call, item in enumerate(i for i in output if isinstance(i, dict) and i.get("generation_token_ids")):
        prompt = [int(t) for t in item["prompt_token_ids"]]
        at = _first_difference(seen, prompt)
        if at != -1:
            raise NonContiguousTokens(
                f"{pair}: model call {call + 1} does not continue the ids before it (first difference at token {at} of {len(seen)}); "
                "collect with on_policy_prompts: true on the policy model",
                at,
            )
        generated = [int(t) for t in item.pop("generation_token_ids")]
        logprobs = [float(v) for v in (item.pop("generation_log_probs", None) or [])]
        if len(logprobs) != len(generated):
            raise ValueError(f"{pair}: model call {call + 1} has {len(generated)} generated ids but {len(logprobs)} logprobs")
        item.pop("prompt_token_ids")
        message_log.append({"role": "user", "content": "", "token_ids": prompt[len(seen) :]})
        message_log.append({"role": "assistant", "content": "", "token_ids": generated, "generation_logprobs": logprobs})
        seen = prompt + generated
        decoded.append((item, prompt, generated))
    if not message_log:
        raise ValueError(
            f"{pair}: the rollout carries no sampled token ids; the policy model must record them "
            "(return_token_id_information: true on vllm_model), and its first prompt must fit the engine's max_model_len"
        )
    if tokenizer is not None:
        for item, prompt, generated in decoded:
            item["prompt_str"] = tokenizer.decode(prompt)
            item["generation_str"] = tokenizer.decode(generated)
    return {"message_log": message_log, "input_message_log": message_log[:1], "full_result": rollout}


def _settings(cfg: Mapping[str, Any]) -> Dict[str, Any]:
    block = dict(cfg.get("gymkit") or (cfg.get("initial_global_config_dict") or {}).get("gymkit") or {})
    unknown = sorted(set(block) - set(SETTINGS))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)} in the gymkit block; known: {', '.join(SETTINGS)}")
    if not block.get("url") and not block.get("serve_command"):
        raise ValueError("the gymkit block needs url (a running gym serve or head server) or serve_command (start gym serve against base_urls)")
    return block


class GymkitNemoGym:
    """NeMo RL's ``NemoGym`` environment actor, on Gymkit. Wrap it with :func:`ray_actor_class`."""

    def __init__(self, cfg: Mapping[str, Any]) -> None:
        self.cfg = dict(cfg)
        self.settings = _settings(self.cfg)
        self.url: Optional[str] = None
        self.serve: Optional[GymServe] = None
        self._tokenizer: Any = None

    def _require_spinup(self) -> str:
        if not self.url:
            raise RuntimeError("the Gymkit NemoGym actor was not spun up: call _spinup() first (a restarted Ray actor must be spun up again)")
        return self.url

    def _spinup(self) -> None:
        """Connects to ``url``, or starts ``gym serve`` against ``base_urls``; then checks the service answers."""
        if self.settings.get("url"):
            self.url = str(self.settings["url"]).rstrip("/")
        else:
            command = self.settings["serve_command"]
            self.serve = GymServe(
                [command] if isinstance(command, str) else list(command),
                list(self.settings.get("serve_args") or []) + policy_url_args(list(self.cfg.get("base_urls") or []), self.cfg.get("model_name")),
                ready_timeout_s=float(self.settings.get("serve_ready_timeout_s", 600)),
            )
            self.url = self.serve.url
        self.health_check()

    def set_tokenizer(self, tokenizer: Any) -> None:
        """Installs the tokenizer that fills ``prompt_str`` / ``generation_str`` (optional here)."""
        self._tokenizer = tokenizer

    def health_check(self) -> None:
        """Raises unless the rollout service answers ``GET /v1/rollouts`` (and gym serve, if started here, runs)."""
        url = self._require_spinup()
        if self.serve is not None and not self.serve.alive():
            raise RuntimeError(f"gym serve exited; its last output:\n{self.serve.output()}")
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
        try:
            connection.request("GET", parts.path.rstrip("/") + "/v1/rollouts")
            response = connection.getresponse()
            response.read()
        except OSError as error:
            raise RuntimeError(f"the rollout service at {url} does not answer: {error}") from error
        finally:
            connection.close()
        if response.status != 200:
            raise RuntimeError(f"the rollout service at {url} answered GET /v1/rollouts with {response.status}")

    async def run_rollouts(
        self,
        nemo_gym_examples: List[Dict[str, Any]],
        timer_prefix: str,
        deduplicate_multimodal_data: bool = False,
    ) -> AsyncIterator[Tuple[int, Dict[str, Any], Optional[Dict[str, float]]]]:
        """Yields ``(row["_rowidx"], result, timing)`` per rollout as they finish; ``timing`` only with the last.

        The last one is held back until the service's summary has proved the batch complete, so a
        batch with a missing rollout ends in :class:`gymkit.RolloutsIncomplete`, never in a short
        final group.
        """
        url = self._require_spinup()
        if not nemo_gym_examples:
            raise ValueError("NeMo-Gym rollout batch must not be empty")
        started = time.perf_counter()
        waited = 0.0
        post = 0.0
        rows = [{k: jsonable(v) for k, v in row.items() if k != "_rowidx"} for row in nemo_gym_examples]
        options = {k: self.settings[k] for k in ("concurrency", "rollout_timeout_s", "agent") if self.settings.get(k) is not None}
        stream = rollouts_by_row(url, rows, format="raw", **options)
        loop = asyncio.get_event_loop()
        done = object()
        held: Optional[Tuple[int, Dict[str, Any]]] = None
        count = 0
        while True:
            t0 = time.perf_counter()
            item = await loop.run_in_executor(None, next, stream, done)
            waited += time.perf_counter() - t0
            if item is done:
                break
            index, rollout = item  # type: ignore[misc]
            t1 = time.perf_counter()
            try:
                result = nemo_rl_result(rollout, self._tokenizer)
            except NonContiguousTokens as error:
                stream.close()
                pair = (rollout["_ng_task_index"], rollout["_ng_rollout_index"])
                raise RolloutsIncomplete(f"a rollout's tokens cannot be trained on: {error}", [pair], []) from error
            if any(math.isnan(v) for m in result["message_log"] for v in m.get("generation_logprobs", ())):
                stream.close()
                raise RuntimeError("Generation logprobs contain NaN")
            post += time.perf_counter() - t1
            count += 1
            row_index = nemo_gym_examples[index].get("_rowidx", index)
            if count == len(nemo_gym_examples):
                held = (row_index, result)
                continue
            yield row_index, result, None
        if held is None:  # the stream ends by raising when rows are missing; this guards the count
            raise RolloutsIncomplete(f"the service returned {count} of {len(nemo_gym_examples)} rollouts", [], [])
        total = time.perf_counter() - started
        timing = {
            f"{timer_prefix}/await_results": waited,
            f"{timer_prefix}/postprocess_results": post,
            f"{timer_prefix}/postprocess_results_pct": 100 * post / total if total > 0 else 0.0,
        }
        yield held[0], held[1], timing

    def shutdown(self) -> None:
        """Stops the gym serve started by :meth:`_spinup`, if any."""
        if self.serve is not None:
            serve, self.serve = self.serve, None
            serve.stop()
        self.url = None

    def step(self, message_log_batch: Any, metadata: Any) -> Any:
        raise NotImplementedError("Gymkit runs whole rollouts; NeMo RL's NeMo Gym path does not call step")

    def global_post_process_and_metrics(self, batch: Any) -> Any:
        raise NotImplementedError("Gymkit runs whole rollouts; NeMo RL's NeMo Gym path does not call global_post_process_and_metrics")


def ray_actor_class() -> Any:
    """:class:`GymkitNemoGym` as a Ray actor class, with the options of upstream's ``NemoGym``."""
    import ray  # type: ignore[import-not-found]

    return ray.remote(max_restarts=-1, max_task_retries=-1)(GymkitNemoGym)


def spinup_gymkit_actor(env_configs: Mapping[str, Any], base_urls: List[str], model_name: str, *, tokenizer: Any = None, **_unused: Any) -> Any:
    """Drop-in for NeMo RL's ``spinup_nemo_gym_actor``: an actor that is spun up and has the tokenizer.

    ``env_configs["nemo_gym"]`` is NeMo RL's ``env.nemo_gym`` block; its ``gymkit`` key configures
    the service. Arguments NeMo RL passes that Gymkit has no use for (router replay, fastokens) are
    accepted and ignored.
    """
    import ray  # type: ignore[import-not-found]

    nemo_gym = dict(env_configs["nemo_gym"])
    cfg = {"model_name": model_name, "base_urls": list(base_urls), "initial_global_config_dict": nemo_gym, "gymkit": nemo_gym.get("gymkit")}
    actor = ray_actor_class().remote(cfg)
    ray.get(actor._spinup.remote())
    if tokenizer is not None:
        ray.get(actor.set_tokenizer.remote(tokenizer))
    return actor
