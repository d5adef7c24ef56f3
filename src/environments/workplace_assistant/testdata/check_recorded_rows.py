"""NeMo Gym's is_correct (07d6b0d) on recorded_prompt_rows.jsonl against the recorded rollouts; prints
(reward with these rows, recorded reward) per line. Run by check_recorded_rows.sh."""
import contextlib
import io
import json
import sys

sys.path.insert(0, sys.argv[1])
from resources_servers.workplace_assistant import utils  # noqa: E402

rows = [json.loads(line) for line in open(sys.argv[2])]
rollouts = [json.loads(line) for line in open(sys.argv[3])]
for row, rollout in zip(rows, rollouts):
    predicted = [o for o in rollout["response"]["output"] if o["type"] == "function_call"]
    with contextlib.redirect_stdout(io.StringIO()):
        correct = utils.is_correct(predicted, row["ground_truth"], None)
    print(float(correct), rollout["reward"])
