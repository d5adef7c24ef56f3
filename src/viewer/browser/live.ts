// A live run on the viewer page: when the server follows growing files (/api/version says live), the
// page listens to /api/events (Server-Sent Events, sent when a run changed), shows the progress in
// the header (#live: lines so far, and against the plan when the run has one) and raises the
// window event "gym:changed", on which app.ts re-reads what it shows. Part of the page's one classic
// script (see app.ts); text only into the DOM.
"use strict";

interface LiveVersion {
  version: number;
  live: boolean;
  runs: Array<{ name: string; version: number; rollouts: number; failures: number; failed_pairs: number; planned: number | null; missing_pairs: number | null; done: boolean }>;
}

(function () {
  const box = document.getElementById("live");
  function render(v: LiveVersion): void {
    if (!box || !v.live) return;
    const parts = v.runs.map(function (r) {
      let text = (v.runs.length > 1 ? r.name + ": " : "") + r.rollouts + " rollouts, " + r.failures + " failure lines";
      if (r.planned !== null && r.missing_pairs !== null) {
        const finished = r.planned - r.missing_pairs;
        text += " · " + finished + " of " + r.planned + " planned pairs (" + Math.floor((100 * finished) / Math.max(1, r.planned)) + "%)";
      }
      return text + (r.done ? " · done" : "");
    });
    const label = document.createElement("b");
    label.textContent = "● live";
    box.className = "live";
    box.replaceChildren(label, document.createTextNode(" " + parts.join(" | ")));
  }
  let last = -1;
  function onVersion(v: LiveVersion): void {
    render(v);
    if (last >= 0 && v.version !== last) window.dispatchEvent(new CustomEvent("gym:changed", { detail: v }));
    last = v.version;
  }
  fetch("/api/version", { headers: { accept: "application/json" } })
    .then(function (response) {
      return response.ok ? (response.json() as Promise<LiveVersion>) : null;
    })
    .then(function (v) {
      if (!v || !v.live) return;
      onVersion(v);
      const events = new EventSource("/api/events");
      events.addEventListener("version", function (event) {
        onVersion(JSON.parse((event as MessageEvent<string>).data) as LiveVersion);
      });
    })
    .catch(function () {
      // Not live: the page stays a snapshot.
    });
})();
