// Prints a config as YAML that reads back to the same data (for `gym env resolve` and the head
// server's `/global_config_dict_yaml`). Long strings are not folded, so URLs and prompts stay on one line.
import { stringify } from "yaml";

export function toYaml(config: unknown): string {
  return stringify(config, { lineWidth: 0, aliasDuplicateObjects: false });
}
