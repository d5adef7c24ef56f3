// Where each implementation id lives: Gymkit's own, loaded lazily so that `gym --help` (and a server
// process that runs one instance) imports only what it uses, and your own, from the module a config's
// `entrypoint` names.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { ServerType } from "../protocol/index.js";
import type { ServerImplementation } from "../http/implementation.js";

type Loader = () => Promise<{ default: ServerImplementation<any> }>;

export const IMPLEMENTATIONS: Record<ServerType, Record<string, Loader>> = {
  resources_servers: {
    example_single_tool_call: () => import("../environments/example_single_tool_call/index.js"),
    example_multi_step: () => import("../environments/example_multi_step/index.js"),
    example_session_state_mgmt: () => import("../environments/example_session_state_mgmt/index.js"),
    example_tool_call_multireward: () => import("../environments/example_tool_call_multireward/index.js"),
    code_gen: () => import("../environments/code_gen/index.js"),
    python_tool: () => import("../environments/python_tool/index.js"),
    mcqa: () => import("../environments/mcqa/index.js"),
    instruction_following: () => import("../environments/instruction_following/index.js"),
    math_with_judge: () => import("../environments/math_with_judge/index.js"),
    example_multi_turn_gymnasium: () => import("../environments/example_multi_turn_gymnasium/index.js"),
    blackjack: () => import("../environments/blackjack/index.js"),
    reasoning_gym: () => import("../environments/reasoning_gym/index.js"),
    grl_tetris: () => import("../environments/grl_tetris/index.js"),
    grl_sokoban: () => import("../environments/grl_sokoban/index.js"),
    conversational_tool_use_simulation: () => import("../environments/conversational_tool_use_simulation/index.js"),
    // NeMo Gym's catalog (commit 07d6b0d), by family; each family's lines stay under its heading.

    // answers and formats
    string_match: () => import("../environments/string_match/index.js"),
    equivalence_rule: () => import("../environments/equivalence_rule/index.js"),
    polymath: () => import("../environments/polymath/index.js"),
    format_verification: () => import("../environments/format_verification/index.js"),
    math_advanced_calculations: () => import("../environments/math_advanced_calculations/index.js"),

    // structured outputs
    structeval: () => import("../environments/structeval/index.js"),
    structured_outputs: () => import("../environments/structured_outputs/index.js"),

    // multiple choice and QA
    gpqa_diamond: () => import("../environments/gpqa_diamond/index.js"),
    bunsenbench_chemistry_mcq: () => import("../environments/bunsenbench_chemistry_mcq/index.js"),
    hotpotqa_qa: () => import("../environments/hotpotqa_qa/index.js"),
    ragtruth: () => import("../environments/ragtruth/index.js"),
    spartqa: () => import("../environments/spartqa/index.js"),

    // instructions
    citation_if: () => import("../environments/citation_if/index.js"),
    ifbench: () => import("../environments/ifbench/index.js"),

    // long context
    graphwalks: () => import("../environments/graphwalks/index.js"),
    mrcr: () => import("../environments/mrcr/index.js"),
    ruler: () => import("../environments/ruler/index.js"),
    ruler2: () => import("../environments/ruler2/index.js"),
    lc_niah: () => import("../environments/lc_niah/index.js"),

    // tool use
    xlam_fc: () => import("../environments/xlam_fc/index.js"),
    single_step_tool_use_with_argument_comparison: () => import("../environments/single_step_tool_use_with_argument_comparison/index.js"),
    example_mcp_weather: () => import("../environments/example_mcp_weather/index.js"),
    calendar: () => import("../environments/calendar/index.js"),
    workplace_assistant: () => import("../environments/workplace_assistant/index.js"),

    // SQL and ARC
    arc_agi: () => import("../environments/arc_agi/index.js"),
    bird_sql: () => import("../environments/bird_sql/index.js"),
    spider2_lite: () => import("../environments/spider2_lite/index.js"),
    nvarc: () => import("../environments/nvarc/index.js"),

    // code
    math_with_code: () => import("../environments/math_with_code/index.js"),
    evalplus: () => import("../environments/evalplus/index.js"),
    code_fim: () => import("../environments/code_fim/index.js"),
    competitive_coding_challenges: () => import("../environments/competitive_coding_challenges/index.js"),

    // LLM-judged (on the judge kit, src/judge/)
    arena_judge: () => import("../environments/arena_judge/index.js"),
    equivalence_llm_judge: () => import("../environments/equivalence_llm_judge/index.js"),
    text_to_sql: () => import("../environments/text_to_sql/index.js"),
    xstest: () => import("../environments/xstest/index.js"),
    over_refusal_detection: () => import("../environments/over_refusal_detection/index.js"),
    jailbreak_detection: () => import("../environments/jailbreak_detection/index.js"),
    simpleqa: () => import("../environments/simpleqa/index.js"),
    omniscience: () => import("../environments/omniscience/index.js"),
    abstention: () => import("../environments/abstention/index.js"),
    genrm_compare: () => import("../environments/genrm_compare/index.js"),
    inverse_if: () => import("../environments/inverse_if/index.js"),
    multichallenge: () => import("../environments/multichallenge/index.js"),
    proof_judge: () => import("../environments/proof_judge/index.js"),
    math_with_autograder: () => import("../environments/math_with_autograder/index.js"),
    physics_judge: () => import("../environments/physics_judge/index.js"),
    ugphysics_judge: () => import("../environments/ugphysics_judge/index.js"),
    frontierscience_judge: () => import("../environments/frontierscience_judge/index.js"),
    // Servers of other protocols driven as environments (src/protocols/drive/; PROTOCOL_DRIVERS below)
    openenv_remote: () => import("../protocols/drive/openenv.js"),
    ors_remote: () => import("../protocols/drive/ors.js"),
  },
  responses_api_agents: {
    simple_agent: () => import("../agents/simple_agent.js"),
    tool_simulation_agent: () => import("../agents/tool_simulation_agent.js"),
    non_executing_simple_agent: () => import("../agents/non_executing_simple_agent.js"),
    gymnasium_agent: () => import("../agents/gymnasium_agent.js"),
    remote_agent: () => import("../agents/remote_agent.js"),
    // NeMo Gym's id, slash included (its folder responses_api_agents/conversational_tool_use/simulation/).
    "conversational_tool_use/simulation": () => import("../agents/conversational_tool_use_simulation.js"),
  },
  responses_api_models: {
    openai_model: () => import("../models/openai_model.js"),
    vllm_model: () => import("../models/vllm_model.js"),
    replay_model: () => import("../models/replay_model.js"),
    local_model: () => import("../models/local_model.js"),
    routing_proxy: () => import("../models/routing_proxy.js"),
    judge_replay_model: () => import("../models/judge_replay_model.js"),
    genrm_model: () => import("../models/genrm_model.js"),
    scripted_model: () => import("../models/scripted_model.js"),
  },
};

/**
 * Resources-server ids that are not environment folders but adapters to a server of another protocol
 * at a URL (an OpenEnv or Open Reward Standard server), played by gymnasium_agent.
 */
export const PROTOCOL_DRIVERS: ReadonlySet<string> = new Set(["openenv_remote", "ors_remote"]);

/**
 * A built-in implementation by id, or, for an id Gymkit does not ship, the one exported by the
 * JavaScript module at `entrypoint` (an absolute path; config validation resolves it against the
 * config file that set it). A built-in id ignores `entrypoint`: NeMo Gym configs set it to the
 * Python server of the same environment.
 */
export async function loadImplementation(type: ServerType, id: string, entrypoint?: string): Promise<ServerImplementation<any>> {
  const loader = IMPLEMENTATIONS[type][id];
  if (loader) return (await loader()).default;
  if (entrypoint === undefined) throw new Error(`unknown ${type} implementation "${id}"`);
  return loadEntrypoint(type, id, entrypoint);
}

const MODULE = /\.(?:m?js|cjs|m?ts|cts)$/;
const TYPESCRIPT = /\.[mc]?ts$/;

async function loadEntrypoint(type: ServerType, id: string, entrypoint: string): Promise<ServerImplementation<any>> {
  if (entrypoint.endsWith(".py")) {
    throw new Error(
      `entrypoint ${entrypoint} is a Python (NeMo Gym) server; Gymkit loads JavaScript modules. Run that server with NeMo Gym and give its URL to a Gymkit agent, or write the ${type} implementation with Gymkit's defineEnvironment`,
    );
  }
  if (!MODULE.test(entrypoint)) throw new Error(`entrypoint ${entrypoint} must be a JavaScript module (.js, .mjs or .cjs), or TypeScript run under a loader`);
  if (!existsSync(entrypoint)) throw new Error(`entrypoint ${entrypoint} does not exist`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(entrypoint).href)) as { default?: unknown };
  } catch (error) {
    // TypeScript loads when gym runs under a loader (e.g. NODE_OPTIONS="--import tsx"); Node 20 alone cannot.
    if (TYPESCRIPT.test(entrypoint) && (error as { code?: string }).code === "ERR_UNKNOWN_FILE_EXTENSION") {
      throw new Error(
        `entrypoint ${entrypoint} is TypeScript, which Node 20 does not import by itself: compile it (e.g. with tsc) and point entrypoint at the .js file, or run gym under a loader (NODE_OPTIONS="--import tsx" npx gym …)`,
        { cause: error },
      );
    }
    throw new Error(`entrypoint ${entrypoint} failed to load: ${(error as Error).message}`, { cause: error });
  }
  const impl = module.default as Partial<ServerImplementation<any>> | undefined;
  if (!impl || typeof impl.build !== "function" || typeof impl.configSchema?.safeParse !== "function") {
    throw new Error(`entrypoint ${entrypoint} must export a server implementation as its default export (e.g. \`export default defineEnvironment({...})\`)`);
  }
  if (impl.type !== type || impl.id !== id) {
    throw new Error(`entrypoint ${entrypoint} exports the ${impl.type} implementation "${impl.id}", but the config asks for the ${type} implementation "${id}"`);
  }
  return impl as ServerImplementation<any>;
}

// The built-in config paths live in config/ (composition follows them); re-exported for callers of the registry.
export { environmentConfigPath, modelConfigPath, PACKAGE_ROOT } from "../config/builtin_configs.js";

export function builtinIds(type: ServerType): string[] {
  return Object.keys(IMPLEMENTATIONS[type]);
}

export function hasConfigFile(path: string): boolean {
  return existsSync(path);
}
