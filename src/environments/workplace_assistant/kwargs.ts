// Calling a tool as Python calls `function(**args)`: an unknown keyword is a TypeError, a missing one
// takes the parameter's default.
import { PyError } from "./py.js";

export type Kwargs = Record<string, unknown>;

/** The arguments by parameter name, defaults filled in; throws TypeError as CPython does for an unknown keyword. */
export function bind(functionName: string, defaults: Kwargs, kwargs: Kwargs): Kwargs {
  for (const key of Object.keys(kwargs)) {
    if (!(key in defaults)) throw new PyError(`TypeError: ${functionName}() got an unexpected keyword argument '${key}'`);
  }
  return { ...defaults, ...kwargs };
}
