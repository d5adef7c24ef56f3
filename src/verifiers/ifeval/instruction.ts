// The shape of one instruction checker, and the argument handling they share. Each checker mirrors an
// IFEval-style class: `build_description(**kwargs)` (here `build`) validates and stores its arguments,
// `check_following(text)` (here `check`) gives the verdict. Anything that raises in Python — an
// unexpected argument name, an invalid relation, a bad regex, an index out of range — throws here,
// and the caller turns it into "not followed".
//
// One deliberate difference: when an argument is missing, IFEval's builders draw a random value (a
// random keyword, count or relation), so NeMo Gym's verdict for such a row is a coin toss. Here a
// missing argument throws, i.e. the instruction counts as not followed, every time.

export type Kwargs = Record<string, unknown>;

export interface Checker {
  check(text: string): boolean;
}

export interface Instruction {
  /** The argument names `build_description` accepts. */
  args: readonly string[];
  build(kwargs: Kwargs): Checker;
}

export class InstructionArgumentError extends Error {
  override name = "InstructionArgumentError";
}

/** Declares a checker; unexpected argument names are rejected before `build` sees them. */
export function instruction(args: readonly string[], build: (kwargs: Kwargs) => Checker["check"]): Instruction {
  return {
    args,
    build(kwargs) {
      for (const key of Object.keys(kwargs)) {
        if (!args.includes(key)) throw new InstructionArgumentError(`unexpected keyword argument '${key}'`);
      }
      return { check: build(kwargs) };
    },
  };
}

/** `"less than"` → count < n; `"at least"` → count ≥ n. */
export type Relation = "less than" | "at least";

export function relationArg(kwargs: Kwargs, name: string): Relation {
  const value = kwargs[name];
  if (value === undefined) throw new InstructionArgumentError(`${name} is required`);
  if (value !== "less than" && value !== "at least") {
    throw new InstructionArgumentError(`The supported relation for comparison must be in ["less than", "at least"], but ${JSON.stringify(value)} is given.`);
  }
  return value;
}

export function compare(count: number, relation: Relation, n: number): boolean {
  return relation === "less than" ? count < n : count >= n;
}

/** A number (Python int or float). Booleans are not numbers here (JSON keeps them apart). */
export function numberArg(kwargs: Kwargs, name: string): number {
  const value = kwargs[name];
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new InstructionArgumentError(`${name} must be a number, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** An integer, as used for indices and exact counts. */
export function intArg(kwargs: Kwargs, name: string): number {
  const value = numberArg(kwargs, name);
  if (!Number.isInteger(value)) throw new InstructionArgumentError(`${name} must be an integer, got ${value}`);
  return value;
}

/** A non-empty string (IFEval treats "" like a missing argument). */
export function stringArg(kwargs: Kwargs, name: string): string {
  const value = kwargs[name];
  if (typeof value !== "string" || value === "") throw new InstructionArgumentError(`${name} must be a non-empty string`);
  return value;
}

export function stringListArg(kwargs: Kwargs, name: string): string[] {
  const value = kwargs[name];
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === "string")) {
    throw new InstructionArgumentError(`${name} must be a non-empty list of strings`);
  }
  return value as string[];
}
