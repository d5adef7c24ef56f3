// Which runs `gym view` compares, and their names: each `--rollouts` is a rollouts file or a
// directory holding runs (its own rollouts files, and those of its subdirectories, one level down).
// A run is named by its file's stem, or by its directory when that holds a single run; clashing names
// get their directory put in front.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";

export interface NamedRun {
  name: string;
  path: string;
}

/** Files written beside a rollouts file (paths.ts): never runs of their own. */
const SIBLING_SUFFIXES = ["_failures.jsonl", "_materialized_inputs.jsonl", "_recovered.jsonl"];

const isRunFile = (name: string) => name.endsWith(".jsonl") && !SIBLING_SUFFIXES.some((suffix) => name.endsWith(suffix));
/** A run's default name: its file's stem. */
export const stem = (path: string) => basename(path, extname(path));

function runFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => isRunFile(name) && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => join(dir, name));
}

/** The runs of one `--rollouts` argument, named. A directory without runs is an error naming it. */
function runsOf(arg: string): NamedRun[] {
  if (!existsSync(arg)) throw new Error(`--rollouts ${arg}: no such file or directory`);
  if (!statSync(arg).isDirectory()) return [{ name: stem(arg), path: arg }];
  const runs = runFiles(arg).map((path) => ({ name: stem(path), path }));
  for (const sub of readdirSync(arg).sort()) {
    const dir = join(arg, sub);
    if (!statSync(dir).isDirectory()) continue;
    const files = runFiles(dir);
    runs.push(...files.map((path) => ({ name: files.length === 1 ? sub : `${sub}/${stem(path)}`, path })));
  }
  if (runs.length === 0) throw new Error(`--rollouts ${arg}: the directory holds no rollouts file (*.jsonl other than _failures/_materialized_inputs), nor do its subdirectories`);
  return runs;
}

/** Every run of the arguments, in order, each named uniquely. */
export function namedRuns(args: readonly string[]): NamedRun[] {
  const runs = args.flatMap(runsOf);
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.name, (counts.get(run.name) ?? 0) + 1);
  const taken = new Set<string>();
  return runs.map((run) => {
    let name = counts.get(run.name)! > 1 ? `${basename(dirname(run.path))}/${stem(run.path)}` : run.name;
    for (let n = 2; taken.has(name); n++) name = `${run.name} (${n})`;
    taken.add(name);
    return { name, path: run.path };
  });
}
