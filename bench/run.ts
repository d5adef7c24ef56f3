// `npm run bench -- NAME [args…]`: runs bench/NAME.ts, whose default export prints a results table
// (with the machine it ran on, see ./machine.ts).
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const here = fileURLToPath(new URL(".", import.meta.url));
const [name, ...args] = process.argv.slice(2);
const available = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !["run.ts", "machine.ts"].includes(f))
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(join(here, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- NAME [args]\navailable: ${available.join(", ")}\n`);
  process.exit(2);
}
const module = (await import(`./${name}.ts`)) as { default: (args: string[]) => Promise<void> };
await module.default(args);
