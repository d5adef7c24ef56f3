"""verl adapter: an ``AgentLoopManager`` whose ``generate_sequences`` runs each sample on Gymkit.

It plugs in where verl-recipe's NeMo Gym recipe plugs in (``nemo_gym/agent_loop.py`` at
verl-project/verl-recipe 48ea0a7, for verl's ``verl/experimental/agent_loop/agent_loop.py``, read at
volcengine/verl b178a3cd5): name the class in ``actor_rollout_ref.rollout.agent.agent_loop_manager_class``::

    actor_rollout_ref.rollout.agent.agent_loop_manager_class=gymkit.adapters.verl.GymkitAgentLoopManager
    actor_rollout_ref.rollout.agent.agent_loop_config_path=gymkit_verl.yaml   # its `gymkit:` block

Instead of verl's per-sample agent loops, each step sends every sample's Gym row to Gymkit's rollout
service with ``format: "tokens"`` and turns each token export line (prompt ids, response ids, loss
mask, logprobs, reward) into one ``_InternalAgentLoopOutput``, padded as verl pads its own (prompt
left-padded to ``rollout.prompt_length``, response right-padded and cut to
``rollout.response_length``), then hands them to verl's own ``AgentLoopWorker._postprocess`` for
the ``DataProto``. A sample without a rollout is never filled in: the step raises
:class:`gymkit.RolloutsIncomplete` naming the pairs.

verl (and torch) are imported only when ``GymkitAgentLoopManager`` is first looked up, so this module
imports with the standard library alone. The pure core -- :func:`rows_from_batch`,
:func:`batch_lengths`, :func:`pack_sample`, :func:`rollout_metrics`, and :func:`run_step` (one step
against the service, without verl) -- works on plain lists.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._rows import collect_by_row, jsonable, load_adapter_config, setting
from ._serve import GymServe, policy_url_args

__all__ = [
    "GymkitAgentLoopManager",
    "SETTINGS",
    "batch_lengths",
    "pack_sample",
    "rollout_metrics",
    "rows_from_batch",
    "run_step",
]

#: The keys of the ``gymkit:`` block of ``agent_loop_config_path`` (YAML, or JSON).
SETTINGS = {
    "url": "an already running rollout service (gym serve or a head server) whose policy reaches verl's engines",
    "serve_command": "instead of url: start `<serve_command> serve --port 0 <serve_args>` pointed at verl's rollout servers (e.g. [npx, gym])",
    "serve_args": "gym serve arguments: --config FILE / --resources-server ID, --model-type vllm_model, ++overrides",
    "serve_ready_timeout_s": "how long gym serve may take to print its address (default 600)",
    "concurrency": "rollouts in flight per step (default: the service's)",
    "rollout_timeout_s": "deadline of one rollout on the service (default: the service's)",
    "pad_token_id": "the id padding is written with (default: the tokenizer's pad token id, else 0)",
    "dynamic_lengths": "true: pad to the batch's longest prompt/response (capped by max_model_len), as the recipe does",
    "agent": "agent for rows without agent_ref",
}


# ---------------------------------------------------------------------------------------------
# Pure core (plain lists; no verl, no torch)
# ---------------------------------------------------------------------------------------------


def _column(batch: Mapping[str, Any], key: str, index: int) -> Any:
    return jsonable(batch[key][index]) if key in batch else None


def rows_from_batch(non_tensor_batch: Mapping[str, Any], size: int, *, temperature: Optional[float], top_p: Optional[float]) -> List[Dict[str, Any]]:
    """One Gym row per sample of a verl batch, with the step's sampling parameters.

    A sample is read from a ``gym_row`` column (the JSON text, or the object, of a whole Gym row,
    as ``gymkit.adapters.verl_dataset`` writes it for verl's parquet dataset), else from the columns
    verl-recipe's ``NeMoGymJSONLDataset`` makes: ``raw_prompt`` (the messages), ``agent_ref`` and
    ``extra_env_info`` (the row's other fields; ``_rcp_extra`` = its other responses_create_params).
    ``temperature`` and ``top_p`` replace the row's, as both upstream integrations do.
    """
    rows: List[Dict[str, Any]] = []
    for i in range(size):
        gym_row = _column(non_tensor_batch, "gym_row", i)
        if gym_row is not None:
            row = json.loads(gym_row) if isinstance(gym_row, str) else dict(gym_row)
            if not isinstance(row, dict) or not isinstance(row.get("responses_create_params"), dict):
                raise ValueError(f"sample {i}: its gym_row has no responses_create_params object")
            row["responses_create_params"] = dict(row["responses_create_params"])
        else:
            prompt = _column(non_tensor_batch, "raw_prompt", i)
            if prompt is None:
                raise ValueError(f"sample {i} has neither a gym_row nor a raw_prompt column: convert the data with python -m gymkit.adapters.verl_dataset")
            extra = _column(non_tensor_batch, "extra_env_info", i) or {}
            rcp = dict(extra.get("_rcp_extra") or {})
            rcp["input"] = prompt
            row = {"responses_create_params": rcp}
            agent_ref = _column(non_tensor_batch, "agent_ref", i)
            if agent_ref is not None:
                row["agent_ref"] = agent_ref
            for key, value in extra.items():
                if key != "_rcp_extra" and key not in row:
                    row[key] = value
        rcp = row["responses_create_params"]
        if temperature is not None:
            rcp["temperature"] = float(temperature)
        if top_p is not None:
            rcp["top_p"] = float(top_p)
        rows.append(row)
    return rows


def batch_lengths(
    token_rows: Sequence[Mapping[str, Any]],
    prompt_length: int,
    response_length: int,
    *,
    dynamic: bool = False,
    max_model_len: Optional[int] = None,
) -> Tuple[int, int]:
    """The (prompt, response) widths a step's tensors are padded to.

    By default verl's configured ``rollout.prompt_length`` / ``rollout.response_length``. With
    ``dynamic``, as the recipe does: the longest prompt of the batch, and the longest response capped
    by ``max_model_len`` minus that prompt width.
    """
    if not dynamic:
        return int(prompt_length), int(response_length)
    longest_prompt = max((len(t["prompt_ids"]) for t in token_rows), default=int(prompt_length))
    longest_response = max((len(t["response_ids"]) for t in token_rows), default=int(response_length))
    if max_model_len is not None:
        longest_response = max(0, min(longest_response, int(max_model_len) - longest_prompt))
    return longest_prompt, longest_response


def _pair(token_row: Mapping[str, Any]) -> str:
    return f"(task {token_row.get('_ng_task_index')}, rollout {token_row.get('_ng_rollout_index')})"


def pack_sample(token_row: Mapping[str, Any], prompt_length: int, response_length: int, pad_token_id: int = 0) -> Dict[str, Any]:
    """One token export line → the fields of verl's ``_InternalAgentLoopOutput``, as plain lists.

    Laid out as verl's ``AgentLoopWorker._agent_loop_postprocess`` lays out its own samples:
    ``prompt_ids`` left-padded to ``prompt_length``; ``response_ids`` / ``response_mask`` /
    ``response_logprobs`` cut to ``response_length`` and right-padded (mask 0, logprob 0.0);
    ``attention_mask`` 1 on every real token; ``input_ids`` = prompt + response;
    ``position_ids`` = running count of real tokens minus one, never below 0. ``reward_score`` is
    the rollout's reward, ``num_turns`` the number of model calls (runs of sampled tokens), and
    ``truncated`` says whether the response was cut. A prompt longer than ``prompt_length`` is an
    error: cutting it would train on a context the policy never saw.
    """
    prompt = [int(t) for t in token_row["prompt_ids"]]
    response = [int(t) for t in token_row["response_ids"]]
    mask = [int(m) for m in token_row["response_mask"]]
    logprobs = [float(v) for v in token_row["response_logprobs"]]
    if not (len(response) == len(mask) == len(logprobs)):
        raise ValueError(f"{_pair(token_row)}: response_ids, response_mask and response_logprobs differ in length ({len(response)}, {len(mask)}, {len(logprobs)})")
    if len(prompt) > prompt_length:
        raise ValueError(
            f"{_pair(token_row)}: its prompt is {len(prompt)} tokens, more than actor_rollout_ref.rollout.prompt_length={prompt_length}; "
            "raise prompt_length (data.max_prompt_length) or set dynamic_lengths: true in the gymkit block"
        )
    num_turns = sum(1 for i, m in enumerate(mask) if m == 1 and (i == 0 or mask[i - 1] != 1))
    truncated = len(response) > response_length
    response, mask, logprobs = response[:response_length], mask[:response_length], logprobs[:response_length]
    prompt_pad = prompt_length - len(prompt)
    response_pad = response_length - len(response)
    prompt_attention = [0] * prompt_pad + [1] * len(prompt)
    response_attention = [1] * len(response) + [0] * response_pad
    attention = prompt_attention + response_attention
    positions: List[int] = []
    seen = 0
    for a in attention:
        seen += a
        positions.append(max(seen - 1, 0))
    prompt_ids = [pad_token_id] * prompt_pad + prompt
    response_ids = response + [pad_token_id] * response_pad
    reward = token_row.get("reward")
    return {
        "prompt_ids": prompt_ids,
        "response_ids": response_ids,
        "input_ids": prompt_ids + response_ids,
        "position_ids": positions,
        "response_mask": mask + [0] * response_pad,
        "attention_mask": attention,
        "response_logprobs": logprobs + [0.0] * response_pad,
        "reward_score": None if reward is None else float(reward),
        "num_turns": num_turns,
        "truncated": truncated,
    }


def rollout_metrics(token_rows: Sequence[Mapping[str, Any]], packed: Sequence[Mapping[str, Any]]) -> Dict[str, float]:
    """The step's rollout metrics under the recipe's names, plus the reward mean per agent (``env/<agent>/reward_mean``)."""
    if not token_rows:
        return {}
    n = len(token_rows)

    def mean(values: Sequence[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    rewards = [float(t.get("reward") or 0.0) for t in token_rows]
    metrics = {
        "turns_per_sample/mean": mean([p["num_turns"] for p in packed]),
        "total_tokens_per_sample/mean": mean([len(t["prompt_ids"]) + len(t["response_ids"]) for t in token_rows]),
        "gen_tokens_per_sample/mean": mean([sum(t["response_mask"]) for t in token_rows]),
        "total_reward/mean": mean(rewards),
        "truncation_rate": sum(1 for p in packed if p["truncated"]) / n,
        "natural_termination_rate": sum(1 for p in packed if not p["truncated"]) / n,
    }
    by_agent: Dict[str, List[float]] = {}
    for t, r in zip(token_rows, rewards):
        name = (t.get("agent_ref") or {}).get("name", "unknown") if isinstance(t.get("agent_ref"), dict) else "unknown"
        by_agent.setdefault(name, []).append(r)
    for name, values in by_agent.items():
        metrics[f"env/{name}/reward_mean"] = mean(values)
    return metrics


def run_step(
    url: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    prompt_length: int,
    response_length: int,
    pad_token_id: int = 0,
    dynamic_lengths: bool = False,
    max_model_len: Optional[int] = None,
    **options: Any,
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """One step's rollouts, without verl: ``(token export lines, packed samples)``, both in row order.

    What :class:`GymkitAgentLoopManager` does before handing the samples to verl: one rollout per
    row with ``format: "tokens"`` (``options``: ``concurrency``, ``rollout_timeout_s``, ``agent``,
    ``timeout``), then :func:`batch_lengths` and :func:`pack_sample`. Raises
    :class:`gymkit.RolloutsIncomplete` unless every row's rollout came back usable.
    """
    token_rows = collect_by_row(url, rows, format="tokens", **options)
    widths = batch_lengths(token_rows, prompt_length, response_length, dynamic=dynamic_lengths, max_model_len=max_model_len)
    return token_rows, [pack_sample(t, widths[0], widths[1], pad_token_id) for t in token_rows]


# ---------------------------------------------------------------------------------------------
# The verl class, built on first use
# ---------------------------------------------------------------------------------------------


def _build_manager_class() -> type:
    import inspect

    import torch  # type: ignore[import-not-found]
    from verl.experimental.agent_loop.agent_loop import (  # type: ignore[import-not-found]
        AgentLoopManager,
        AgentLoopMetrics,
        AgentLoopWorker,
        _InternalAgentLoopOutput,
    )

    postprocess = AgentLoopWorker._postprocess
    postprocess_params = inspect.signature(postprocess).parameters

    class GymkitAgentLoopManager(AgentLoopManager):  # type: ignore[misc, valid-type]
        """verl's ``AgentLoopManager`` with rollouts from Gymkit; see :mod:`gymkit.adapters.verl`."""

        _gymkit_serve: Optional[GymServe] = None
        _gymkit_url: Optional[str] = None

        def _init_agent_loop_workers(self) -> None:
            # Gymkit runs the agents: no per-sample agent loop workers are started.
            self.agent_loop_workers = []

        def _gymkit_settings(self) -> Dict[str, Any]:
            path = setting(self.config, "actor_rollout_ref.rollout.agent.agent_loop_config_path")
            settings = load_adapter_config(path)
            unknown = sorted(set(settings) - set(SETTINGS))
            if unknown:
                raise ValueError(f"{path}: unknown key(s) {', '.join(unknown)} in the gymkit block; known: {', '.join(SETTINGS)}")
            if not settings.get("url") and not settings.get("serve_command"):
                env_url = os.environ.get("GYMKIT_SERVICE_URL")
                if not env_url:
                    raise ValueError(
                        f"no rollout service: set url or serve_command in the gymkit block of agent_loop_config_path ({path or 'not set'}), or GYMKIT_SERVICE_URL"
                    )
                settings["url"] = env_url
            return settings

        def _gymkit_ready(self) -> str:
            if self._gymkit_url:
                return self._gymkit_url
            settings = self._gymkit_settings()
            self.distillation_enabled = False  # read by newer verl's _postprocess
            if not hasattr(self, "reward_loop_worker_handles"):
                self.reward_loop_worker_handles = None
            if settings.get("url"):
                self._gymkit_url = str(settings["url"])
            else:
                addresses = list(getattr(self, "server_addresses", None) or [])
                base_urls = [(a if a.startswith("http") else f"http://{a}").rstrip("/") + "/v1" for a in addresses]
                model = setting(self.config, "actor_rollout_ref.model.path")
                command = settings["serve_command"]
                self._gymkit_serve = GymServe(
                    [command] if isinstance(command, str) else list(command),
                    list(settings.get("serve_args") or []) + policy_url_args(base_urls, model),
                    ready_timeout_s=float(settings.get("serve_ready_timeout_s", 600)),
                )
                self._gymkit_url = self._gymkit_serve.url
            self._gymkit = settings
            return self._gymkit_url

        def _gymkit_pad_token_id(self) -> int:
            configured = self._gymkit.get("pad_token_id")
            if configured is not None:
                return int(configured)
            tokenizer = getattr(self, "tokenizer", None) or getattr(self, "_tokenizer", None)
            pad = getattr(tokenizer, "pad_token_id", None)
            return int(pad) if pad is not None else 0

        def generate_sequences(self, prompts: Any) -> Any:
            url = self._gymkit_ready()
            rollout = setting(self.config, "actor_rollout_ref.rollout")
            validate = bool(prompts.meta_info.get("validate", False))
            sampling = "val_kwargs." if validate else ""
            rows = rows_from_batch(
                prompts.non_tensor_batch,
                len(prompts),
                temperature=setting(rollout, sampling + "temperature"),
                top_p=setting(rollout, sampling + "top_p"),
            )
            options = {k: self._gymkit[k] for k in ("concurrency", "rollout_timeout_s", "agent") if self._gymkit.get(k) is not None}
            token_rows, packed = run_step(
                url,
                rows,
                prompt_length=int(setting(rollout, "prompt_length")),
                response_length=int(setting(rollout, "response_length")),
                pad_token_id=self._gymkit_pad_token_id(),
                dynamic_lengths=bool(self._gymkit.get("dynamic_lengths")),
                max_model_len=setting(rollout, "max_model_len"),
                **options,
            )
            self.last_token_rows = token_rows  # the step's token export lines, in sample order
            outputs = [_to_verl_output(p, t) for p, t in zip(packed, token_rows)]
            extra: Dict[str, Any] = {}
            if "input_non_tensor_batch" in postprocess_params:
                extra["input_non_tensor_batch"] = prompts.non_tensor_batch
            if "validate" in postprocess_params:
                extra["validate"] = validate
            output = postprocess(self, outputs, **extra)
            output.meta_info["global_steps"] = prompts.meta_info.get("global_steps", -1)
            output.meta_info["timing"] = {}
            output.meta_info["rollout_metrics"] = rollout_metrics(token_rows, packed)
            return output

        def shutdown_gymkit(self) -> None:
            """Stops the gym serve this manager started (it also stops when the interpreter exits)."""
            if self._gymkit_serve is not None:
                self._gymkit_serve.stop()

    def _to_verl_output(p: Mapping[str, Any], token_row: Mapping[str, Any]) -> Any:
        def row(values: Sequence[Any], dtype: Any) -> Any:
            return torch.tensor([list(values)], dtype=dtype)

        return _InternalAgentLoopOutput(
            prompt_ids=row(p["prompt_ids"], torch.long),
            response_ids=row(p["response_ids"], torch.long),
            input_ids=row(p["input_ids"], torch.long),
            position_ids=row(p["position_ids"], torch.long),
            response_mask=row(p["response_mask"], torch.long),
            attention_mask=row(p["attention_mask"], torch.long),
            response_logprobs=row(p["response_logprobs"], torch.float32),
            routed_experts=None,
            multi_modal_inputs={},
            reward_score=p["reward_score"],
            num_turns=p["num_turns"],
            metrics=AgentLoopMetrics(),
            extra_fields={"gymkit_pair": [token_row.get("_ng_task_index"), token_row.get("_ng_rollout_index")]},
        )

    GymkitAgentLoopManager.__module__ = __name__
    return GymkitAgentLoopManager


_built: Dict[str, type] = {}


def __getattr__(name: str) -> Any:
    # PEP 562: verl resolves the dotted name with getattr, which builds the subclass on first use.
    if name == "GymkitAgentLoopManager":
        if name not in _built:
            try:
                _built[name] = _build_manager_class()
            except ImportError as error:
                raise ImportError(f"gymkit.adapters.verl.GymkitAgentLoopManager needs verl (and torch) installed: {error}") from error
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
