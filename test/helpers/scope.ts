// Things a test file starts (engines, servers) and must stop when the file is done, in reverse order.
import { afterAll } from "vitest";
import { closeDispatcher } from "../../src/http/client.js";
import { startFakeEngine, type FakeEngine, type FakeEngineOptions } from "../doubles/fake_engine.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await closeDispatcher();
});

/** Runs `cleanup` after the file's tests. */
export function onTeardown(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

/** A fake engine stopped after the file's tests. */
export async function engineOf(options: FakeEngineOptions = {}): Promise<FakeEngine> {
  const engine = await startFakeEngine(options);
  onTeardown(() => engine.close());
  return engine;
}
