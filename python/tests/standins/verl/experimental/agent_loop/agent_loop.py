"""Stand-in for verl.experimental.agent_loop.agent_loop (tests only; see ../../../README.md).

Written from verl b178a3cd5 for the names gymkit.adapters.verl uses. Tensors are the stand-in torch's
(rows of plain lists); the batch is a dict of lists.
"""

from verl.protocol import DataProto


class AgentLoopMetrics:
    def __init__(self, generate_sequences=0.0, tool_calls=0.0, num_preempted=-1):
        self.generate_sequences = generate_sequences
        self.tool_calls = tool_calls
        self.num_preempted = num_preempted

    def model_dump(self):
        return dict(vars(self))


_FIELDS = ("prompt_ids", "response_ids", "input_ids", "position_ids", "response_mask", "attention_mask", "metrics")
_OPTIONAL = {
    "response_logprobs": None,
    "routed_experts": None,
    "multi_modal_inputs": None,
    "multi_modal_data": None,
    "reward_score": None,
    "num_turns": 0,
    "extra_fields": None,
}


class _InternalAgentLoopOutput:
    """The padded per-sample output: every field verl declares, required ones checked."""

    def __init__(self, **fields):
        missing = [f for f in _FIELDS if f not in fields]
        if missing:
            raise TypeError(f"_InternalAgentLoopOutput missing fields: {missing}")
        unknown = set(fields) - set(_FIELDS) - set(_OPTIONAL)
        if unknown:
            raise TypeError(f"_InternalAgentLoopOutput has no fields {sorted(unknown)}")
        for name, default in _OPTIONAL.items():
            setattr(self, name, fields.get(name, default))
        for name in _FIELDS:
            setattr(self, name, fields[name])
        if self.extra_fields is None:
            self.extra_fields = {}


def _rows(tensors):
    out = []
    for t in tensors:
        rows = t.tolist()
        assert len(rows) == 1, "each sample's tensors have batch size 1"
        out.append(rows[0])
    return out


class AgentLoopWorker:
    def _postprocess(self, inputs):
        """verl's batch layout: stacked tensors, rollout_log_probs, rm_scores at the last response position."""
        prompts = _rows([i.prompt_ids for i in inputs])
        responses = _rows([i.response_ids for i in inputs])
        response_mask = _rows([i.response_mask for i in inputs])
        attention_mask = _rows([i.attention_mask for i in inputs])
        batch = {
            "prompts": prompts,
            "responses": responses,
            "response_mask": response_mask,
            "input_ids": _rows([i.input_ids for i in inputs]),
            "attention_mask": attention_mask,
            "position_ids": _rows([i.position_ids for i in inputs]),
        }
        if inputs[0].response_logprobs is not None:
            batch["rollout_log_probs"] = _rows([i.response_logprobs for i in inputs])
        scores = [i.reward_score for i in inputs]
        if all(s is not None for s in scores):
            prompt_length = len(prompts[0])
            rm_scores = []
            for row, mask, score in zip(response_mask, attention_mask, scores):
                last = sum(mask[prompt_length:]) - 1
                values = [0.0] * len(row)
                values[last] = float(score)
                rm_scores.append(values)
            batch["rm_scores"] = rm_scores
        non_tensor_batch = {"__num_turns__": [i.num_turns for i in inputs]}
        keys = set(k for i in inputs for k in i.extra_fields)
        for key in keys:
            non_tensor_batch[key] = [i.extra_fields.get(key) for i in inputs]
        return DataProto(batch=batch, non_tensor_batch=non_tensor_batch, meta_info={"metrics": [i.metrics.model_dump() for i in inputs]})


class AgentLoopManager:
    def __init__(self, config, worker_group=None, rollout_resource_pool=None, rm_resource_pool=None):
        self.config = config
        self.worker_group = worker_group
        self._initialize_llm_servers(rollout_resource_pool)
        self._init_agent_loop_workers()

    def _initialize_llm_servers(self, rollout_resource_pool):
        # verl starts its rollout replicas here; the stand-in reads their "host:port" from the config.
        self.server_addresses = list(self.config["standin_server_addresses"])

    def _init_agent_loop_workers(self):
        raise AssertionError("the stand-in's agent loop workers must not be started by the Gymkit manager")

    def generate_sequences(self, prompts):
        raise AssertionError("the Gymkit manager must replace generate_sequences")
