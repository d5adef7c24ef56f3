// The Sokoban mechanics NeMo Gym's grl_sokoban plays: gym-sokoban 0.0.6's SokobanEnv.step for the
// actions 1-4 (push up/down/left/right, which move the player when there is no box to push), its
// reward (-0.1 a step, +1 for a box onto a target, -1 for one off it, +10 when every box is on a
// target), its end (every box on a target, or max_steps steps), and NeMo Gym's text rendering.
import type { Grid } from "./generation.js";

export interface Game {
  roomFixed: Grid;
  roomState: Grid;
  player: [number, number];
  numBoxes: number;
  maxSteps: number;
  numEnvSteps: number;
  boxesOnTarget: number;
}

/** NeMo Gym's DEFAULT_GRID_LOOKUP (6 is the player standing on a target). */
const GRID_LOOKUP: Record<number, string> = { 0: "#", 1: "_", 2: "O", 3: "√", 4: "X", 5: "P", 6: "S" };
/** gym-sokoban's CHANGE_COORDINATES, indexed by (action - 1) % 4. */
const CHANGE: ReadonlyArray<[number, number]> = [[-1, 0], [1, 0], [0, -1], [0, 1]];

export function newGame(roomFixed: Grid, roomState: Grid, numBoxes: number, maxSteps: number): Game {
  const row = roomState.findIndex((cells) => cells.includes(5));
  return { roomFixed, roomState, player: [row, roomState[row]!.indexOf(5)], numBoxes, maxSteps, numEnvSteps: 0, boxesOnTarget: 0 };
}

/** SokobanEnv.render("text"). */
export function render(game: Game): string {
  return game.roomState
    .map((cells, r) => cells.map((cell, c) => GRID_LOOKUP[cell === 5 && game.roomFixed[r]![c] === 2 ? 6 : cell] ?? "?").join(""))
    .join("\n");
}

/** numpy indexing, negative indices counting from the end. */
const at = (grid: Grid, r: number, c: number): number | undefined => {
  const row = grid[r < 0 ? grid.length + r : r];
  return row?.[c < 0 ? row.length + c : c];
};

function move(game: Game, action: number): boolean {
  const change = CHANGE[(action - 1) % 4]!;
  const [r, c] = game.player;
  const next: [number, number] = [r + change[0], c + change[1]];
  const cell = at(game.roomState, next[0], next[1]);
  if (cell === 1 || cell === 2) {
    game.player = next;
    game.roomState[next[0]]![next[1]] = 5;
    game.roomState[r]![c] = game.roomFixed[r]![c]!;
    return true;
  }
  return false;
}

function push(game: Game, action: number): void {
  const change = CHANGE[(action - 1) % 4]!;
  const [r, c] = game.player;
  const next: [number, number] = [r + change[0], c + change[1]];
  const box: [number, number] = [next[0] + change[0], next[1] + change[1]];
  if (box[0] >= game.roomState.length || box[1] >= game.roomState[0]!.length) return;
  const nextCell = at(game.roomState, next[0], next[1]);
  const boxCell = at(game.roomState, box[0], box[1]);
  if ((nextCell === 3 || nextCell === 4) && (boxCell === 1 || boxCell === 2)) {
    game.player = next;
    game.roomState[next[0]]![next[1]] = 5;
    game.roomState[r]![c] = game.roomFixed[r]![c]!;
    game.roomState[box[0]]![box[1]] = game.roomFixed[box[0]]![box[1]] === 2 ? 3 : 4;
    return;
  }
  move(game, action);
}

/** Targets not covered by a box (empty, or under the player). */
function openTargets(game: Game): number {
  let open = 0;
  game.roomState.forEach((cells, r) => cells.forEach((cell, c) => { if (cell === 2 || (cell === 5 && game.roomFixed[r]![c] === 2)) open++; }));
  return open;
}

/** One SokobanEnv.step with action 1-4: the step's reward and whether the episode is over. */
export function step(game: Game, action: 1 | 2 | 3 | 4): { reward: number; done: boolean } {
  game.numEnvSteps += 1;
  push(game, action);
  let reward = -0.1;
  const onTarget = game.numBoxes - openTargets(game);
  if (onTarget > game.boxesOnTarget) reward += 1;
  else if (onTarget < game.boxesOnTarget) reward += -1;
  const won = openTargets(game) === 0;
  if (won) reward += 10;
  game.boxesOnTarget = onTarget;
  return { reward, done: won || game.maxSteps === game.numEnvSteps };
}
