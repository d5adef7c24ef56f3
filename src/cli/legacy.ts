#!/usr/bin/env node
// NeMo Gym's deprecated `ng_*` / `nemo_gym_*` entry points, so scripts written for NeMo Gym run: every
// such bin points at this file, which finds its name (the bin's file name, or, run as
// `node legacy.js ng_run ...`, the first argument), prints a one-line deprecation notice naming the
// `gym` command, and re-enters `gym` with that command and the user's `+key=value` arguments.
// Behaviour reproduced from NeMo Gym 07d6b0d, nemo_gym/cli/legacy.py; the table is legacy_commands.ts.
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { fail, UsageError } from "./exit.js";
import { legacyCommandOf, type LegacyCommand } from "./legacy_commands.js";

const HYDRA = /^\+{0,2}([A-Za-z_][\w.]*)=(.*)$/s;

/** The user's arguments for the Gymkit command: Hydra keys the command takes as flags become flags. */
export function translateArguments(entry: LegacyCommand, args: readonly string[], onNotice: (message: string) => void): string[] {
  const out: string[] = [];
  const command = `gym ${entry.gym.join(" ")}`;
  for (const arg of args) {
    const match = HYDRA.exec(arg);
    const key = match?.[1];
    if (!match || key === undefined || !entry.flags || !Object.hasOwn(entry.flags, key)) {
      out.push(arg);
      continue;
    }
    const flag = entry.flags[key];
    const value = match[2]!;
    if (flag === null || flag === undefined) {
      onNotice(`warning: \`${arg}\` is not needed by \`${command}\` and is not used`);
      continue;
    }
    if (key === entry.argumentFromBasenameOf) out.unshift(basename(value.replace(/\/+$/, "")));
    out.push(flag, value);
  }
  return out;
}

function invokedName(argv: readonly string[]): { name: string; args: string[] } {
  const bin = basename(argv[1] ?? "").replace(/\.[cm]?js$/, "");
  if (legacyCommandOf(bin)) return { name: bin, args: argv.slice(2) };
  return { name: argv[2] ?? "", args: argv.slice(3) };
}

async function main(): Promise<void> {
  const { name, args } = invokedName(process.argv);
  const entry = legacyCommandOf(name);
  if (!entry) throw new UsageError(`${name ? `\`${name}\`` : "no name given"}: not a NeMo Gym legacy command (ng_* or nemo_gym_*); run \`gym --help\``);
  const command = `gym ${entry.gym.join(" ")}`;
  if (!entry.gymHas) {
    throw new UsageError(
      entry.instead
        ? `\`${name}\` has no \`gym\` equivalent; ${entry.instead}`
        : `\`${name}\` is NeMo Gym's \`${command}\`, which Gymkit does not have (run \`gym --help\` for the commands it has)`,
    );
  }
  const notice = (message: string) => process.stderr.write(`gym: ${message}\n`);
  notice(`\`${name}\` is deprecated; use \`${command}\` instead`);
  const translated = translateArguments(entry, args, notice);
  process.argv = [process.argv[0]!, fileURLToPath(new URL("./main.js", import.meta.url)), ...entry.gym, ...translated];
  await import("./main.js");
}

main().catch((error: unknown) => fail(error));
