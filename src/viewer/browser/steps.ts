// The step-by-step view of a multi-turn episode, for the viewer page (app.ts shows it on a rollout).
// A classic script like app.ts (compiled on its own by tsconfig.browser.json and put inline before
// app.js by page.ts): it declares one global function, renderEpisode, and takes app.ts's DOM helpers
// as an argument, so that row content still enters the page only through them, as text.
//
// The API (GET /api/rollouts/:task/:rollout, `episode`; src/viewer/episode_steps.ts) gives each step
// as ranges of the row's prompt and output; this slices the row it already has.
"use strict";

/** What renderEpisode needs from app.ts. */
interface EpisodeUi {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, children?: Child | Child[]): HTMLElementTagNameMap[K];
  renderItem(item: unknown): HTMLElement;
  fmt(value: unknown): string;
  rewardClass(reward: number | null | undefined): string;
}

// Global: app.ts calls it (the page joins the two scripts), which lint cannot see from this file.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function renderEpisode(episode: EpisodeView, row: Row, ui: EpisodeUi): HTMLElement {
  const el = ui.el;
  const params: Row = row.responses_create_params || {};
  const input: unknown[] = typeof params.input === "string" ? [{ type: "message", role: "user", content: params.input }] : Array.isArray(params.input) ? params.input : [];
  const output: unknown[] = row.response && Array.isArray(row.response.output) ? row.response.output : [];
  const recorded = episode.source === "recorded";

  function items(list: unknown[], range: Span | null): HTMLElement[] {
    if (!range) return [];
    return list.slice(range[0], range[1]).map(function (it) {
      // Reasoning is folded away: the action is what the model did.
      if (it && typeof it === "object" && (it as Row).type === "reasoning") {
        return el("details", { class: "step-reasoning" }, [el("summary", { text: "reasoning" }), ui.renderItem(it)]);
      }
      return ui.renderItem(it);
    });
  }
  function part(name: string, label: string, nodes: HTMLElement[], empty: string): HTMLElement {
    return el("div", { class: "step-part step-" + name }, [el("div", { class: "step-label", text: label }) as HTMLElement].concat(nodes.length ? nodes : [el("div", { class: "muted", text: empty })]));
  }
  function flag(on: boolean | null, name: string): HTMLElement | null {
    return on ? el("span", { class: "chip warn step-flag", text: name }) : null;
  }

  const nodes: Node[] = [el("div", { class: recorded ? "muted episode-note" : "notice episode-note", text: episode.note })];
  episode.steps.forEach(function (step) {
    const observation = items(input, step.observation.input).concat(items(output, step.observation.output));
    const head = el("div", { class: "step-head" }, [
      el("b", { text: "step " + step.step }),
      recorded ? [" · reward ", el("span", { class: "step-reward " + ui.rewardClass(step.reward), text: ui.fmt(step.reward) }), el("span", { class: "muted", text: " · cumulative " + ui.fmt(step.cumulative_reward) })] : el("span", { class: "muted", text: " · no per-step reward" }),
      " ",
      flag(step.terminated, "terminated"),
      flag(step.truncated, "truncated"),
    ].flat());
    nodes.push(
      el("section", { class: "step", "data-step": step.step }, [
        head,
        part("observation", step.step === 1 ? "observation (the prompt)" : "observation", observation, "no new observation"),
        part("action", "action", items(output, step.action), "no model output"),
        step.tool_outputs[1] > step.tool_outputs[0] ? part("tools", "tool outputs", items(output, step.tool_outputs), "") : null,
      ]),
    );
  });
  if (episode.final_observation !== null) {
    nodes.push(part("final", "final observation", [el("div", { class: "item role-user" }, el("div", { class: "body", text: episode.final_observation }))], ""));
  }
  const ended = episode.end === "max_steps" ? "cut at max_steps (truncated)" : episode.end === null ? "not recorded" : episode.end;
  const total = recorded ? ["total reward ", el("span", { class: ui.rewardClass(episode.total_reward), text: ui.fmt(episode.total_reward) })] : ["rollout reward ", el("span", { class: ui.rewardClass(row.reward), text: ui.fmt(row.reward) })];
  nodes.push(el("div", { class: "episode-end", id: "episode-end" }, ["episode ended: " + ended + " · " + episode.steps.length + " step" + (episode.steps.length === 1 ? "" : "s") + " · ", ...total]));
  return el("div", { class: "episode", id: "episode", "data-source": episode.source }, nodes);
}
