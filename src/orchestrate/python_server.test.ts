import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { nemoGymChildConfig, nemoGymChildEnv, nemoGymVenv, pythonExecutable, PythonServerError } from "./python_server.js";

const location = { root: "/co", dir: "/co/resources_servers/my_env", entrypoint: "app.py" };

describe("launching a NeMo Gym Python server as ng_run does", () => {
  it("looks for the venv where NeMo Gym builds it: the server folder, or under uv_venv_dir when that is not the checkout", () => {
    expect(nemoGymVenv(location, "resources_servers", "my_env")).toBe("/co/resources_servers/my_env/.venv");
    expect(nemoGymVenv(location, "resources_servers", "my_env", "/co")).toBe("/co/resources_servers/my_env/.venv");
    expect(nemoGymVenv(location, "resources_servers", "my_env", "/venvs")).toBe("/venvs/resources_servers/my_env/.venv");
  });

  it("takes a named Python first, else the venv's, else explains how to get one", () => {
    const root = mkdtempSync(join(tmpdir(), "venv-"));
    const dir = join(root, "resources_servers", "my_env");
    mkdirSync(join(dir, ".venv", "bin"), { recursive: true });
    const here = { root, dir, entrypoint: "app.py" };
    expect(() => pythonExecutable("my_env", here, "resources_servers", "my_env", {})).toThrow(PythonServerError);
    writeFileSync(join(dir, ".venv", "bin", "python"), "");
    expect(pythonExecutable("my_env", here, "resources_servers", "my_env", {})).toBe(join(dir, ".venv", "bin", "python"));
    expect(pythonExecutable("my_env", here, "resources_servers", "my_env", { explicit: process.execPath })).toBe(process.execPath);
    expect(() => pythonExecutable("my_env", here, "resources_servers", "my_env", { explicit: join(root, "nope") })).toThrow(/does not exist/);
    expect(() => pythonExecutable("my_env", here, "resources_servers", "my_env", { uvVenvDir: join(root, "elsewhere") })).toThrow(/uv_venv_dir is set/);
  });

  it("gives the child its config, its instance name and PYTHONPATH = server folder, checkout, then the parent's", () => {
    const env = nemoGymChildEnv({ PATH: "/bin", PYTHONPATH: "/mine" }, "my_env", location, "a: 1\n");
    expect(env.PATH).toBe("/bin");
    expect(env.NEMO_GYM_CONFIG_PATH).toBe("my_env");
    expect(env.NEMO_GYM_CONFIG_DICT).toBe("a: 1\n");
    expect(env.PYTHONPATH).toBe(["/co/resources_servers/my_env", "/co", "/mine"].join(delimiter));
    expect(nemoGymChildEnv({}, "my_env", location, "").PYTHONPATH).toBe(["/co/resources_servers/my_env", "/co"].join(delimiter));
  });

  it("boots it from a config with every server placed, head_server, and dry_run false unless set", () => {
    const config = { my_env: { resources_servers: { my_env: { entrypoint: "app.py", word: "x" } } }, policy_api_key: "secret" };
    const placed = nemoGymChildConfig(config, [{ name: "my_env", server_type: "resources_servers", implementation: "my_env", host: "127.0.0.1", port: 4321 }], { host: "127.0.0.1", port: 11000 });
    expect(placed).toMatchObject({
      my_env: { resources_servers: { my_env: { entrypoint: "app.py", word: "x", host: "127.0.0.1", port: 4321 } } },
      head_server: { host: "127.0.0.1", port: 11000 },
      dry_run: false,
      policy_api_key: "secret",
    });
    expect(nemoGymChildConfig({ dry_run: true }, [], { host: "h", port: 1 }).dry_run).toBe(true);
  });
});
