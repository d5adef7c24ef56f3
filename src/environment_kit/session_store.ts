// Per-rollout session state with a bound: NeMo Gym keeps every session forever, which grows without
// limit over a run of millions of rollouts. This Map keeps the most recently used `capacity`
// sessions and forgets the least recently used beyond that (a finished rollout's session is the one
// nobody touches again).

export const DEFAULT_SESSION_CAPACITY = 100_000;

export class SessionStore<S> extends Map<string, S> {
  constructor(readonly capacity = DEFAULT_SESSION_CAPACITY) {
    super();
  }

  /** Reading a session marks it recently used. */
  override get(key: string): S | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      super.delete(key);
      super.set(key, value);
    }
    return value;
  }

  override set(key: string, value: S): this {
    super.delete(key);
    super.set(key, value);
    // Map iterates in insertion order: the first key is the least recently used.
    while (this.size > this.capacity) super.delete(super.keys().next().value as string);
    return this;
  }
}
