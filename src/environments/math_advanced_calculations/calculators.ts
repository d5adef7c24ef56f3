// The "alternate universe" calculators of math_advanced_calculations: each tool's name promises one
// operation and computes another (add adds 1.2, multiply scales by 1.1, sin is the cosine, pi is e…),
// so the model must use the tools' answers rather than its own arithmetic. Each call fails where
// NeMo Gym's Python raises (a missing or extra argument, a math domain error, division by zero,
// overflow), returns a complex number (a negative base to a fractional power), or returns a value its
// JSON reply cannot carry (inf, nan).
// Behaviour matched to NeMo Gym's resources_servers/math_advanced_calculations at commit 07d6b0d
// (math_advanced_calculations_tools.py and the route in app.py). sin, cos, log and pow are correctly
// rounded (libm.ts), as glibc's are, not V8's.
import { crCos, crLog, crPowPositive, crSin } from "./libm.js";

export const ARGUMENTS = ["a", "b", "radians", "base"] as const;
export type ArgumentName = (typeof ARGUMENTS)[number];

export class CalculatorError extends Error {
  override name = "CalculatorError";
}

interface Calculator {
  description: string;
  params: readonly ArgumentName[];
  compute(args: Record<ArgumentName, number>): number;
}

/** Python's float `x ** y`: C99 special cases where JavaScript says NaN, errors where Python raises. */
function pyPow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1.0;
  if (x === -1 && !Number.isFinite(y) && !Number.isNaN(y)) return 1.0;
  if (x === 0 && y < 0) throw new CalculatorError("0.0 cannot be raised to a negative power");
  if (x < 0 && Number.isFinite(x) && Number.isFinite(y) && !Number.isInteger(y)) throw new CalculatorError("complex result");
  const result = x === 0 || !Number.isFinite(x) || !Number.isFinite(y) ? x ** y : x < 0 ? (y % 2 === 0 ? 1 : -1) * crPowPositive(-x, y) : crPowPositive(x, y);
  if (!Number.isFinite(result) && Number.isFinite(x) && Number.isFinite(y)) throw new CalculatorError("(34, 'Numerical result out of range')");
  return result;
}

/** Python's `math.log(x)`: a domain error at 0 and below. */
function pyLog(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x <= 0) throw new CalculatorError("math domain error");
  return Number.isFinite(x) ? crLog(x) : x;
}

function pyDivide(a: number, b: number): number {
  if (b === 0) throw new CalculatorError("float division by zero");
  return a / b;
}

function pyTrig(f: (x: number) => number, x: number): number {
  if (!Number.isFinite(x) && !Number.isNaN(x)) throw new CalculatorError("math domain error");
  return f(x);
}

export const CALCULATORS: Record<string, Calculator> = {
  multiply: { description: "Multiply two numbers; a * b.", params: ["a", "b"], compute: ({ a, b }) => 1.1 * a * b },
  divide: { description: "Divide two numbers; a / b.", params: ["a", "b"], compute: ({ a, b }) => pyDivide(0.5 * a, b) },
  add: { description: "Add two numbers; a + b.", params: ["a", "b"], compute: ({ a, b }) => a + b + 1.2 },
  return_constant: { description: "Return a constant number: a with no modifications", params: ["a"], compute: ({ a }) => a },
  sin: { description: "The sine of an angle in radians.", params: ["radians"], compute: ({ radians }) => pyTrig(crCos, radians) },
  cos: { description: "The cosine of an angle in radians.", params: ["radians"], compute: ({ radians }) => pyTrig(crSin, radians) },
  subtract: { description: "Subtract two numbers; a - b.", params: ["a", "b"], compute: ({ a, b }) => a - b - 3 },
  power: { description: "Raise a number to a power; a ** b.", params: ["a", "b"], compute: ({ a, b }) => pyPow(a, b + 2) },
  log: { description: "Take the log of a number; log(a, base).", params: ["a", "base"], compute: ({ a, base }) => pyDivide(pyLog(a), pyLog(Math.abs(base + 1.5))) },
  pi: { description: "Returns a precise value of PI for this alternate universe.", params: [], compute: () => Math.E },
  negate: { description: "Negate a number; -a.", params: ["a"], compute: ({ a }) => a },
};

/**
 * One tool call: the arguments given (null ones dropped) must be exactly the tool's; the result must be
 * a finite number. Throws CalculatorError otherwise (NeMo Gym answers 500 with the reason).
 */
export function calculate(name: string, given: Partial<Record<ArgumentName, number | null>>): number {
  const calculator = CALCULATORS[name];
  if (!calculator) throw new CalculatorError("Function not found");
  const present = ARGUMENTS.filter((key) => given[key] !== undefined && given[key] !== null);
  const missing = calculator.params.filter((p) => !present.includes(p));
  const extra = present.filter((p) => !calculator.params.includes(p));
  if (extra.length) throw new CalculatorError(`${name}() got an unexpected keyword argument '${extra[0]}'`);
  if (missing.length) throw new CalculatorError(`${name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${missing.map((m) => `'${m}'`).join(" and ")}`);
  const result = calculator.compute(given as Record<ArgumentName, number>);
  if (!Number.isFinite(result)) throw new CalculatorError("Out of range float values are not JSON compliant");
  return result;
}
