// Style of the plots view, the folded messages and the static report; appended to the page's style
// sheet (style.ts) with uPlot's own, under the same nonce (the report: under the style's hash).
export const PLOT_STYLE: string = `
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(580px, 1fr)); gap: 12px; }
.plot { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; min-width: 0; }
.plot h3 { margin: 2px 0 6px; }
.plot-notes { font-size: 12px; margin-bottom: 6px; }
.plot-key .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; }
.plot table.curriculum { width: auto; margin: 4px 0 6px; }
details.long > summary { color: var(--fg); }
details.long > summary .preview { white-space: pre-wrap; }
details.long > summary .size { color: var(--accent); }
details.long[open] > summary .preview { display: none; }
td.prompt { max-width: 420px; }
.hidden-metrics { font-size: 12px; margin-left: 6px; }
.report-section { margin: 18px 0; }
`;
