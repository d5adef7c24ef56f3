// The run's plan (`<stem>_materialized_inputs.jsonl`): where each planned pair's line is, sorted by
// pair key, to find the input of a failed rollout and the pairs that have no line at all.
import { scanLines } from "../../collect/line_scan.js";
import { pairKey, pairOfLine } from "../../collect/lines.js";
import { float64Column, uint32Column } from "../columns.js";
import { lowerBound, parseObject, type FileReport } from "./entries.js";

export interface Planned {
  keys: Float64Array;
  offset: Float64Array;
  length: Uint32Array;
}

/** One pass over the plan; lines that are not JSON objects go to `onMalformed`. */
export function indexPlanned(report: FileReport, onMalformed: (file: string, line: number, reason: string) => void): Planned | undefined {
  if (!report.present) return undefined;
  const keys = float64Column();
  const offset = float64Column();
  const length = uint32Column();
  for (const scanned of scanLines(report.path)) {
    let pair = pairOfLine(scanned.text);
    if (!pair) {
      const row = parseObject(scanned.text);
      if (typeof row === "string") {
        onMalformed(report.path, scanned.line, row);
        continue;
      }
      pair = [scanned.line - 1, 0];
    }
    keys.push(pairKey(pair[0], pair[1]));
    offset.push(scanned.offset);
    length.push(scanned.length);
    report.lines++;
  }
  const planned = { keys: keys.seal(), offset: offset.seal(), length: length.seal() };
  let sorted = true;
  for (let i = 1; i < planned.keys.length && sorted; i++) sorted = planned.keys[i - 1]! <= planned.keys[i]!;
  if (sorted) return planned;
  const order = Array.from(planned.keys.keys()).sort((a, b) => planned.keys[a]! - planned.keys[b]!);
  return {
    keys: Float64Array.from(order, (i) => planned.keys[i]!),
    offset: Float64Array.from(order, (i) => planned.offset[i]!),
    length: Uint32Array.from(order, (i) => planned.length[i]!),
  };
}

/** The position in `planned` of a pair's line, if the plan has one. */
export function findPlanned(planned: Planned, task: number, rollout: number): number | undefined {
  const key = pairKey(task, rollout);
  const at = lowerBound(planned.keys.length, (i) => planned.keys[i]! < key);
  return planned.keys[at] === key ? at : undefined;
}
