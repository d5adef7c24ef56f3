// Isolated execution of untrusted code: `Sandbox.create()` probes the machine, `sandbox.run()`
// runs one program; sessions keep a Python interpreter alive across cells; `buildSandboxService`
// is the HTTP /execute API.
export { Sandbox, SandboxUnavailableError, type SandboxOptions } from "./runner.js";
export { sharedSandbox } from "./shared.js";
export { DEFAULT_LIMITS, type RunLimits, type RunRequest, type RunResult, type RunStatus } from "./types.js";
export { LANGUAGES, PYTHON, programFor, isLanguage, type Language } from "./languages.js";
export { SessionManager, SessionsExhaustedError, type SessionInfo } from "./sessions.js";
export type { CellResult } from "./session.js";
export { buildSandboxService, cutOutput, processStatus, type ExecuteReply } from "./service.js";
