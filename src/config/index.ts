// Public API of the config layer: compose NeMo Gym-shaped YAML from files, env.yaml and command-line
// overrides, resolve `${...}`, validate instances with did-you-mean errors, and print it safely.
export { ConfigError } from "./errors.js";
export { composeConfig, resolveConfig, ENV_YAML } from "./resolve.js";
export type { ComposeOptions, ComposedConfig, ResolveOptions, ResolvedConfig } from "./resolve.js";
export { validateConfig } from "./validate.js";
export type { ImplementationRegistry, ResolvedInstance, ValidatedImplementation, ValidateOptions } from "./validate.js";
export { parseOverride, flagOverride, applyOverrides } from "./overrides.js";
export type { FlagOverride, Override, OverrideMode } from "./overrides.js";
export { parseOverrideValue } from "./override_value.js";
export { resolveInterpolations } from "./interpolate.js";
export type { Environment } from "./interpolate.js";
export { loadConfigFiles, CONFIG_PATHS_KEY } from "./config_files.js";
export { environmentConfigPath, modelConfigPath, nemoGymBuiltinPath, PACKAGE_ROOT } from "./builtin_configs.js";
export { METADATA_KEYS } from "./metadata_keys.js";
export type { BuiltinConfigResolver, ConfigFile } from "./config_files.js";
export { parseConfigYaml, readConfigFile } from "./load_yaml.js";
export { mergeInto } from "./merge.js";
export { Provenance } from "./provenance.js";
export { findInstances, isServerType, SERVER_TYPES } from "./instances.js";
export { redactSecrets, isSecretKey, REDACTED } from "./redact.js";
export { toYaml } from "./to_yaml.js";
export { nearest, didYouMean, listNames } from "./suggest.js";
export type { Mapping, ConfigPath } from "./tree.js";
export { checkSettings, settingKeys, interpolatedRoots } from "./check_settings.js";
export type { SettingsCheckOptions } from "./check_settings.js";
export { classifySetting, KNOWN_SETTINGS, readsSetting } from "./settings_keys.js";
export type { ConfigCommand } from "./settings_keys.js";
