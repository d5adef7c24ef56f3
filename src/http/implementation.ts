// The contract between a server implementation (an environment, agent or model id) and the code
// that starts it. Every implementation is an HTTP server built from validated config fields. It lives
// in http/ so that models, environments and agents depend downwards on it, not up on orchestrate/.
import type { z } from "zod";
import type { ServerRef, ServerType } from "../protocol/index.js";
import type { HttpApp } from "./app.js";

export interface InstanceContext<C> {
  /** Instance name (the top-level config key), e.g. `example_multi_step_simple_agent`. */
  name: string;
  /** The implementation's fields, validated by its `configSchema`. */
  config: C;
  /** Base URL (`http://host:port`) of another instance; throws a clear error if the ref is unknown. */
  urlOf(ref: ServerRef | string): string;
}

export interface ServerImplementation<C = Record<string, unknown>> {
  type: ServerType;
  /** Implementation id as written in config YAML, e.g. `simple_agent`, `vllm_model`. */
  id: string;
  /** Strict schema of the implementation's own fields (metadata keys are stripped before parsing). */
  configSchema: z.ZodType<C>;
  /**
   * Fields NeMo Gym's config of the same id has that mean nothing here: accepted with a warning
   * (field → why), and removed before `configSchema` sees them.
   */
  noEffectFields?: Readonly<Record<string, string>>;
  /** Builds the server. It is not listening yet; the caller binds it. */
  build(context: InstanceContext<C>): Promise<HttpApp>;
}

// Kept beside the contract for implementations and tests that strip metadata keys themselves.
export { METADATA_KEYS } from "../config/metadata_keys.js";
