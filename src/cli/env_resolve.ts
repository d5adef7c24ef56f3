// `gym env resolve`: the merged config as YAML, with secrets hidden.
import { stringify } from "yaml";
import { resolveCliConfig, type CliConfigOptions } from "./config_args.js";

export async function envResolve(overrides: string[], options: CliConfigOptions): Promise<void> {
  const resolved = await resolveCliConfig(overrides, options, { command: "env resolve" });
  process.stdout.write(stringify(resolved.redacted));
}
