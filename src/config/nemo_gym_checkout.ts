// Where a NeMo Gym checkout keeps a server, as NeMo Gym lays it out (NVIDIA-NeMo/Gym 07d6b0d,
// nemo_gym/cli/env.py RunHelper.start): the server of instance `<name>.<server type>.<id>` lives in
// `<root>/<server type>/<id>/`, its `entrypoint` (e.g. `app.py`) relative to that folder, and its
// configs in `<root>/<server type>/<id>/configs/*.yaml`.
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** A NeMo Gym Python server of a checkout: what gym needs to launch it. */
export interface PythonServerLocation {
  /** The checkout (the folder holding resources_servers/, responses_api_agents/, ...). */
  root: string;
  /** `<root>/<server type>/<id>`: the server's working directory. */
  dir: string;
  /** As the config gives it, relative to `dir` (NeMo Gym refuses absolute ones). */
  entrypoint: string;
}

/** The server folder of `<type>/<id>` in a checkout. */
export function serverDir(root: string, type: string, id: string): string {
  return join(resolve(root), type, id);
}

/**
 * The checkout a config file belongs to, when it sits where NeMo Gym keeps a server's configs:
 * `<root>/<type>/<id>/configs/<file>.yaml`. Undefined for a file anywhere else.
 */
export function checkoutOfConfigFile(file: string, type: string, id: string): string | undefined {
  const path = resolve(file);
  const configs = dirname(path);
  const idDir = dirname(configs);
  const typeDir = dirname(idDir);
  if (basename(configs) !== "configs" || basename(idDir) !== id || basename(typeDir) !== type) return undefined;
  if (!/\.ya?ml$/.test(path)) return undefined;
  return dirname(typeDir);
}

/** Whether `root` looks like a NeMo Gym checkout: a folder with at least one of the server-type folders. */
export function looksLikeCheckout(root: string): boolean {
  if (!existsSync(root) || !statSync(root).isDirectory()) return false;
  return ["resources_servers", "responses_api_agents", "responses_api_models"].some((type) => existsSync(join(root, type)));
}

/**
 * Maps a NeMo Gym repo-relative config path (`resources_servers/<id>/configs/<id>.yaml`) to the
 * checkout's file, for `--config` and `config_paths` naming an environment Gymkit does not ship.
 */
export function checkoutConfigPath(root: string, path: string): string | undefined {
  if (!/^(?:\.\/)?(resources_servers|responses_api_agents|responses_api_models)\/[\w.-]+\/configs\/[\w.-]+\.ya?ml$/.test(path)) return undefined;
  const candidate = join(resolve(root), path);
  return existsSync(candidate) ? candidate : undefined;
}
