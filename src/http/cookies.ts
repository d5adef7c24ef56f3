// Cookie handling for per-rollout sessions. Servers set an opaque session cookie on every reply;
// agents keep a jar per rollout and send it back, exactly as NeMo Gym's agents round-trip cookies.
import { parse as parseCookieHeader, serialize } from "cookie";

export function parseCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  const parsed = parseCookieHeader(header);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The value of one cookie of a Cookie header, as `parseCookies(header)[name]` gives it, without
 * building the object of every cookie: a server reads only its own session cookie, on every request.
 */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  return parseCookieHeader(header)[name];
}

const PLAIN = /^[A-Za-z0-9._-]*$/;

export function sessionCookie(name: string, value: string): string {
  // Session ids are uuids: nothing to encode, and this runs on every response.
  if (PLAIN.test(value)) return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax`;
  return serialize(name, value, { path: "/", httpOnly: true, sameSite: "lax" });
}

/** A minimal cookie jar: name → value, fed by Set-Cookie headers, rendered as a Cookie header. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  /** The Cookie header as last rendered; dropped when a value changes (every server re-sets the same cookie on every reply). */
  private rendered: string | undefined;
  /**
   * Set-Cookie lines that would change nothing if absorbed again: each server of a rollout sends the
   * same line on every reply. Emptied whenever a value changes; a few at most (one per server).
   */
  private readonly settled: string[] = [];

  constructor(initial?: Record<string, string>) {
    for (const [k, v] of Object.entries(initial ?? {})) this.cookies.set(k, v);
  }

  /** Absorbs one or many Set-Cookie header values. */
  update(setCookie: string | string[] | undefined): void {
    if (!setCookie) return;
    // One line is the common case (one session cookie per server): no array made for it.
    if (typeof setCookie === "string") this.absorb(setCookie);
    else for (const line of setCookie) this.absorb(line);
  }

  private absorb(line: string): void {
    if (this.settled.includes(line)) return;
    const first = line.split(";", 1)[0] ?? "";
    const eq = first.indexOf("=");
    if (eq <= 0) return;
    const name = first.slice(0, eq).trim();
    let value = first.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    const decoded = value.includes("%") ? decodeURIComponentSafe(value) : value;
    if (this.cookies.get(name) !== decoded) {
      this.cookies.set(name, decoded);
      this.rendered = undefined;
      this.settled.length = 0;
    }
    if (this.settled.length < 8) this.settled.push(line);
  }

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    this.rendered ??= [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
    return this.rendered;
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries(this.cookies);
  }
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
