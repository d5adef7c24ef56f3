// decimal.js for ESM under NodeNext: its types are CommonJS-shaped (a default import types as the
// module namespace) while its ESM build exports the class as default. This module hands out the
// class with the right type whichever build the loader picked.
import DecimalModule from "decimal.js";
import type { Decimal as DecimalInstance } from "decimal.js";

type DecimalClass = typeof DecimalInstance;
const loaded = DecimalModule as unknown as DecimalClass & { default?: DecimalClass };

export const Decimal: DecimalClass = loaded.default ?? loaded;
export type Decimal = DecimalInstance;
