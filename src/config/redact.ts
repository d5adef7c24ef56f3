// Hides secrets before a config is printed (`gym env resolve`, the head server's config dump).
//
// A key is secret when its last word is `token`, `secret(s)`, `password`/`passwd`, `apikey`,
// `authorization` or `cookie` (header names), or it
// ends in `api_key` / `secret_key` / `private_key` / `access_key` (any case or separator:
// `policy_api_key`, `OPENAI_API_KEY`, `hf_token`, `accessToken`, `client_secret`). Looking at the last
// word rather than any substring keeps `max_output_tokens`, `tokenizer` and `return_tokens_as_token_ids`
// visible: token counts and flags are everywhere in this domain and never secret. Under a secret key
// every non-empty value becomes `***` (booleans too reveal nothing, so they stay), except the literal
// `dummy`, the conventional "no key needed" placeholder, which stays so users can see it is set.
// Any other string that holds a URL shows it without its userinfo password or key-like query values
// (`--model-url http://user:KEY@host/v1` sets `policy_base_url`, which is not a secret key).
import { redactUrlsIn } from "./url_secrets.js";
import { isMapping } from "./tree.js";

export const REDACTED = "***";

// `authorization` and `cookie` are header names: engine headers (`default_headers`) carry credentials in them.
const SECRET_WORDS = new Set(["token", "secret", "secrets", "password", "passwd", "apikey", "authorization", "cookie"]);
const KEY_QUALIFIERS = new Set(["api", "secret", "private", "access"]);

export function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words[words.length - 1] ?? "";
  if (SECRET_WORDS.has(last)) return true;
  return last === "key" && KEY_QUALIFIERS.has(words[words.length - 2] ?? "");
}

/** A deep copy of `value` with secret values replaced by `***`. */
export function redactSecrets<T>(value: T): T {
  return redact(value, false) as T;
}

function redact(value: unknown, secret: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => redact(item, secret));
  if (isMapping(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redact(item, secret || isSecretKey(key));
    return out;
  }
  const visible = value === null || value === undefined || value === "" || value === "dummy" || typeof value === "boolean";
  if (secret && !visible) return REDACTED;
  return typeof value === "string" ? redactUrlsIn(value) : value;
}
