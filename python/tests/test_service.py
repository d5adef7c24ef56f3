"""gymkit.client against a real ``gym serve``, started by test/python_client.test.ts.

The TypeScript test starts the service (a real environment and agent; a fake engine stands in for
the model) and runs this module with:

* ``GYMKIT_SERVICE_URL``: the rollout service;
* ``GYMKIT_TEST_ROWS``: a JSON file of row groups (``clean``, ``messy``: the model writes its tool
  call in a spelling the chat template re-renders differently, ``fail``: the engine refuses them);
* ``GYMKIT_TEST_OUT``: a folder where the complete batches are written, for the TypeScript side to
  compare the token rows with its own export of the raw rollouts.

Run alone, without those variables, every test is skipped.
"""

from __future__ import annotations

import json
import os
import re
import unittest

from gymkit import RolloutServiceError, RolloutsIncomplete, collect_rollouts, stream_rollouts

URL = os.environ.get("GYMKIT_SERVICE_URL")
ROWS_FILE = os.environ.get("GYMKIT_TEST_ROWS")
OUT = os.environ.get("GYMKIT_TEST_OUT")
TOKEN_FIELDS = {"prompt_ids", "response_ids", "response_mask", "response_logprobs", "reward", "_ng_task_index", "_ng_rollout_index", "agent_ref"}


def groups():
    with open(ROWS_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def save(name, rows):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
        json.dump(rows, handle)


@unittest.skipUnless(URL and ROWS_FILE and OUT, "needs a running gym serve (run by test/python_client.test.ts)")
class CompleteBatch(unittest.TestCase):
    def test_raw_batch_returns_every_pair(self):
        rows = groups()["clean"]
        got = collect_rollouts(URL, rows, num_repeats=2, concurrency=4)
        self.assertEqual([(r["_ng_task_index"], r["_ng_rollout_index"]) for r in got], [(t, r) for t in range(len(rows)) for r in range(2)])
        self.assertTrue(all(r["reward"] == 1.0 for r in got))
        save("raw.json", got)

    def test_tokens_batch_has_the_export_fields(self):
        rows = groups()["clean"]
        got = collect_rollouts(URL, rows, num_repeats=2, concurrency=4, format="tokens")
        self.assertEqual(len(got), 2 * len(rows))
        for row in got:
            self.assertEqual(set(row), TOKEN_FIELDS)
            self.assertEqual(len(row["response_ids"]), len(row["response_mask"]))
            self.assertEqual(len(row["response_ids"]), len(row["response_logprobs"]))
            # Two model calls with the tool's output between them: sampled, added, sampled.
            self.assertEqual(row["response_mask"][0], 1)
            self.assertIn(0, row["response_mask"])
            self.assertEqual(row["response_mask"][-1], 1)
        save("tokens.json", got)

    def test_stream_yields_rows_as_they_finish_then_the_summary(self):
        rows = groups()["clean"][:2]
        with stream_rollouts(URL, rows, format="tokens") as stream:
            seen = [(r["_ng_task_index"], r["_ng_rollout_index"]) for r in stream]
        self.assertEqual(sorted(seen), [(0, 0), (1, 0)])
        self.assertEqual(stream.summary["succeeded"], 2)
        self.assertEqual(stream.plan["pairs"], [[0, 0, 1], [1, 0, 1]])


    def test_the_documented_example_runs(self):
        doc_path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "rollout-service.md")
        with open(doc_path, encoding="utf-8") as handle:
            blocks = re.findall(r"```python\n(.*?)```", handle.read(), re.S)
        example = next(b for b in blocks if "from gymkit import" in b)
        self.assertIn('url = "http://127.0.0.1:11000"', example)
        trained = []
        scope = {"rows": groups()["clean"][:2], "train_on": trained.append, "print": lambda *a: None}
        exec(example.replace('url = "http://127.0.0.1:11000"', f"url = {URL!r}"), scope)
        self.assertEqual(len(scope["rollouts"]), 16)
        self.assertEqual(sorted((r["_ng_task_index"], r["_ng_rollout_index"]) for r in trained), [(0, 0), (1, 0)])


@unittest.skipUnless(URL and ROWS_FILE and OUT, "needs a running gym serve (run by test/python_client.test.ts)")
class IncompleteBatch(unittest.TestCase):
    def test_failing_agent_names_the_missing_pairs(self):
        g = groups()
        rows = g["clean"][:2] + g["fail"]  # tasks 0, 1 succeed; 2, 3 fail
        with self.assertRaises(RolloutsIncomplete) as caught:
            collect_rollouts(URL, rows, concurrency=4)
        error = caught.exception
        self.assertEqual(sorted(error.missing), [(2, 0), (3, 0)])
        self.assertEqual(sorted((r["_ng_task_index"], r["_ng_rollout_index"]) for r in error.rows), [(0, 0), (1, 0)])
        self.assertEqual(error.summary["requested"], 4)
        self.assertTrue(all(f["failure_class"] in ("agent_error", "model_error") for f in error.failures), error.failures)
        self.assertIn("missing (task, rollout): (2, 0), (3, 0)", str(error))

    def test_failing_agent_while_streaming(self):
        g = groups()
        received = []
        with self.assertRaises(RolloutsIncomplete) as caught:
            for row in stream_rollouts(URL, [g["fail"][0], g["clean"][0]]):
                received.append((row["_ng_task_index"], row["_ng_rollout_index"]))
        self.assertEqual(received, [(1, 0)])
        self.assertEqual(caught.exception.missing, [(0, 0)])
        self.assertEqual(caught.exception.received, 1)

    def test_non_contiguous_tokens_are_failures_with_the_position(self):
        g = groups()
        rows = g["clean"][:1] + g["messy"]
        with self.assertRaises(RolloutsIncomplete) as caught:
            collect_rollouts(URL, rows, format="tokens", concurrency=4)
        error = caught.exception
        self.assertEqual(sorted(error.missing), [(t, 0) for t in range(1, 1 + len(g["messy"]))])
        self.assertEqual([r["_ng_task_index"] for r in error.rows], [0])
        self.assertEqual(error.summary["failure_classes"], {"tokens_unusable": len(g["messy"])})
        for failure in error.failures:
            self.assertIsInstance(failure["first_difference"], int)
            self.assertIn(f"first difference at token {failure['first_difference']} of", failure["error"])
        # The same rollouts are fine as raw rollouts.
        self.assertEqual(len(collect_rollouts(URL, rows, concurrency=4)), len(rows))


@unittest.skipUnless(URL and ROWS_FILE and OUT, "needs a running gym serve (run by test/python_client.test.ts)")
class MalformedRequest(unittest.TestCase):
    def test_422_carries_the_body(self):
        rows = groups()["clean"][:3]
        rows[1] = {"question": "no responses_create_params"}
        rows[2] = dict(rows[2], agent_ref={"name": "nobody"})
        with self.assertRaises(RolloutServiceError) as caught:
            collect_rollouts(URL, rows, responses_create_params={"max_tokens": 5})
        error = caught.exception
        self.assertEqual(error.status, 422)
        locs = [".".join(str(p) for p in d["loc"]) for d in error.detail["detail"]]
        self.assertIn("body.responses_create_params.max_tokens", locs)
        self.assertIn("max_tokens", error.body)
        self.assertIn("422", str(error))

    def test_422_names_each_bad_row(self):
        rows = groups()["clean"][:3]
        rows[1] = {"question": "no responses_create_params"}
        rows[2] = dict(rows[2], agent_ref={"name": "nobody"})
        with self.assertRaises(RolloutServiceError) as caught:
            collect_rollouts(URL, rows)
        detail = caught.exception.detail["detail"]
        self.assertEqual([".".join(str(p) for p in d["loc"]) for d in detail], ["body.rows.1.responses_create_params", "body.rows.2.agent_ref.name"])
        self.assertIn('unknown agent "nobody"', detail[1]["msg"])

    def test_bad_arguments_are_refused_before_sending(self):
        with self.assertRaises(ValueError):
            collect_rollouts(URL, [], format="parquet")
        with self.assertRaises(ValueError):
            collect_rollouts("ftp://example", [])


if __name__ == "__main__":
    unittest.main()
