// `gym env start --protocols ...`: one protocol gateway per environment instance (resources server),
// Gymkit-native or NeMo Gym Python alike, each on its own port with every chosen protocol under its
// prefix, its episodes starting from the rows of the datasets the config's agents give that
// environment.
import { EnvironmentBridge } from "./episode.js";
import { startGateway, type ProtocolEndpoint, type ProtocolLayer, type ProtocolSettings, type RunningGateway } from "./gateway.js";
import { datasetFilesFor, descriptionIn, loadDatasetRows } from "./rows.js";

export interface ServedInstance {
  name: string;
  server_type: string;
  url: string;
  host: string;
}

export interface RunningProtocols {
  endpoints: ProtocolEndpoint[];
  close(): Promise<void>;
}

export async function startProtocolGateways(
  running: readonly ServedInstance[],
  /** The merged config (secrets may be hidden): where the agents' datasets and descriptions are. */
  config: unknown,
  layers: readonly ProtocolLayer[],
  options: { settings?: ProtocolSettings; warn?: (message: string) => void } = {},
): Promise<RunningProtocols> {
  const gateways: RunningGateway[] = [];
  const close = async () => {
    await Promise.allSettled(gateways.map((g) => g.close()));
  };
  if (layers.length === 0) return { endpoints: [], close };
  try {
    for (const instance of running) {
      if (instance.server_type !== "resources_servers") continue;
      const { files, missing } = datasetFilesFor(instance.name, config);
      if (missing.length > 0) options.warn?.(`${instance.name}: dataset file${missing.length > 1 ? "s" : ""} not found, served without ${missing.length > 1 ? "them" : "it"}: ${missing.join(", ")}`);
      if (files.length === 0) options.warn?.(`${instance.name}: no agent of the config gives it a dataset; its protocol clients must pass whole rows (OpenEnv: reset data "row")`);
      const rows = await loadDatasetRows(files);
      const description = descriptionIn(config, instance.name);
      const bridge = new EnvironmentBridge({ name: instance.name, url: instance.url, rows, description });
      gateways.push(await startGateway(bridge, layers, { host: instance.host, settings: options.settings }));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoints: gateways.flatMap((g) => g.endpoints), close };
}
