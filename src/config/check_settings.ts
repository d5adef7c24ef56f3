// Nothing typed is silently ignored: each top-level settings key of a merged config (from a file,
// env.yaml or a `+key=value` override) either takes effect, or is refused naming the key, where it
// came from and the nearest valid one, or — for NeMo Gym keys that mean nothing here — is accepted
// with a one-line warning. The table of keys is data, in settings_keys.ts.
import { ProblemList } from "./errors.js";
import { isServerType, SERVER_TYPES } from "./instances.js";
import type { Provenance } from "./provenance.js";
import { classifySetting, KNOWN_SETTINGS, settingNames, type ConfigCommand } from "./settings_keys.js";
import { didYouMean, listNames, nearest } from "./suggest.js";
import { isMapping, type Mapping } from "./tree.js";

export interface SettingsCheckOptions {
  /** The command reading the config; without it, only unknown and unsupported keys are reported. */
  command?: ConfigCommand;
  provenance: Provenance;
  /** Top-level keys some `${...}` refers to: they take effect wherever they are used. */
  referenced: ReadonlySet<string>;
}

/**
 * The top-level keys that are settings, not server instances. A mapping with a key that nearly names
 * a server type is a mistyped instance, which instance validation reports better.
 */
export function settingKeys(config: Mapping): string[] {
  return Object.keys(config).filter((key) => {
    const value = config[key];
    return !(isMapping(value) && Object.keys(value).some((k) => isServerType(k) || nearest(k, SERVER_TYPES) !== undefined));
  });
}

/** Throws ConfigError listing every unknown or unsupported key; returns the warnings to print. */
export function checkSettings(config: Mapping, options: SettingsCheckOptions): string[] {
  const { provenance, referenced } = options;
  // `env resolve` prints the whole config, so every known key is "read" by it.
  const command = options.command === "env resolve" ? undefined : options.command;
  const problems = new ProblemList();
  const warnings: string[] = [];
  for (const key of settingKeys(config)) {
    if (referenced.has(key)) continue;
    const source = provenance.sourceOf([key]);
    const from = source ? ` (from ${source})` : "";
    const setting = classifySetting(key);
    switch (setting.kind) {
      case "known":
        // A config file is shared by several commands, so a key another command reads is fine there;
        // typed on this command line, it is something the user expected to matter.
        if (command && !setting.readBy.includes(command) && source?.startsWith("command-line")) {
          warnings.push(`\`${key}\`${from} has no effect on \`gym ${command}\`; it is read by ${setting.readBy.map((c) => `\`gym ${c}\``).join(", ")}`);
        }
        break;
      case "no-effect":
        warnings.push(`\`${key}\`${from} is a NeMo Gym setting that has no effect in Gymkit${setting.why ? `: ${setting.why}` : ""}`);
        break;
      case "unsupported":
        problems.add(`\`${key}\`${from} is a NeMo Gym setting Gymkit does not support: ${setting.why}.`);
        break;
      case "unknown": {
        const readHere = command ? Object.keys(KNOWN_SETTINGS).filter((k) => KNOWN_SETTINGS[k]!.includes(command)) : Object.keys(KNOWN_SETTINGS);
        problems.add(
          `Unknown setting \`${key}\`${from}.${didYouMean(key, settingNames())} ` +
            `${command ? `\`gym ${command}\` reads` : "Settings are"} ${listNames(readHere.sort(), 30)}; a value used elsewhere in the config as \`\${${key}}\` is fine too.`,
        );
        break;
      }
    }
  }
  problems.throwIfAny();
  return warnings;
}

/** The top-level keys that `${...}` interpolations (absolute ones) refer to, anywhere in `config`. */
export function interpolatedRoots(config: unknown, out = new Set<string>()): Set<string> {
  if (typeof config === "string") {
    for (const match of config.matchAll(/(?<!\\)\$\{\s*([A-Za-z_][\w-]*)(?=[.}[\s])/g)) out.add(match[1]!);
  } else if (Array.isArray(config)) {
    for (const item of config) interpolatedRoots(item, out);
  } else if (isMapping(config)) {
    for (const value of Object.values(config)) interpolatedRoots(value, out);
  }
  return out;
}
