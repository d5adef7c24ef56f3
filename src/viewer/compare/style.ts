// The style of the comparison views and the live-run line (browser/compare.ts, live.ts), joined after
// the viewer's own style sheet (page.ts).

export const COMPARE_STYLE: string = `
#compare table { margin-bottom: 6px; }
#compare-tasks td.snippet { max-width: 420px; }
.pairing { font-size: 12px; color: var(--muted); }
.compare-columns { display: grid; gap: 12px; align-items: start; }
.compare-column { min-width: 0; }
.compare-column h3 { margin-top: 0; text-transform: none; color: var(--fg); font-size: 15px; }
.picks { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0; font-size: 12px; }
.picks a.current { font-weight: 700; text-decoration: underline; }
.shown { font-size: 12px; color: var(--muted); margin-bottom: 6px; }
.live { margin: 6px 0 0; font-size: 13px; color: var(--muted); }
.live b { color: var(--good); }
`;
