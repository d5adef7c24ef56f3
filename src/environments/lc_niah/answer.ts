// lc_niah's answer score, as NeMo Gym's lc_niah server computes it (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/lc_niah/app.py): graphwalks' `Final Answer: [...]` list on the last non-empty
// line, with each item's surrounding quotes also removed (so `["a", "b"]` reads as a, b), scored by
// set F1 against the JSON list in expected_answer.
import { pyStrip } from "../../verifiers/text/pystr.js";
import { expectedNodeSet, finalAnswerContent, nodeF1 } from "../../verifiers/text/node_list.js";

export function parseQuotedNodeList(response: string): { nodes: string[]; parseFailed: boolean } {
  const content = finalAnswerContent(response);
  if (content === null) return { nodes: [], parseFailed: true };
  if (pyStrip(content) === "") return { nodes: [], parseFailed: false };
  const nodes = content
    .split(",")
    .map((raw) => pyStrip(pyStrip(pyStrip(raw), "\"'")))
    .filter((item) => item !== "");
  return { nodes, parseFailed: false };
}

export function answerScore(response: string, expectedAnswer: string): number {
  const { nodes, parseFailed } = parseQuotedNodeList(response);
  return nodeF1(nodes, expectedNodeSet(expectedAnswer), parseFailed);
}
