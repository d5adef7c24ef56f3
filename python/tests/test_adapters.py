"""The verl and NeMo RL adapters, against a real ``gym serve`` (started by test/python_client.test.ts).

verl, NeMo RL, ray and torch cannot be installed here, so ``tests/standins`` (put on ``sys.path`` by
this module only) provides the few upstream names the adapters touch; see its README. Every output
field is checked against the service's own token export (``format: "tokens"``) of the same rows;
the fake engine is deterministic, so the same rows give the same ids and logprobs.

Environment (beyond tests/test_service.py's ``GYMKIT_SERVICE_URL``, ``GYMKIT_TEST_ROWS``,
``GYMKIT_TEST_OUT``): ``GYMKIT_GYM_COMMAND`` (JSON list: how to run ``gym``), ``GYMKIT_SERVE_ARGS``
(JSON list: gym serve's config arguments, without the model URL), ``GYMKIT_ENGINE_ADDRESS`` (the
fake engine's ``host:port``, standing for a trainer's inference server). Without them every test
that needs the service is skipped; the pure-function tests always run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "standins"))

from gymkit import RolloutsIncomplete, collect_rollouts  # noqa: E402
from gymkit.adapters import nemo_rl, verl, verl_dataset  # noqa: E402

URL = os.environ.get("GYMKIT_SERVICE_URL")
ROWS_FILE = os.environ.get("GYMKIT_TEST_ROWS")
OUT = os.environ.get("GYMKIT_TEST_OUT")
GYM_COMMAND = json.loads(os.environ.get("GYMKIT_GYM_COMMAND", "null"))
SERVE_ARGS = json.loads(os.environ.get("GYMKIT_SERVE_ARGS", "null"))
ENGINE = os.environ.get("GYMKIT_ENGINE_ADDRESS")
LIVE = bool(URL and ROWS_FILE and OUT)
MODEL = "Qwen/Qwen3-0.6B"


def groups():
    with open(ROWS_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def export_of(rows):
    """The service's token export of each row, in row order: one request of the distinct rows (task
    i is the i-th distinct row), so a repeated row is checked against its first rollout."""
    distinct = []
    for row in rows:
        if row not in distinct:
            distinct.append(row)
    export = collect_rollouts(URL, distinct, format="tokens", concurrency=8)
    assert [t["_ng_task_index"] for t in export] == list(range(len(distinct)))
    return [export[distinct.index(row)] for row in rows]


# ---------------------------------------------------------------------------------------------
# Pure functions
# ---------------------------------------------------------------------------------------------

LINE = {
    "prompt_ids": [11, 12, 13],
    "response_ids": [21, 22, 5, 6, 23],
    "response_mask": [1, 1, 0, 0, 1],
    "response_logprobs": [-0.5, -0.25, 0.0, 0.0, -1.0],
    "reward": 1.0,
    "_ng_task_index": 4,
    "_ng_rollout_index": 1,
    "agent_ref": {"name": "a"},
}


class PackSample(unittest.TestCase):
    def test_pads_prompt_left_and_response_right(self):
        p = verl.pack_sample(LINE, 5, 7, pad_token_id=99)
        self.assertEqual(p["prompt_ids"], [99, 99, 11, 12, 13])
        self.assertEqual(p["response_ids"], [21, 22, 5, 6, 23, 99, 99])
        self.assertEqual(p["input_ids"], [99, 99, 11, 12, 13, 21, 22, 5, 6, 23, 99, 99])
        self.assertEqual(p["response_mask"], [1, 1, 0, 0, 1, 0, 0])
        self.assertEqual(p["attention_mask"], [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0])
        self.assertEqual(p["position_ids"], [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7, 7])
        self.assertEqual(p["response_logprobs"], [-0.5, -0.25, 0.0, 0.0, -1.0, 0.0, 0.0])
        self.assertEqual(p["reward_score"], 1.0)
        self.assertEqual(p["num_turns"], 2)
        self.assertFalse(p["truncated"])

    def test_cuts_the_response_to_response_length(self):
        p = verl.pack_sample(LINE, 3, 3)
        self.assertEqual(p["prompt_ids"], [11, 12, 13])
        self.assertEqual(p["response_ids"], [21, 22, 5])
        self.assertEqual(p["response_mask"], [1, 1, 0])
        self.assertEqual(p["response_logprobs"], [-0.5, -0.25, 0.0])
        self.assertEqual(p["attention_mask"], [1] * 6)
        self.assertTrue(p["truncated"])
        self.assertEqual(p["num_turns"], 2)  # counted before the cut

    def test_a_prompt_longer_than_prompt_length_is_refused_with_the_pair(self):
        with self.assertRaises(ValueError) as caught:
            verl.pack_sample(LINE, 2, 8)
        self.assertIn("(task 4, rollout 1)", str(caught.exception))
        self.assertIn("prompt_length=2", str(caught.exception))

    def test_dynamic_lengths_follow_the_batch(self):
        other = dict(LINE, prompt_ids=[1] * 6, response_ids=[2] * 9, response_mask=[1] * 9, response_logprobs=[0.0] * 9)
        self.assertEqual(verl.batch_lengths([LINE, other], 100, 200), (100, 200))
        self.assertEqual(verl.batch_lengths([LINE, other], 100, 200, dynamic=True), (6, 9))
        self.assertEqual(verl.batch_lengths([LINE, other], 100, 200, dynamic=True, max_model_len=10), (6, 4))

    def test_rows_from_batch_reads_both_dataset_shapes(self):
        row = {"responses_create_params": {"input": [{"role": "user", "content": "hi"}], "tools": [{"name": "t"}], "temperature": 0.1}, "agent_ref": {"name": "a"}, "expected": 3}
        from_gym_row = verl.rows_from_batch({"gym_row": [json.dumps(row)]}, 1, temperature=1.0, top_p=0.9)
        recipe = {
            "raw_prompt": [[{"role": "user", "content": "hi"}]],
            "agent_ref": [{"name": "a"}],
            "extra_env_info": [{"expected": 3, "_rcp_extra": {"tools": [{"name": "t"}]}}],
        }
        from_recipe = verl.rows_from_batch(recipe, 1, temperature=1.0, top_p=0.9)
        expected = {"responses_create_params": {"input": [{"role": "user", "content": "hi"}], "tools": [{"name": "t"}], "temperature": 1.0, "top_p": 0.9}, "agent_ref": {"name": "a"}, "expected": 3}
        self.assertEqual(from_gym_row, [expected])
        self.assertEqual(from_recipe, [expected])
        with self.assertRaises(ValueError):
            verl.rows_from_batch({"other": [1]}, 1, temperature=None, top_p=None)


class NemoRlResult(unittest.TestCase):
    def rollout(self, second_prompt):
        return {
            "_ng_task_index": 0,
            "_ng_rollout_index": 0,
            "reward": 0.5,
            "response": {
                "output": [
                    {"type": "function_call", "prompt_token_ids": [1, 2], "generation_token_ids": [3, 4], "generation_log_probs": [-0.1, -0.2]},
                    {"type": "function_call_output", "output": "x"},
                    {"type": "message", "prompt_token_ids": second_prompt, "generation_token_ids": [7], "generation_log_probs": [-0.3]},
                ]
            },
        }

    def test_message_log_alternates_added_and_sampled_ids(self):
        result = nemo_rl.nemo_rl_result(self.rollout([1, 2, 3, 4, 5, 6]))
        self.assertEqual(
            [(m["role"], m["token_ids"], m.get("generation_logprobs")) for m in result["message_log"]],
            [("user", [1, 2], None), ("assistant", [3, 4], [-0.1, -0.2]), ("user", [5, 6], None), ("assistant", [7], [-0.3])],
        )
        self.assertEqual(result["input_message_log"], result["message_log"][:1])
        self.assertNotIn("generation_token_ids", result["full_result"]["response"]["output"][0])
        self.assertEqual(result["full_result"]["reward"], 0.5)

    def test_a_re_rendered_prompt_names_the_first_difference(self):
        with self.assertRaises(nemo_rl.NonContiguousTokens) as caught:
            nemo_rl.nemo_rl_result(self.rollout([1, 2, 9, 4, 5]))
        self.assertEqual(caught.exception.first_difference, 2)


class DatasetConverter(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gymkit-verl-dataset-")
        self.source = os.path.join(self.dir, "in.jsonl")

    def write(self, lines):
        with open(self.source, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")

    def run_module(self, *args):
        return subprocess.run([sys.executable, "-m", "gymkit.adapters.verl_dataset", *args], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))})

    def test_jsonl_rows_get_an_agent_ref_and_parquet_needs_pyarrow(self):
        row = {"responses_create_params": {"input": [{"role": "user", "content": [{"type": "input_text", "text": "2+2?"}]}]}, "expected_answer": "4"}
        self.write([json.dumps(row)])
        target = os.path.join(self.dir, "out.jsonl")
        self.assertEqual(verl_dataset.convert(self.source, target, agent="math_agent"), 1)
        with open(target, encoding="utf-8") as handle:
            written = [json.loads(line) for line in handle]
        self.assertEqual(written, [dict(row, agent_ref={"type": "responses_api_agents", "name": "math_agent"})])
        record = verl_dataset.to_parquet_record(written[0], 0)
        self.assertEqual(record["prompt"], [{"role": "user", "content": "2+2?"}])
        self.assertEqual(record["data_source"], "gymkit/math_agent")
        self.assertEqual(json.loads(record["gym_row"]), written[0])
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            with self.assertRaises(verl_dataset.ConversionError) as caught:
                verl_dataset.convert(self.source, os.path.join(self.dir, "out.parquet"), agent="a")
            self.assertIn("pyarrow", str(caught.exception))
            self.assertIn(os.path.join(self.dir, "out.jsonl"), str(caught.exception))

    def test_bad_lines_name_the_file_and_line(self):
        self.write([json.dumps({"responses_create_params": {"input": "q"}, "agent_ref": {"name": "a"}}), "{not json", ""])
        done = self.run_module(self.source, os.path.join(self.dir, "out.jsonl"))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(f"{self.source}:2: not JSON", done.stderr)
        self.write([json.dumps({"responses_create_params": {"input": "q"}})])
        done = self.run_module(self.source, os.path.join(self.dir, "out.jsonl"))
        self.assertIn(f"{self.source}:1: no agent_ref; pass --agent NAME", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out.jsonl")))


# ---------------------------------------------------------------------------------------------
# Against the service
# ---------------------------------------------------------------------------------------------


def verl_config(gymkit_file, **rollout):
    return {
        "standin_server_addresses": [ENGINE],
        "actor_rollout_ref": {
            "model": {"path": MODEL},
            "rollout": {
                "prompt_length": rollout.get("prompt_length", 512),
                "response_length": rollout.get("response_length", 256),
                "temperature": 1.0,
                "top_p": 1.0,
                "val_kwargs": {"temperature": 0.0, "top_p": 1.0},
                "agent": {"agent_loop_config_path": gymkit_file},
            },
        },
    }


@unittest.skipUnless(LIVE and GYM_COMMAND and SERVE_ARGS and ENGINE, "needs a running gym serve (run by test/python_client.test.ts)")
class VerlManager(unittest.TestCase):
    """The manager starts its own gym serve, pointed at the 'trainer's' engine, as it would in verl."""

    @classmethod
    def setUpClass(cls):
        from verl.protocol import DataProto

        cls.DataProto = DataProto
        cls.gymkit_file = os.path.join(OUT, "gymkit_verl.json")
        with open(cls.gymkit_file, "w", encoding="utf-8") as handle:
            json.dump({"gymkit": {"serve_command": GYM_COMMAND, "serve_args": SERVE_ARGS, "pad_token_id": 151643, "concurrency": 8}}, handle)
        cls.manager = verl.GymkitAgentLoopManager(verl_config(cls.gymkit_file))

    @classmethod
    def tearDownClass(cls):
        cls.manager.shutdown_gymkit()

    def batch(self, rows):
        return self.DataProto(non_tensor_batch={"gym_row": [json.dumps(r) for r in rows]}, meta_info={"global_steps": 3})

    def test_every_field_matches_the_token_export(self):
        clean = groups()["clean"]
        rows = [clean[0], clean[1], clean[0], clean[2]]  # sample 2 repeats sample 0, as verl's rollout.n repeats
        out = self.manager.generate_sequences(self.batch(rows))
        self.assertEqual(self.manager._gymkit_serve.argv[-4:], ["--model-url", f"http://{ENGINE}/v1", "--model", MODEL])
        expected = export_of([dict(r, responses_create_params=dict(r["responses_create_params"], temperature=1.0, top_p=1.0)) for r in rows])
        self.assertEqual([(t["_ng_task_index"], t["_ng_rollout_index"]) for t in self.manager.last_token_rows], [(0, 0), (1, 0), (0, 1), (2, 0)])
        P, R = 512, 256
        b = out.batch
        for i, e in enumerate(expected):
            n, m = len(e["prompt_ids"]), len(e["response_ids"])
            self.assertGreater(m, 0)
            self.assertEqual(b["prompts"][i], [151643] * (P - n) + e["prompt_ids"], f"prompts of sample {i}")
            self.assertEqual(b["responses"][i], e["response_ids"] + [151643] * (R - m), f"responses of sample {i}")
            self.assertEqual(b["response_mask"][i], e["response_mask"] + [0] * (R - m))
            self.assertEqual(b["rollout_log_probs"][i], e["response_logprobs"] + [0.0] * (R - m))
            self.assertEqual(b["input_ids"][i], b["prompts"][i] + b["responses"][i])
            self.assertEqual(b["attention_mask"][i], [0] * (P - n) + [1] * (n + m) + [0] * (R - m))
            self.assertEqual(b["position_ids"][i][P - n : P + m], list(range(n + m)))
            self.assertEqual(b["rm_scores"][i], [0.0] * (m - 1) + [e["reward"]] + [0.0] * (R - m))
            self.assertEqual(e["reward"], 1.0)
            # The exact rollouts of this step are the ones the manager packed.
            for key in ("prompt_ids", "response_ids", "response_mask", "response_logprobs", "reward"):
                self.assertEqual(self.manager.last_token_rows[i][key], e[key], f"{key} of sample {i}")
        self.assertEqual(out.non_tensor_batch["__num_turns__"], [2, 2, 2, 2])
        self.assertEqual(out.meta_info["global_steps"], 3)
        self.assertEqual(out.meta_info["rollout_metrics"]["total_reward/mean"], 1.0)
        self.assertEqual(out.meta_info["rollout_metrics"]["env/example_single_tool_call_simple_agent/reward_mean"], 1.0)

    def test_the_recipe_dataset_columns_give_the_same_batch(self):
        rows = groups()["clean"][:2]
        converted = os.path.join(OUT, "verl_rows.jsonl")
        source = os.path.join(OUT, "gym_rows.jsonl")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(r) + "\n" for r in rows))
        verl_dataset.convert(source, converted, agent="example_single_tool_call_simple_agent")
        with open(converted, encoding="utf-8") as handle:
            written = [json.loads(line) for line in handle]
        # What verl-recipe's NeMoGymJSONLDataset makes of each JSONL row.
        columns = {"raw_prompt": [], "agent_ref": [], "extra_env_info": []}
        for row in written:
            rcp = row["responses_create_params"]
            columns["raw_prompt"].append([{"role": m.get("role", "user"), "content": m.get("content", "")} for m in rcp["input"]])
            columns["agent_ref"].append(row["agent_ref"])
            extra = {k: v for k, v in row.items() if k not in ("responses_create_params", "agent_ref")}
            rcp_extra = {k: v for k, v in rcp.items() if k not in ("input", "temperature", "top_p", "top_k", "parallel_tool_calls")}
            if rcp_extra:
                extra["_rcp_extra"] = rcp_extra
            columns["extra_env_info"].append(extra)
        from_recipe = self.manager.generate_sequences(self.DataProto(non_tensor_batch=columns, meta_info={}))
        from_gym_row = self.manager.generate_sequences(self.batch(rows))
        for key in ("prompts", "responses", "response_mask", "rollout_log_probs", "rm_scores"):
            self.assertEqual(from_recipe.batch[key], from_gym_row.batch[key], key)

    def test_a_prompt_past_prompt_length_is_an_error_naming_the_setting(self):
        small = verl.GymkitAgentLoopManager(verl_config(self.gymkit_file, prompt_length=8))
        self.manager._gymkit_ready()
        small._gymkit_url, small._gymkit = self.manager._gymkit_url, self.manager._gymkit
        with self.assertRaises(ValueError) as caught:
            small.generate_sequences(self.batch(groups()["clean"][:1]))
        self.assertIn("actor_rollout_ref.rollout.prompt_length=8", str(caught.exception))

    def test_missing_rollouts_fail_the_step(self):
        g = groups()
        with self.assertRaises(RolloutsIncomplete) as caught:
            self.manager.generate_sequences(self.batch([g["clean"][0], g["fail"][0]]))
        self.assertEqual(caught.exception.missing, [(1, 0)])
        messy = g["messy"][0]
        with self.assertRaises(RolloutsIncomplete) as caught:
            self.manager.generate_sequences(self.batch([messy]))
        self.assertEqual(caught.exception.summary["failure_classes"], {"tokens_unusable": 1})


def run_like_nemo_rl(actor, rows):
    """Consumes the actor as NeMo RL's run_async_nemo_gym_rollout does: a streaming remote call,
    each future awaited, row indices checked unique and complete; returns results in row order."""

    async def consume():
        for i, row in enumerate(rows):
            row["_rowidx"] = i
        results = {}
        timings = []
        generator = actor.run_rollouts.options(num_returns="streaming").remote(rows, "timing/rollout", False)
        async for future in generator:
            rowidx, result, timing = await future
            assert rowidx not in results, f"duplicate row index {rowidx}"
            results[rowidx] = result
            timings.append(timing)
        missing = sorted(set(range(len(rows))) - set(results))
        assert not missing, f"missing row indices {missing}"
        return [results[i] for i in range(len(rows))], timings

    return asyncio.run(consume())


class FakeTokenizer:
    def decode(self, ids):
        return f"<{len(ids)} ids>"


@unittest.skipUnless(LIVE, "needs a running gym serve (run by test/python_client.test.ts)")
class NemoRlActor(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.actor = nemo_rl.spinup_gymkit_actor({"nemo_gym": {"gymkit": {"url": URL, "concurrency": 8}}}, ["http://unused/v1"], MODEL, tokenizer=FakeTokenizer())

    def test_message_logs_match_the_token_export(self):
        clean = groups()["clean"]
        rows = [dict(clean[i]) for i in (0, 1, 0, 3)]
        results, timings = run_like_nemo_rl(self.actor, [dict(r) for r in rows])
        self.assertEqual(timings[:-1], [None] * 3)
        self.assertEqual(set(timings[-1]), {"timing/rollout/await_results", "timing/rollout/postprocess_results", "timing/rollout/postprocess_results_pct"})
        for i, (result, e) in enumerate(zip(results, export_of(rows))):
            log = result["message_log"]
            self.assertEqual([m["role"] for m in log], ["user", "assistant", "user", "assistant"])
            self.assertEqual(result["input_message_log"][0]["token_ids"], e["prompt_ids"], f"prompt of row {i}")
            self.assertEqual([t for m in log[1:] for t in m["token_ids"]], e["response_ids"], f"response of row {i}")
            self.assertEqual([1 if m["role"] == "assistant" else 0 for m in log[1:] for _ in m["token_ids"]], e["response_mask"])
            self.assertEqual([v for m in log[1:] for v in (m["generation_logprobs"] if m["role"] == "assistant" else [0.0] * len(m["token_ids"]))], e["response_logprobs"])
            self.assertEqual(result["full_result"]["reward"], e["reward"])
            items = [o for o in result["full_result"]["response"]["output"] if "generation_str" in o]
            self.assertEqual(len(items), 2)
            self.assertTrue(all("generation_token_ids" not in o for o in result["full_result"]["response"]["output"]))
        self.assertEqual((results[2]["full_result"]["_ng_task_index"], results[2]["full_result"]["_ng_rollout_index"]), (0, 1))

    def test_missing_rollouts_are_a_hard_failure(self):
        g = groups()
        with self.assertRaises(RolloutsIncomplete) as caught:
            run_like_nemo_rl(self.actor, [dict(g["clean"][0]), dict(g["fail"][0]), dict(g["clean"][1])])
        self.assertEqual(caught.exception.missing, [(1, 0)])

    def test_non_contiguous_tokens_are_a_hard_failure(self):
        g = groups()
        with self.assertRaises(RolloutsIncomplete) as caught:
            run_like_nemo_rl(self.actor, [dict(g["messy"][0])])
        self.assertEqual(caught.exception.missing, [(0, 0)])
        self.assertIn("first difference at token", str(caught.exception))

    def test_health_check_and_unsupported_methods(self):
        import ray

        self.assertIsNone(ray.get(self.actor.health_check.remote()))
        with self.assertRaises(NotImplementedError):
            self.actor.step.remote([], [])
        unspun = nemo_rl.GymkitNemoGym({"gymkit": {"url": URL}})
        with self.assertRaises(RuntimeError):
            unspun.health_check()
        with self.assertRaises(ValueError):
            nemo_rl.GymkitNemoGym({"gymkit": {"urll": URL}})


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE_ROWS = "src/environments/example_single_tool_call/data/example.jsonl"


def documented(marker):
    with open(os.path.join(REPO, "docs", "trainers.md"), encoding="utf-8") as handle:
        blocks = re.findall(r"```python\n(.*?)```", handle.read(), re.S)
    block = next(b for b in blocks if marker in b)
    assert 'url = "http://127.0.0.1:11100"' in block and EXAMPLE_ROWS in block
    return block.replace('url = "http://127.0.0.1:11100"', f"url = {URL!r}").replace(EXAMPLE_ROWS, os.path.join(REPO, EXAMPLE_ROWS))


@unittest.skipUnless(LIVE, "needs a running gym serve (run by test/python_client.test.ts)")
class DocumentedExamples(unittest.TestCase):
    def test_the_verl_step_example_runs(self):
        printed = []
        scope = {"print": lambda *a: printed.append(a)}
        exec(documented("from gymkit.adapters.verl import run_step"), scope)
        self.assertEqual(len(scope["token_rows"]), 5)
        self.assertEqual(printed, [(1.0, 2, sum(t["response_mask"]), "sampled tokens") for t in scope["token_rows"]])

    def test_the_nemo_rl_example_runs(self):
        printed = []
        exec(documented("from gymkit.adapters.nemo_rl import GymkitNemoGym"), {"print": lambda *a: printed.append(a)})
        self.assertEqual(printed, [([(i, 1.0, 4) for i in range(5)],)])


if __name__ == "__main__":
    unittest.main()
