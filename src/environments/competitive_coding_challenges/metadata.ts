// The problems of a CCC test file (NeMo Gym's CCC_TEST_FILE), read as NeMo Gym's ccc_eval.py at
// commit 07d6b0d reads it: JSON lines, each a competition entry (`competition_id`/`competition` with
// `metadata`/`problems`), or a map of problems, or a map of competitions. A problem is either in the
// current shape (compile, run, grader_files, subtasks, all_tests) or the older per-subtask shape,
// which is turned into the current one (aggregation "min", sample tests by name).
import { readFileSync } from "node:fs";

export interface SubtaskMeta {
  aggregation: "min" | "sum_tests" | string;
  score?: number | null;
  score_precision?: number;
  test_names: string[];
  [key: string]: unknown;
}

export interface TestData {
  input: string;
  output: string;
  group?: string | null;
}

export interface ProblemMeta {
  name?: string;
  compile: string;
  run: string;
  grader_files: Array<[string, string]>;
  subtasks: Record<string, SubtaskMeta>;
  all_tests: Record<string, TestData>;
  problem_header_include?: string | null;
  [key: string]: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Python truthiness for the values a metadata file holds. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}

export function normalizeProblem(problemId: string, raw: Json): ProblemMeta {
  if ("subtasks" in raw && "all_tests" in raw) return raw as unknown as ProblemMeta;
  const subtasks: Record<string, SubtaskMeta> = {};
  const tests: Record<string, TestData> = {};
  let compile: unknown = "";
  let run: unknown = "";
  let graderFiles: unknown = [];
  for (const [subtaskName, sub] of Object.entries(raw)) {
    if (!isObject(sub)) continue;
    if (!truthy(compile)) compile = sub.compile ?? "";
    if (!truthy(run)) run = sub.run ?? "";
    if (!truthy(graderFiles)) graderFiles = sub.grader_files ?? [];
    const names: string[] = [];
    const sample: string[] = [];
    const secret: string[] = [];
    for (const [testName, data] of Object.entries(isObject(sub.tests) ? sub.tests : {})) {
      names.push(testName);
      const group = testName.startsWith("sample") ? "sample" : "secret";
      (group === "sample" ? sample : secret).push(testName);
      if (!(testName in tests)) {
        const d = data as Json;
        if (!("input" in d) || !("output" in d)) throw new Error(`test '${testName}' of '${problemId}' lacks input or output`);
        tests[testName] = { input: d.input as string, output: d.output as string, group };
      }
    }
    const score = truthy(sub.score) ? sub.score : truthy(sub.subtask_score) ? sub.subtask_score : 0;
    subtasks[subtaskName] = {
      aggregation: "min",
      score: Number(score),
      score_precision: Math.trunc(Number(sub.score_precision ?? 0)),
      test_names: names,
      sample_test_names: sample,
      secret_test_names: secret,
    };
  }
  return {
    // As ccc_eval.py: a problem's own "name" key would be a subtask in this shape, so this is the id.
    name: isObject(raw) && typeof raw.name === "string" ? raw.name : problemId,
    compile: compile as string,
    run: run as string,
    grader_files: graderFiles as Array<[string, string]>,
    subtasks,
    all_tests: tests,
  };
}

function* entriesOf(raw: unknown[]): Generator<Json> {
  // ccc_eval.py hands the whole list of lines to its entry walker, which yields each line as is.
  for (const entry of raw) if (isObject(entry)) yield entry;
}

export class CccMetadata {
  readonly byCompetition = new Map<string, Map<string, ProblemMeta>>();
  readonly index = new Map<string, Map<string, ProblemMeta>>();

  static fromText(text: string): CccMetadata {
    const lines = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as unknown);
    const md = new CccMetadata();
    for (const entry of entriesOf(lines)) {
      const competition = String(entry.competition_id || entry.competition || "");
      const problems = (truthy(entry.metadata) ? entry.metadata : truthy(entry.problems) ? entry.problems : {}) as Json;
      let byProblem = md.byCompetition.get(competition);
      if (!byProblem) md.byCompetition.set(competition, (byProblem = new Map()));
      for (const [problemId, raw] of Object.entries(problems)) {
        const normalized = normalizeProblem(problemId, raw as Json);
        byProblem.set(problemId, normalized);
        let comps = md.index.get(problemId);
        if (!comps) md.index.set(problemId, (comps = new Map()));
        comps.set(competition, normalized);
      }
    }
    return md;
  }

  static fromFile(path: string): CccMetadata {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new Error(`Metadata file ${path} does not exist.`);
    }
    return CccMetadata.fromText(text);
  }

  /** The problem, by competition when one is given, else by a problem id that only one competition has. */
  problem(problemId: string, competitionId: string | null | undefined): ProblemMeta {
    if (competitionId) {
      const problems = this.byCompetition.get(competitionId);
      if (!problems) {
        const available = [...this.byCompetition.keys()].filter((k) => k).sort();
        throw new Error(`Competition '${competitionId}' not found for problem '${problemId}'. Available competitions: ${JSON.stringify(available)}`);
      }
      const problem = problems.get(problemId);
      if (!problem) throw new Error(`Problem '${problemId}' not found in competition '${competitionId}'. Available problems: ${JSON.stringify([...problems.keys()].sort())}`);
      return problem;
    }
    const matches = this.index.get(problemId);
    if (!matches || matches.size === 0) throw new Error(`Problem '${problemId}' not found in metadata.`);
    if (matches.size === 1) return [...matches.values()][0]!;
    throw new Error(`Problem '${problemId}' exists in multiple competitions; please provide competition_id. Available competitions: ${JSON.stringify([...matches.keys()].filter((k) => k).sort())}`);
  }

  /** Most a subtask can award: its test count when scored by tests passed, else its score (null when unknown). */
  subtaskCap(problemId: string, competitionId: string | null | undefined, subtask: string): number | null {
    let problem: ProblemMeta;
    try {
      problem = this.problem(problemId, competitionId);
    } catch {
      return null;
    }
    const meta = (problem.subtasks ?? {})[subtask];
    if (!meta || Object.keys(meta).length === 0) return null;
    if (meta.aggregation === "sum_tests") return (meta.test_names ?? []).length;
    return meta.score === null || meta.score === undefined ? null : Number(meta.score);
  }
}
