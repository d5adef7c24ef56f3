// What of the model's answer is run, as NeMo Gym's ccc_eval.py at commit 07d6b0d decides it: the last
// fenced block of the task kind's languages (the whole text when there is none). A "Batch" problem
// (the default kind) gets `#include <bits/stdc++.h>`, the problem's header and `using namespace std;`
// put in front (and, for IOI's `triples`, the missing one of its two entry points as a stub); a
// "MULTIFILE" problem takes the C++ block as written; a "SIMULATION" problem a text block, written
// as `solution.odo` instead of the grader's C++ source.
import type { ProblemMeta } from "./metadata.js";

export type TaskType = "Batch" | "MULTIFILE" | "SIMULATION" | string;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The last ```<lang> block (any of `langs`, any case), or `text` itself when there is none. */
export function extractFinalCodeBlock(text: string, langs: readonly string[]): string {
  const pattern = new RegExp("```(?:" + langs.map(escapeRegex).join("|") + ")\\s*\\n([\\s\\S]*?)```", "gi");
  let last: string | undefined;
  for (const m of text.matchAll(pattern)) last = m[1];
  return last ?? text;
}

/** The problem's `graders/grader_config.json` (empty when absent or not JSON). */
export function taskConfig(problem: ProblemMeta): Record<string, unknown> {
  for (const entry of problem.grader_files ?? []) {
    if (entry[0] === "graders/grader_config.json") {
      try {
        const parsed = JSON.parse(entry[1]) as unknown;
        return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
      } catch {
        return {};
      }
    }
  }
  return {};
}

export function addIncludes(code: string, headerInclude: string | null | undefined, problemId: string): string {
  if (!code) return code;
  let header = "#include <bits/stdc++.h>\n";
  if (headerInclude) {
    const line = `#include "${headerInclude}"`;
    if (!code.includes(line)) header += line + "\n";
  }
  if (!code.includes("using namespace std;") && !code.includes("std::")) header += "\nusing namespace std;\n\n";
  let stub = "";
  if (problemId === "triples") {
    const hasCount = /\bcount_triples\s*\(/.test(code);
    const hasConstruct = /\bconstruct_range\s*\(/.test(code);
    if (hasConstruct && !hasCount) stub += "long long count_triples(std::vector<int> H){return 0LL;}\n";
    else if (hasCount && !hasConstruct) stub += "std::vector<int> construct_range(int M,int K){return {};}\n";
  }
  return header + code + (stub ? "\n" + stub : code.endsWith("\n") ? "" : "\n");
}

export interface Submission {
  taskType: TaskType;
  /** Where the code goes in the run folder. */
  path: string;
  code: string;
}

export function submissionFor(problem: ProblemMeta, problemId: string, generation: string): Submission {
  const config = taskConfig(problem);
  const taskType = !("task_type" in config) ? "Batch" : config.task_type === null ? "None" : String(config.task_type);
  if (taskType === "SIMULATION") return { taskType, path: "solution.odo", code: extractFinalCodeBlock(generation, ["txt", "text", "plain"]) };
  const path = `graders/${problemId}.cpp`;
  const block = extractFinalCodeBlock(generation, ["cpp"]);
  if (taskType === "MULTIFILE") return { taskType, path, code: block };
  return { taskType, path, code: addIncludes(block, problem.problem_header_include, problemId) };
}
