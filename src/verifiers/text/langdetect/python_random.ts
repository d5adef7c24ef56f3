// CPython's `random.Random` now lives in src/verifiers/random/python_random.ts (shared by langdetect,
// grl_sokoban, grl_tetris and reasoning_gym); this path re-exports it for existing importers.
export { PythonRandom } from "../../random/python_random.js";
