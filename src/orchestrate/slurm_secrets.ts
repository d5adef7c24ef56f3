// Keeping secrets out of the Slurm scripts `gym eval submit` writes and prints. A secret word of the
// job's command line (the `--model-api-key` value, a `--model-url` with a password, a Hydra override
// of a secret key such as `++policy_api_key=…`) becomes a reference to an environment variable; the
// value goes to sbatch in its environment, which sbatch's default `--export=ALL` carries into the job.
// The scripts (on disk, in the job record) and what `--dry-run` prints then hold only the name.
import { isSecretKey } from "../config/redact.js";
import { redactUrlsIn } from "../config/url_secrets.js";
import type { ScriptWord } from "./slurm.js";

/** Values that are not secrets: the "no key needed" placeholder, and nothing at all. */
const NOT_SECRET = new Set(["", "dummy"]);
/** `path=value` with Hydra's `+`, `++` or `~` prefix. */
const OVERRIDE = /^(\+{0,2}|~)([A-Za-z0-9_.\-/[\]]+)=([\s\S]*)$/;

/** Secret values by environment variable name, filled by `hideSecrets`. */
export type JobSecrets = Map<string, string>;

/** The variable holding `value`: named after what it is, numbered only if that name holds another value. */
function variableFor(secrets: JobSecrets, base: string, value: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    const held = secrets.get(name);
    if (held === undefined) secrets.set(name, value);
    if (held === undefined || held === value) return name;
  }
}

const envName = (text: string) => `GYM_${text.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_|_$/g, "")}`;

/** `words` with every secret replaced by a reference to a variable recorded in `secrets`. */
export function hideSecrets(words: string[], secrets: JobSecrets): ScriptWord[] {
  const out: ScriptWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (word === "--model-api-key" && next !== undefined && !NOT_SECRET.has(next)) {
      out.push(word, { env: variableFor(secrets, "GYM_POLICY_API_KEY", next), prefix: "" });
      i++;
      continue;
    }
    if (word === "--model-url" && next !== undefined && redactUrlsIn(next) !== next) {
      out.push(word, { env: variableFor(secrets, "GYM_POLICY_BASE_URL", next), prefix: "" });
      i++;
      continue;
    }
    const override = OVERRIDE.exec(word);
    if (override) {
      const [, sign, path, value] = override as unknown as [string, string, string, string];
      const key = path.split(".").at(-1)!;
      if ((isSecretKey(key) && !NOT_SECRET.has(value)) || redactUrlsIn(value) !== value) {
        out.push({ env: variableFor(secrets, envName(key), value), prefix: `${sign}${path}=` });
        continue;
      }
    }
    // Any other word quoting a URL with a password (`--head-url http://u:p@…`) is one secret whole.
    if (redactUrlsIn(word) !== word) {
      out.push({ env: variableFor(secrets, "GYM_SECRET", word), prefix: "" });
      continue;
    }
    out.push(word);
  }
  return out;
}

/**
 * Why the job would not see its secrets, if an `--export` among the extra sbatch arguments keeps
 * them out (only `ALL`, or a list naming them, lets them through).
 */
export function exportProblem(extra: string[], secrets: JobSecrets): string | undefined {
  if (secrets.size === 0) return undefined;
  const names = [...secrets.keys()];
  for (const arg of extra) {
    const match = /^--export[= ](.*)$/.exec(arg.trim());
    if (!match) continue;
    const listed = match[1]!.split(",").map((item) => item.split("=")[0]!.trim());
    if (listed.includes("ALL")) continue;
    const missing = names.filter((name) => !listed.includes(name));
    if (missing.length === 0) continue;
    return (
      `--sbatch-arg ${arg} keeps ${missing.join(", ")} out of the job, and the job's command line reads ` +
      `${missing.length === 1 ? "it" : "them"} from there (secrets are never written into the scripts): ` +
      `use --export=ALL or add ${missing.join(",")} to the list`
    );
  }
  return undefined;
}
