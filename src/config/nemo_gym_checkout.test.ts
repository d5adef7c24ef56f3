import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkoutConfigPath, checkoutOfConfigFile, looksLikeCheckout, serverDir } from "./nemo_gym_checkout.js";

describe("a NeMo Gym checkout's layout", () => {
  it("finds the checkout of a config file that sits at <root>/<type>/<id>/configs/, and nothing elsewhere", () => {
    expect(checkoutOfConfigFile("/co/resources_servers/my_env/configs/my_env.yaml", "resources_servers", "my_env")).toBe("/co");
    expect(checkoutOfConfigFile("/co/resources_servers/my_env/configs/other_name.yml", "resources_servers", "my_env")).toBe("/co");
    // Another id's folder, another type, not under configs/, not YAML: no checkout.
    expect(checkoutOfConfigFile("/co/resources_servers/other/configs/my_env.yaml", "resources_servers", "my_env")).toBeUndefined();
    expect(checkoutOfConfigFile("/co/responses_api_agents/my_env/configs/my_env.yaml", "resources_servers", "my_env")).toBeUndefined();
    expect(checkoutOfConfigFile("/co/resources_servers/my_env/my_env.yaml", "resources_servers", "my_env")).toBeUndefined();
    expect(checkoutOfConfigFile("/co/resources_servers/my_env/configs/my_env.json", "resources_servers", "my_env")).toBeUndefined();
  });

  it("maps a repo-relative config path to the checkout's file only when it exists", () => {
    const root = mkdtempSync(join(tmpdir(), "checkout-"));
    mkdirSync(join(root, "resources_servers", "my_env", "configs"), { recursive: true });
    writeFileSync(join(root, "resources_servers", "my_env", "configs", "my_env.yaml"), "{}\n");
    expect(looksLikeCheckout(root)).toBe(true);
    expect(looksLikeCheckout(join(root, "resources_servers"))).toBe(false);
    expect(checkoutConfigPath(root, "resources_servers/my_env/configs/my_env.yaml")).toBe(join(root, "resources_servers", "my_env", "configs", "my_env.yaml"));
    expect(checkoutConfigPath(root, "./resources_servers/my_env/configs/my_env.yaml")).toBe(join(root, "resources_servers", "my_env", "configs", "my_env.yaml"));
    expect(checkoutConfigPath(root, "resources_servers/missing/configs/missing.yaml")).toBeUndefined();
    expect(checkoutConfigPath(root, "../elsewhere/configs/x.yaml")).toBeUndefined();
    expect(serverDir(root, "resources_servers", "my_env")).toBe(join(root, "resources_servers", "my_env"));
  });
});
