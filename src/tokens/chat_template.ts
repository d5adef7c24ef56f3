// Rendering a Hugging Face chat template the way `transformers.apply_chat_template` does, with
// @huggingface/jinja: the same variables (`messages`, `tools`, `add_generation_prompt`,
// `bos_token`, `eos_token`, extra kwargs such as `enable_thinking`) and the same helpers
// (`raise_exception`, `strftime_now`, which @huggingface/jinja defines itself). Verified token for token against transformers in
// test/tokens_transformers.test.ts.
import { Template } from "@huggingface/jinja";

export interface RenderOptions {
  /** Chat Completions-style messages (`role`, `content`, `tool_calls`, `tool_call_id`, …). */
  messages: readonly unknown[];
  /** Tools in Chat Completions form (`{type: "function", function: {...}}`); null/empty = none. */
  tools?: readonly unknown[] | null | undefined;
  addGenerationPrompt: boolean;
  bosToken?: string | null | undefined;
  eosToken?: string | null | undefined;
  /** Extra template variables (`chat_template_kwargs`), e.g. `{enable_thinking: false}`. */
  kwargs?: Record<string, unknown> | null | undefined;
}

const compiled = new Map<string, Template>();

function compile(source: string): Template {
  let template = compiled.get(source);
  if (!template) {
    template = new Template(source);
    compiled.set(source, template);
  }
  return template;
}

export function renderChatTemplate(template: string, options: RenderOptions): string {
  return compile(template).render({
    messages: options.messages,
    // transformers passes None when there are no tools; templates test `if tools`.
    tools: options.tools?.length ? options.tools : null,
    documents: null,
    add_generation_prompt: options.addGenerationPrompt,
    bos_token: options.bosToken ?? "",
    eos_token: options.eosToken ?? "",
    ...options.kwargs,
  });
}
