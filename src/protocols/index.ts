// The protocols an environment can be served over, by the name `gym env start --protocols` takes.
// `nemo-gym` is the environment server itself (always on); every other protocol is a layer mounted on
// the environment's protocol gateway (gateway.ts) over the shared episode bridge (episode.ts). A new
// protocol is one line here.
import { UserError } from "../config/user_error.js";
import type { ProtocolLayer } from "./gateway.js";
import { mcpLayer } from "./mcp/server.js";
import { openEnvLayer } from "./openenv/server.js";
import { orsLayer } from "./ors/server.js";

export const NEMO_GYM_PROTOCOL = "nemo-gym";

export const PROTOCOL_LAYERS: Readonly<Record<string, ProtocolLayer>> = {
  openenv: openEnvLayer,
  mcp: mcpLayer,
  ors: orsLayer,
};

export function protocolNames(): string[] {
  return [NEMO_GYM_PROTOCOL, ...Object.keys(PROTOCOL_LAYERS)];
}

/** `--protocols a,b,c`: the layers to mount (nemo-gym is always served); an unknown name is a usage error listing the known. */
export function parseProtocols(text: string | undefined): ProtocolLayer[] {
  if (text === undefined) return [];
  const names = text.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  const layers: ProtocolLayer[] = [];
  for (const name of names) {
    if (name === NEMO_GYM_PROTOCOL) continue;
    const layer = PROTOCOL_LAYERS[name];
    if (!layer) throw new UserError(`--protocols: unknown protocol "${name}"; known: ${protocolNames().join(", ")}`);
    if (!layers.includes(layer)) layers.push(layer);
  }
  return layers;
}

export { EnvironmentBridge, Episode, type EnvironmentKind, type EpisodeObservation, type EpisodeState, type StepOutcome } from "./episode.js";
export { EpisodeError, type EpisodeErrorCode } from "./errors.js";
export { DatasetRows, datasetFilesFor, loadDatasetRows, type DatasetRow } from "./rows.js";
export { startGateway, buildGateway, type ProtocolLayer, type ProtocolMount, type ProtocolEndpoint, type ProtocolSettings } from "./gateway.js";
