// Launching a NeMo Gym Python server the way NeMo Gym's `ng_run` (`gym env start`) does, matched
// against NVIDIA-NeMo/Gym 07d6b0d: nemo_gym/cli/env.py RunHelper.start / shutdown and
// nemo_gym/cli/setup_command.py get_venv_path / run_command.
// - Python: the one the user names, else the server's venv as NeMo Gym builds it
//   (`<server dir>/.venv`, or `<uv_venv_dir>/<server type>/<id>/.venv` when uv_venv_dir is set).
//   Gymkit never builds venvs (no `uv pip install`: that needs the network).
// - Environment: the parent's, plus NEMO_GYM_CONFIG_DICT (the merged config as YAML, every server's
//   host/port in its block and `head_server`), NEMO_GYM_CONFIG_PATH (the instance name) and PYTHONPATH
//   (the server folder, then the checkout, then whatever PYTHONPATH was). Working directory: the
//   server folder. Command: `<python> <entrypoint>`.
// - Stop: SIGINT (what ng_run sends), then SIGKILL after a grace period, to the server's own process
//   group (so whatever it started goes too).
// NeMo Gym servers start a Ray cluster of their own at boot unless the config's
// `ray_head_node_address` names one to join; gym passes that key through and starts no Ray itself.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { toYaml } from "../config/to_yaml.js";
import type { PythonServerLocation } from "../config/nemo_gym_checkout.js";
import { UserError } from "../config/user_error.js";
import type { ServerType } from "../protocol/index.js";
import { placedConfig, type HeadAddress, type Placement } from "./nemo_gym_config.js";
import { waitAnswering } from "./answering.js";

export class PythonServerError extends UserError {}

export interface PythonChoice {
  /** `--nemo-gym-python` or the config key `nemo_gym_python`: used for every Python server. */
  explicit?: string;
  /** The config key `uv_venv_dir` (relative to the working directory, as NeMo Gym's Path.absolute()). */
  uvVenvDir?: string;
}

/** The venv NeMo Gym builds for a server (setup_command.py get_venv_path). */
export function nemoGymVenv(location: PythonServerLocation, type: ServerType, id: string, uvVenvDir?: string): string {
  // NeMo Gym's default uv_venv_dir is its checkout: then the venv sits inside the server folder.
  if (uvVenvDir !== undefined && resolve(uvVenvDir) !== resolve(location.root)) return join(resolve(uvVenvDir), type, id, ".venv");
  return join(location.dir, ".venv");
}

/** The Python that runs a server, or an error that says how to provide one. */
export function pythonExecutable(name: string, location: PythonServerLocation, type: ServerType, id: string, choice: PythonChoice): string {
  if (choice.explicit !== undefined) {
    if (!existsSync(choice.explicit)) throw new PythonServerError(`--nemo-gym-python (nemo_gym_python) ${choice.explicit} does not exist; name a Python executable, e.g. /usr/bin/python3 or a venv's bin/python.`);
    return choice.explicit;
  }
  const venv = nemoGymVenv(location, type, id, choice.uvVenvDir);
  const python = join(venv, "bin", "python");
  if (existsSync(python)) return python;
  throw new PythonServerError(
    `NeMo Gym server "${name}" (${type}/${id}) has no venv at ${venv}, and gym does not build venvs (it installs nothing). ` +
      `Build it with NeMo Gym (e.g. \`ng_run "+config_paths=[${type}/${id}/configs/${id}.yaml]"\` once in ${location.root}, which runs \`uv venv\` and \`uv pip install\` for it), ` +
      `or name a Python that has the server's dependencies with --nemo-gym-python PATH (config key nemo_gym_python)${choice.uvVenvDir === undefined ? "" : "; uv_venv_dir is set, so the venv is looked for under it"}.`,
  );
}

/** The config every Python server of a run boots from: placed, with the keys NeMo Gym's server base reads with `[...]`. */
export function nemoGymChildConfig(config: unknown, placements: readonly Placement[], head: HeadAddress): Record<string, unknown> {
  const placed = placedConfig(config, placements, head);
  // run_webserver reads global_config_dict["dry_run"] (and "head_server", which placedConfig sets).
  if (placed.dry_run === undefined) placed.dry_run = false;
  return placed;
}

/** The child's environment, as run_command and RunHelper.start build it. */
export function nemoGymChildEnv(parent: NodeJS.ProcessEnv, name: string, location: PythonServerLocation, configYaml: string): NodeJS.ProcessEnv {
  const pythonPath = [location.dir, location.root, ...(parent.PYTHONPATH ? [parent.PYTHONPATH] : [])].join(delimiter);
  return { ...parent, PYTHONPATH: pythonPath, NEMO_GYM_CONFIG_DICT: configYaml, NEMO_GYM_CONFIG_PATH: name };
}

export interface PythonLaunch {
  name: string;
  type: ServerType;
  implementation: string;
  location: PythonServerLocation;
  python: string;
  host: string;
  port: number;
  /** The child config (nemoGymChildConfig), secrets included: it travels in the environment, never to disk. */
  config: Record<string, unknown>;
  /** Where its stdout and stderr go (appended, as NeMo Gym's `tee -a`). */
  logPath: string;
  /** Each line it prints, when the caller echoes them (prefixed with the instance name by the caller). */
  onLine?: (line: string) => void;
  readyTimeoutMs: number;
  /** Aborted when another server of the run failed to start: this one stops booting and is stopped. */
  signal?: AbortSignal;
  /** Told the process id and start time (seconds since the epoch) as soon as it is spawned, before it is ready. */
  onSpawn?: (pid: number, startTime: number) => void;
}

export interface PythonServer {
  pid: number;
  /** Seconds since the epoch, as NeMo Gym's start_time. */
  startTime: number;
  url: string;
  /** Told once if the server exits before it is stopped. */
  onUnexpectedExit(listener: (how: string) => void): void;
  stop(): Promise<void>;
}

/** After SIGINT, how long a server may take to exit before SIGKILL (NeMo Gym waits 1 s; uvicorn needs 0.5). */
const STOP_GRACE_MS = 5_000;
const LAST_LINES = 20;

/** Process groups still alive, killed if gym exits without stopping them (an uncaught error). */
const liveGroups = new Set<number>();
process.once("exit", () => {
  for (const pid of liveGroups) killGroup(pid, "SIGKILL");
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Starts the server and waits until `GET /` answers (any status, as NeMo Gym's poll_for_status). */
export async function launchPythonServer(launch: PythonLaunch): Promise<PythonServer> {
  mkdirSync(dirname(launch.logPath), { recursive: true });
  const log = createWriteStream(launch.logPath, { flags: "a" });
  const lastLines: string[] = [];
  const onLine = (line: string) => {
    lastLines.push(line);
    if (lastLines.length > LAST_LINES) lastLines.shift();
    launch.onLine?.(line);
  };
  const startTime = Date.now() / 1000;
  const child = spawn(launch.python, [launch.location.entrypoint], {
    cwd: launch.location.dir,
    env: nemoGymChildEnv(process.env, launch.name, launch.location, toYaml(launch.config)),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: Ctrl-C at the terminal reaches gym, which stops it (and what it started) in order.
    detached: true,
  });
  const exited = new Promise<string>((resolveExit) => {
    child.once("error", (error) => resolveExit(`could not start ${launch.python}: ${error.message}`));
    child.once("exit", (code, signal) => resolveExit(signal ? `signal ${signal}` : `exit code ${code}`));
  });
  void exited.then(() => {
    if (child.pid) liveGroups.delete(child.pid);
  });
  if (child.pid) liveGroups.add(child.pid);
  if (child.pid) launch.onSpawn?.(child.pid, startTime);
  pipeLines(child, log, onLine);

  const url = `http://${launch.host.includes(":") ? `[${launch.host}]` : launch.host}:${launch.port}`;
  const stop = () => stopChild(child, exited, log);
  let stopping = false;
  const failure = await Promise.race([
    waitAnswering(url, launch.readyTimeoutMs).then((error) => (error === undefined ? undefined : `did not answer GET ${url}/ within ${Math.round(launch.readyTimeoutMs / 1000)} s (${error})`)),
    exited.then((how) => `exited during start-up (${how})`),
    new Promise<string>((resolveAbort) => {
      if (launch.signal?.aborted) resolveAbort("was stopped: another server failed to start");
      launch.signal?.addEventListener("abort", () => resolveAbort("was stopped: another server failed to start"), { once: true });
    }),
  ]);
  if (failure !== undefined) {
    await stop();
    await new Promise((r) => setImmediate(r)); // the last output lines
    throw new PythonServerError(
      `NeMo Gym server "${launch.name}" (${launch.python} ${launch.location.entrypoint} in ${launch.location.dir}) ${failure}. Log: ${launch.logPath}` +
        (lastLines.length > 0 ? `; its last lines:\n${lastLines.map((l) => `  ${l}`).join("\n")}` : "; it printed nothing."),
    );
  }
  return {
    pid: child.pid ?? 0,
    startTime,
    url,
    onUnexpectedExit: (listener) => {
      void exited.then((how) => {
        if (!stopping) listener(how);
      });
    },
    stop: async () => {
      stopping = true;
      await stop();
    },
  };
}

/** Both output streams into the log, and line by line to `onLine`. */
function pipeLines(child: ChildProcess, log: WriteStream, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let partial = "";
    stream?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      const text = partial + chunk.toString("utf8");
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine(line.replace(/\r$/, ""));
    });
    stream?.on("end", () => {
      if (partial) onLine(partial);
      partial = "";
    });
  }
}

async function stopChild(child: ChildProcess, exited: Promise<string>, log: WriteStream): Promise<void> {
  const pid = child.pid;
  if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
    killGroup(pid, "SIGINT");
    const graceful = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref())]);
    if (!graceful) {
      killGroup(pid, "SIGKILL");
      await exited;
    }
  }
  // Whatever it started in its group and left behind goes too.
  if (pid !== undefined) killGroup(pid, "SIGKILL");
  if (pid !== undefined) liveGroups.delete(pid);
  await new Promise<void>((r) => log.end(() => r()));
}
