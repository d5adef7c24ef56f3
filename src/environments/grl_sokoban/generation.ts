// Room generation as NeMo Gym's grl_sokoban does it (resources_servers/grl_sokoban/sokoban_env/
// generation.py at 07d6b0d, vendored from gym-sokoban 0.0.6): a random walk carves the room, the player
// and boxes are placed with numpy's legacy global RNG, a bounded depth-first reverse play pulls the
// boxes off their targets, and the player wanders a little. Python's `random` and numpy's RNG are
// reproduced draw for draw, so a seed gives NeMo Gym's level (testdata/levels.json, made by NeMo Gym's
// own generator, proves it).
import { PythonRandom } from "../../verifiers/random/python_random.js";
import { Mt19937 } from "../../verifiers/random/numpy_random.js";

/** Cell codes: 0 wall, 1 floor, 2 target, 3 box on target, 4 box, 5 player. */
export type Grid = number[][];

export interface Level {
  roomFixed: Grid;
  roomState: Grid;
}

/** Why a generation attempt failed: Python's RuntimeError (too few free cells) or RuntimeWarning (score 0). */
export class GenerationFailed extends Error {
  constructor(
    readonly pythonType: "RuntimeError" | "RuntimeWarning",
    message: string,
  ) {
    super(message);
    this.name = "GenerationFailed";
  }
}

type Pos = [number, number];
const CHANGE: readonly Pos[] = [[-1, 0], [1, 0], [0, -1], [0, 1]];
const MASKS: readonly number[][][] = [
  [[0, 0, 0], [1, 1, 1], [0, 0, 0]],
  [[0, 1, 0], [0, 1, 0], [0, 1, 0]],
  [[0, 0, 0], [1, 1, 0], [0, 1, 0]],
  [[0, 0, 0], [1, 1, 0], [1, 1, 0]],
  [[0, 0, 0], [0, 1, 1], [0, 1, 0]],
];
const DIRECTIONS: readonly Pos[] = [[1, 0], [0, 1], [-1, 0], [0, -1]];

const copyGrid = (grid: Grid): Grid => grid.map((row) => row.slice());
/** `np.where(grid == value)`: the cells in row-major order. */
const cellsOf = (grid: Grid, value: number): Pos[] => {
  const cells: Pos[] = [];
  grid.forEach((row, r) => row.forEach((cell, c) => { if (cell === value) cells.push([r, c]); }));
  return cells;
};
const firstCell = (grid: Grid, value: number): Pos => cellsOf(grid, value)[0]!;

/** SokobanEnv.reset's level for a seed: `random.seed(seed)` and `np.random.seed(seed)`, then generate_room. */
export function levelForSeed(seed: number, dim: Pos, numBoxes: number, searchDepth: number): Level {
  const py = new PythonRandom(seed);
  const np = new Mt19937(seed);
  // gym-sokoban's num_gen_steps: int(1.7 * (dim[0] + dim[1])).
  return generateRoom(py, np, dim, Math.trunc(1.7 * (dim[0] + dim[1])), numBoxes, searchDepth);
}

export function generateRoom(py: PythonRandom, np: Mt19937, dim: Pos, numSteps: number, numBoxes: number, searchDepth: number): Level {
  const tries = 4;
  let roomStructure: Grid = [];
  let roomState: Grid = [];
  let mapping: BoxMapping = new Map();
  for (let attempt = 0; attempt < tries; attempt++) {
    const room = placeBoxesAndPlayer(np, roomTopology(py, dim, 0.35, numSteps), numBoxes);
    roomStructure = room.map((row) => row.map((cell) => (cell === 5 ? 1 : cell)));
    const start = room.map((row) => row.map((cell) => (cell === 2 ? 4 : cell)));
    const played = reversePlaying(start, roomStructure, searchDepth);
    roomState = played.room.map((row) => row.map((cell) => (cell === 3 ? 4 : cell)));
    mapping = played.mapping;
    if (displacement(mapping) > 0) break;
  }
  if (displacement(mapping) === 0) throw new GenerationFailed("RuntimeWarning", "Generated Model with score == 0");
  const moveProbability = displacement(mapping) === 1 ? 0.8 : 0.5;
  roomState = addRandomPlayerMovement(py, roomState, roomStructure, moveProbability, 0.5, 3);
  return { roomFixed: roomStructure, roomState };
}

function roomTopology(py: PythonRandom, dim: Pos, pChangeDirections: number, numSteps: number): Grid {
  const [dimX, dimY] = dim;
  // random.sample(seq, 1)[0] and random.choice both draw one _randbelow(len(seq)).
  let direction = DIRECTIONS[py.randbelow(DIRECTIONS.length)]!;
  // random.randint(1, d - 1) = 1 + _randbelow(d - 1).
  const position: Pos = [1 + py.randbelow(dimX - 1), 1 + py.randbelow(dimY - 1)];
  const level: Grid = Array.from({ length: dimX }, () => new Array<number>(dimY).fill(0));
  for (let step = 0; step < numSteps; step++) {
    if (py.random() < pChangeDirections) direction = DIRECTIONS[py.randbelow(DIRECTIONS.length)]!;
    position[0] = Math.max(Math.min(position[0] + direction[0], dimX - 2), 1);
    position[1] = Math.max(Math.min(position[1] + direction[1], dimY - 2), 1);
    const mask = MASKS[py.randbelow(MASKS.length)]!;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) level[position[0] - 1 + r]![position[1] - 1 + c]! += mask[r]![c]!;
  }
  return level.map((row, r) => row.map((cell, c) => (r === 0 || r === dimX - 1 || c === 0 || c === dimY - 1 ? 0 : cell > 0 ? 1 : 0)));
}

function placeBoxesAndPlayer(np: Mt19937, room: Grid, numBoxes: number): Grid {
  const free = cellsOf(room, 1);
  if (free.length <= numBoxes + 1) {
    throw new GenerationFailed("RuntimeError", `Not enough free spots (${free.length}) to place 1 player(s) and ${numBoxes} boxes.`);
  }
  const [pr, pc] = free[np.below(free.length)]!;
  room[pr]![pc] = 5;
  for (let b = 0; b < numBoxes; b++) {
    const spots = cellsOf(room, 1);
    const [br, bc] = spots[np.below(spots.length)]!;
    room[br]![bc] = 2;
  }
  return room;
}

function addRandomPlayerMovement(py: PythonRandom, roomState: Grid, roomStructure: Grid, moveProbability: number, continueProbability: number, maxSteps: number): Grid {
  if (py.random() > moveProbability) return roomState;
  let player = firstCell(roomState, 5);
  const visited = new Set([player.join(",")]);
  let steps = 0;
  while (steps < maxSteps) {
    const moves: Pos[] = [];
    for (const change of CHANGE) {
      const next: Pos = [player[0] + change[0], player[1] + change[1]];
      const cell = roomState[next[0]]![next[1]]!;
      if ((cell === 1 || cell === 2) && !visited.has(next.join(","))) moves.push(next);
    }
    if (moves.length === 0) break;
    const next = moves[py.randbelow(moves.length)]!;
    roomState[player[0]]![player[1]] = roomStructure[player[0]]![player[1]]!;
    roomState[next[0]]![next[1]] = 5;
    player = next;
    visited.add(player.join(","));
    steps++;
    if (steps >= maxSteps || py.random() > continueProbability) break;
  }
  return roomState;
}

/** Each box's target → where the box is now, in the targets' row-major order (Python dict order). */
type BoxMapping = Map<string, Pos>;

const keyOf = (pos: Pos) => `${pos[0]},${pos[1]}`;

function displacement(mapping: BoxMapping): number {
  let score = 0;
  for (const [target, at] of mapping) {
    const [tr, tc] = target.split(",").map(Number) as Pos;
    score += Math.abs(at[0] - tr) + Math.abs(at[1] - tc);
  }
  return score;
}

interface Frame {
  state: Grid;
  mapping: BoxMapping;
  swaps: number;
  lastPull: string;
  ttl: number;
}

function reversePlaying(roomState: Grid, roomStructure: Grid, searchDepth: number): { room: Grid; mapping: BoxMapping } {
  const mapping: BoxMapping = new Map(cellsOf(roomStructure, 2).map((pos) => [keyOf(pos), pos]));
  const numBoxes = mapping.size;
  const explored = new Set<string>();
  let bestScore = -1;
  let bestRoom = copyGrid(roomState);
  let bestMapping = new Map(mapping);
  const stack: Frame[] = [{ state: copyGrid(roomState), mapping: new Map(mapping), swaps: 0, lastPull: "-1,-1", ttl: searchDepth }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const ttl = frame.ttl - 1;
    if (ttl <= 0 || explored.size >= 300000) continue;
    const hash = frame.state.map((row) => row.join(",")).join(";");
    if (explored.has(hash)) continue;
    let score = frame.swaps * displacement(frame.mapping);
    if (cellsOf(frame.state, 2).length !== numBoxes) score = 0;
    if (score > bestScore) {
      bestRoom = copyGrid(frame.state);
      bestScore = score;
      bestMapping = new Map(frame.mapping);
    }
    explored.add(hash);
    for (let action = 0; action < 4; action++) {
      const next = reverseMove(copyGrid(frame.state), roomStructure, new Map(frame.mapping), frame.lastPull, action);
      stack.push({
        state: next.state,
        mapping: next.mapping,
        swaps: next.lastPull !== frame.lastPull ? frame.swaps + 1 : frame.swaps,
        lastPull: next.lastPull,
        ttl,
      });
    }
  }
  return { room: bestRoom, mapping: bestMapping };
}

function reverseMove(state: Grid, structure: Grid, mapping: BoxMapping, lastPull: string, action: number): { state: Grid; mapping: BoxMapping; lastPull: string } {
  const player = firstCell(state, 5);
  const change = CHANGE[action % 4]!;
  const next: Pos = [player[0] + change[0], player[1] + change[1]];
  const cell = state[next[0]]![next[1]]!;
  if (cell === 1 || cell === 2) {
    state[player[0]]![player[1]] = structure[player[0]]![player[1]]!;
    state[next[0]]![next[1]] = 5;
    const box: Pos = [player[0] - change[0], player[1] - change[1]];
    const boxCell = state[box[0]]![box[1]]!;
    if (boxCell === 3 || boxCell === 4) {
      state[player[0]]![player[1]] = 3;
      state[box[0]]![box[1]] = structure[box[0]]![box[1]]!;
      for (const [target, at] of mapping) {
        if (at[0] === box[0] && at[1] === box[1]) {
          mapping.set(target, [player[0], player[1]]);
          lastPull = target;
        }
      }
    }
  }
  return { state, mapping, lastPull };
}
