// What every route group of the viewer works on: the run's index and its metrics file.
import type { MetricsIndex } from "../metrics_index.js";
import type { RowSampleMemo } from "../plots/row_sample.js";
import type { RunIndex } from "../run_index/run_index.js";
import type { SearchLimits } from "../search.js";

export interface ViewerContext {
  run: RunIndex;
  metrics: MetricsIndex;
  search: SearchLimits;
  /** A live run's rows already read for the plots, carried from index to index. */
  rowSamples?: RowSampleMemo;
}
