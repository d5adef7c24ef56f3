// The Tetris game of NeMo Gym's grl_tetris (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/grl_tetris/tetris_env/tetris_env.py, adapted there from GRL), step for step: a
// `width` × `height` board indexed [x][y] (y grows downwards), pieces drawn by CPython's `random`
// (`randint`) with weights that favour the shapes drawn least, and the same side effects (rendering
// clears the board under the falling piece, the shape counts carry over from one generation to the
// next). Checked against the Python code in testdata/tetris_games.json.
import { PythonRandom } from "../../verifiers/random/python_random.js";

export type Cell = readonly [dx: number, dy: number];
export type Shape = readonly Cell[];
type Anchor = readonly [x: number, y: number];
interface Piece {
  anchor: Anchor;
  shape: Shape;
}

/** A Python exception NeMo Gym's code would raise (it would answer 500; Gymkit answers 400). */
export class GameError extends Error {}

const I: Shape = [[0, 0], [0, -1]];
const DASH: Shape = [[0, 0], [-1, 0]];
const O3: Shape = [[0, 0], [-1, 0], [0, -1], [-1, -1]];
const O1: Shape = [[0, 0]];

/** The shapes of a `box_type` in their draw order (`shape_names`): 2 → I, -; 3 → I, -, O; else one cell. */
export function shapesOf(boxType: unknown): Shape[] {
  if (boxType === 2) return [I, DASH];
  if (boxType === 3) return [I, DASH, O3];
  return [O1];
}

/** `random.randint(a, b)`: a + _randbelow(b − a + 1), ValueError on an empty range. */
export function randint(rng: PythonRandom, a: number, b: number): number {
  if (b < a) throw new GameError(`empty range in randint(${a}, ${b})`);
  return a + rng.randbelow(b - a + 1);
}

export interface StepInfo {
  action_is_effective?: boolean;
  action_is_valid?: boolean;
  success?: boolean;
  dropped?: boolean;
  error?: string;
}

export interface GameStep {
  observation: string;
  reward: number;
  done: boolean;
  info: StepInfo;
}

export class TetrisGame {
  readonly width: number;
  readonly height: number;
  private board: Uint8Array;
  private readonly shapes: Shape[];
  private readonly shapeCounts: number[];
  private anchor: Anchor | null = null;
  private shape: Shape | null = null;
  private preGenerated: Piece[] = [];
  private pieceIndex = 0;
  time = 0;
  score = 0;

  /**
   * `TetrisEnv(config)`. Its constructor already resets once without a seed, drawing from the
   * process's global `random`, whose state `all_seed` puts back afterwards: `globalRandom()` gives
   * a generator in that (unchanging) state. The shape counts of those draws carry into every later
   * reset, so they shape the seeded game too.
   */
  constructor(
    width: number,
    height: number,
    boxType: unknown,
    private readonly globalRandom: () => PythonRandom,
  ) {
    this.width = width;
    this.height = height;
    this.board = new Uint8Array(width * height);
    this.shapes = shapesOf(boxType);
    this.shapeCounts = this.shapes.map(() => 0);
    this.reset(null);
  }

  private at(x: number, y: number): boolean {
    return this.board[x * this.height + y] === 1;
  }

  private isOccupied(shape: Shape, anchor: Anchor): boolean {
    for (const [dx, dy] of shape) {
      const x = anchor[0] + dx;
      const y = anchor[1] + dy;
      if (y < 0) continue;
      if (x < 0 || x >= this.width || y >= this.height || this.at(x, y)) return true;
    }
    return false;
  }

  private chooseShape(rng: PythonRandom): Shape {
    const max = Math.max(...this.shapeCounts);
    const weights = this.shapeCounts.map((count) => 5 + max - count);
    let r = randint(rng, 1, weights.reduce((a, b) => a + b, 0));
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r <= 0) {
        this.shapeCounts[i]! += 1;
        return this.shapes[i]!;
      }
    }
    return this.shapes[0]!;
  }

  private generatePiece(rng: PythonRandom): Piece {
    const shape = this.chooseShape(rng);
    const wide = shape.some(([dx, dy]) => dx === -1 && dy === 0);
    const x = wide ? randint(rng, 1, this.width - 1) : randint(rng, 0, this.width - 1);
    return { anchor: [x, 0], shape };
  }

  private newPiece(): void {
    // Past the pre-generated pieces NeMo Gym draws from the global `random` itself; a game cannot
    // get there (each placement that does not end it fills a cell without completing a row).
    const piece = this.pieceIndex < this.preGenerated.length ? this.preGenerated[this.pieceIndex++]! : this.generatePiece(this.globalRandom());
    this.anchor = piece.anchor;
    this.shape = piece.shape;
  }

  private hasDropped(): boolean {
    return this.isOccupied(this.shape!, [this.anchor![0], this.anchor![1] + 1]);
  }

  private clearLines(): number {
    const canClear: boolean[] = [];
    for (let y = 0; y < this.height; y++) {
      let full = true;
      for (let x = 0; x < this.width; x++) full &&= this.at(x, y);
      canClear.push(full);
    }
    const next = new Uint8Array(this.width * this.height);
    let write = this.height - 1;
    for (let y = this.height - 1; y >= 0; y--) {
      if (canClear[y]) continue;
      for (let x = 0; x < this.width; x++) next[x * this.height + write] = this.board[x * this.height + y]!;
      write--;
    }
    const cleared = canClear.filter(Boolean).length;
    this.score += cleared;
    this.board = next;
    return cleared;
  }

  private setPiece(on: boolean): void {
    for (const [dx, dy] of this.shape!) {
      const x = this.anchor![0] + dx;
      const y = this.anchor![1] + dy;
      if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.board[x * this.height + y] = on ? 1 : 0;
    }
  }

  private move(dx: number, dy: number): void {
    const next: Anchor = [this.anchor![0] + dx, this.anchor![1] + dy];
    if (!this.isOccupied(this.shape!, next)) this.anchor = next;
  }

  /** `reset(seed)`: seeded (`random.seed(seed)`), or from the global `random` when `seed` is null. */
  reset(seed: number | null): string {
    const rng = seed === null ? this.globalRandom() : new PythonRandom(seed);
    this.time = 0;
    this.score = 0;
    this.board = new Uint8Array(this.width * this.height);
    this.preGenerated = [];
    this.pieceIndex = 0;
    for (let i = 0; i < this.width * this.height + 1; i++) this.preGenerated.push(this.generatePiece(rng));
    this.newPiece();
    return this.render();
  }

  /** `step(action)` with 0 Left, 1 Right, 2 Down; any other action ends the game unplayed. */
  step(action: number | string): GameStep {
    if (action !== 0 && action !== 1 && action !== 2) return { observation: this.render(), reward: 0, done: true, info: { error: "Invalid action" } };
    const previous = this.anchor;
    if (action === 0) this.move(-1, 0);
    else if (action === 1) this.move(1, 0);
    else this.move(0, 1);
    this.time += 1;
    let reward = -0.1;
    let done = false;
    let dropped = false;
    let cleared = 0;
    if (this.hasDropped()) {
      dropped = true;
      this.setPiece(true);
      cleared = this.clearLines();
      reward += cleared * 10;
      let topRow = false;
      for (let x = 0; x < this.width; x++) topRow ||= this.at(x, 0);
      if (topRow) done = true;
      else this.newPiece();
    }
    this.setPiece(true);
    const observation = this.render();
    this.setPiece(false);
    const effective = previous !== null && (previous[0] !== this.anchor![0] || previous[1] !== this.anchor![1]);
    if (cleared > 0) done = true;
    return { observation, reward, done, info: { action_is_effective: effective, action_is_valid: true, success: cleared > 0, dropped } };
  }

  /** The board as text, one line per row: `#` settled, `_` empty, `X` the falling piece. */
  render(): string {
    const lines: string[][] = [];
    for (let y = 0; y < this.height; y++) {
      const row: string[] = [];
      for (let x = 0; x < this.width; x++) row.push(this.at(x, y) ? "#" : "_");
      lines.push(row);
    }
    if (lines.length === 0) lines.push([]);
    // NeMo Gym sets and then clears the piece's cells here, which empties them on the board.
    this.setPiece(true);
    const positions = this.shape!.map(([dx, dy]) => [this.anchor![0] + dx, this.anchor![1] + dy] as const);
    this.setPiece(false);
    for (const [x, y] of positions) {
      if (y >= 0 && y < lines.length && x >= 0 && x < lines[0]!.length) lines[y]![x] = "X";
    }
    return lines.map((row) => row.join("")).join("\n");
  }
}
