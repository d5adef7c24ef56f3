// Config keys NeMo Gym treats as metadata on any server (07d6b0d): accepted everywhere, used by none.
// Validation strips them before an implementation's schema sees its fields.
export const METADATA_KEYS = [
  "entrypoint",
  "domain",
  "verified",
  "verified_url",
  "description",
  "value",
  "license",
  "host",
  "port",
  "dataset",
  "datasets",
  "expose_tools_over_mcp",
  "num_workers",
  // Not NeMo Gym's: a server already running elsewhere (gym registers it, does not start it).
  "url",
] as const;
