// The one error type the config layer throws. It carries every problem found, so a user fixes a
// config in one pass instead of one typo per run.
import { UserError } from "./user_error.js";

export class ConfigError extends UserError {
  /** Each problem as one sentence (or a few), naming the key, where it came from, and a fix. */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : [...problems];
    super(formatProblems(list));
    this.problems = list;
  }
}

// One paragraph: a single problem is its own message; several become a counted list without blank
// lines so the CLI can print it as one block.
function formatProblems(problems: readonly string[]): string {
  if (problems.length === 1) return problems[0] ?? "";
  return [`The config has ${problems.length} problems:`, ...problems.map((p, i) => `  ${i + 1}. ${p}`)].join("\n");
}

/** Collects problems while a pass runs over the whole config, then throws them together. */
export class ProblemList {
  private readonly items: string[] = [];

  add(problem: string): void {
    this.items.push(problem);
  }

  get size(): number {
    return this.items.length;
  }

  throwIfAny(): void {
    if (this.items.length > 0) throw new ConfigError(this.items);
  }
}
