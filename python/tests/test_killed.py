"""The service dies mid-stream: gymkit raises RolloutsIncomplete naming the pairs that never came.

Run by test/python_client.test.ts after tests/test_service.py, because it kills the service:
``GYMKIT_SERVICE_URL``, ``GYMKIT_TEST_ROWS`` (groups ``clean`` and ``slow``: the engine holds the
slow rows' model calls) and ``GYMKIT_SERVE_PID`` (the ``gym serve`` process to kill).
"""

from __future__ import annotations

import json
import os
import signal
import unittest

from gymkit import RolloutsIncomplete, collect_rollouts, stream_rollouts

URL = os.environ.get("GYMKIT_SERVICE_URL")
ROWS_FILE = os.environ.get("GYMKIT_TEST_ROWS")
PID = os.environ.get("GYMKIT_SERVE_PID")


@unittest.skipUnless(URL and ROWS_FILE and PID, "needs a gym serve it may kill (run by test/python_client.test.ts)")
class HeadKilledMidStream(unittest.TestCase):
    def test_killed_service_names_the_missing_pairs(self):
        with open(ROWS_FILE, encoding="utf-8") as handle:
            g = json.load(handle)
        rows = [g["clean"][0]] + g["slow"]
        received = []
        with self.assertRaises(RolloutsIncomplete) as caught:
            for row in stream_rollouts(URL, rows, concurrency=len(rows)):
                received.append((row["_ng_task_index"], row["_ng_rollout_index"]))
                if len(received) == 1:
                    os.kill(int(PID), signal.SIGKILL)
        error = caught.exception
        self.assertEqual(received, [(0, 0)])
        self.assertEqual(error.missing, [(t, 0) for t in range(1, len(rows))])
        self.assertIsNone(error.summary)
        self.assertIn("missing (task, rollout): (1, 0)", str(error))
        # Nothing listens any more: refusing to connect is the same exception, not a bare socket error.
        with self.assertRaises(RolloutsIncomplete):
            collect_rollouts(URL, rows, timeout=10)


if __name__ == "__main__":
    unittest.main()
