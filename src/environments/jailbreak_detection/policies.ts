// The policy-aware verifiers of NeMo Gym's jailbreak_detection (07d6b0d): a YAML file of verifier
// prompt templates (each with a positive and a negative label and their rewards) and a
// `policy_verifier_map` naming, per response policy, the verifiers to ask and how to combine them.
import { parse as parseYaml } from "yaml";
import { PromptTemplate, readPromptFile } from "../../judge/index.js";
import { PROMPTS } from "./prompts.js";

export interface Verifier {
  template: PromptTemplate;
  positive: string;
  negative: string;
  rewards: { positive: number; negative: number; unclear: number };
}

export interface Policy {
  verifiers: string[];
  /** "product", "average", or anything else: the first verifier's reward. */
  combination: string;
}

export interface PolicyVerifiers {
  verifiers: Map<string, Verifier>;
  policies: Map<string, Policy>;
}

const EMPTY: PolicyVerifiers = { verifiers: new Map(), policies: new Map() };

type Data = Record<string, unknown>;
const mapping = (value: unknown): Data => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Data) : {});
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const num = (value: unknown, fallback: number): number => (typeof value === "number" ? value : fallback);

/**
 * Reads `policy_verifier_templates_path` (relative: from the working directory, else the bundled
 * copy). As NeMo Gym, a file that is not there only disables policy-aware verification, with a warning.
 */
export function loadPolicyVerifiers(path: string | null, warn: (message: string) => void): PolicyVerifiers {
  if (!path) return EMPTY;
  let source: string;
  try {
    source = readPromptFile(path, { key: "policy_verifier_templates_path", bundled: PROMPTS });
  } catch (error) {
    warn(`${(error as Error).message} – policy-aware verification disabled`);
    return EMPTY;
  }
  const data = mapping(parseYaml(source));
  const { policy_verifier_map: map, ...templates } = data;
  const verifiers = new Map<string, Verifier>();
  for (const [name, raw] of Object.entries(templates)) {
    const tpl = mapping(raw);
    const labels = mapping(tpl.labels);
    const rewards = mapping(tpl.rewards);
    verifiers.set(name, {
      template: new PromptTemplate(text(tpl.prompt_template), `${path}: ${name}.prompt_template`),
      positive: text(labels.positive),
      negative: text(labels.negative),
      rewards: { positive: num(rewards.positive, 1.0), negative: num(rewards.negative, 0.0), unclear: num(rewards.unclear, 0.0) },
    });
  }
  const policies = new Map<string, Policy>();
  for (const [name, raw] of Object.entries(mapping(map))) {
    const policy = mapping(raw);
    const names = Array.isArray(policy.verifiers) ? policy.verifiers.map(String) : [];
    policies.set(name, { verifiers: names, combination: typeof policy.reward_combination === "string" ? policy.reward_combination : "product" });
  }
  return { verifiers, policies };
}

/** The combined reward of a policy's verifier rewards (in verifier order). */
export function combine(rewards: readonly number[], combination: string): number {
  if (combination === "product") return rewards.reduce((a, b) => a * b, 1.0);
  if (combination === "average") return rewards.reduce((a, b) => a + b, 0) / Math.max(rewards.length, 1);
  return rewards.length > 0 ? rewards[0]! : 0.0;
}
