// A counting semaphore: at most `size` judge calls of one environment instance in flight, the rest
// queued in arrival order (NeMo Gym's `judge_endpoint_max_concurrency` asyncio.Semaphore).
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`a limiter needs a positive integer size, got ${size}`);
  }

  /** Calls in flight now (for metrics and tests). */
  get inFlight(): number {
    return this.active;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** A limiter of `size`, or none when the config leaves it unbounded (null). */
export function limiterOf(size: number | null | undefined): Limiter | undefined {
  return size === null || size === undefined ? undefined : new Limiter(size);
}
