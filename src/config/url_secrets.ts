// Secrets inside URLs: a password in the userinfo (`http://user:KEY@host/v1`) and key-like query
// parameters (`?api_key=…`, `&token=…`). Everything that shows a URL to a person (messages, config
// dumps, status records) passes it through `redactUrl` / `redactUrlsIn`; the call itself keeps the
// credentials, which `call` turns into an Authorization header (`urlCredentials`). Beside redact.ts,
// which hides the config's secret keys: http and everything above import it downwards.
//
// Redaction is done on the text, not through `new URL`: a shown URL must stay exactly what the user
// typed (no added slash, no lower-cased host), and text that is not a valid URL is still covered.

export const REDACTED_URL_PART = "***";

/**
 * Query parameter names that carry a credential. Broader than config keys (`isSecretKey`): a bare
 * `key=` is Google's API key and `sig=` an Azure/S3 signature, while a config key named `key` is not.
 */
const SECRET_QUERY_NAME = /^(?:key|sig|auth|pwd|.*[_-]key|.*(?:token|secret|password|passwd|apikey|signature|credentials?))$/i;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A URL inside free text: from the scheme to the first blank or quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** `url` with its userinfo password (or a bare userinfo token) and secret query values replaced by `***`. */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url);
  if (!scheme) return url;
  const start = scheme[0].length;
  // The authority ends at the first `/`, `?` or `#`; its userinfo at the *last* `@` before that (a
  // password may itself hold an unescaped `@`, and WHATWG parsers split there too).
  const authorityEnd = url.slice(start).search(/[/?#]/);
  const authority = authorityEnd < 0 ? url.slice(start) : url.slice(start, start + authorityEnd);
  let out = url;
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(":");
    // `user:pass` keeps the user (useful to see which account); a lone `token@` is the secret itself.
    const shown = colon >= 0 ? `${userinfo.slice(0, colon)}:${REDACTED_URL_PART}` : REDACTED_URL_PART;
    out = url.slice(0, start) + shown + url.slice(start + at);
  }
  return redactQuery(out);
}

function redactQuery(url: string): string {
  const query = url.indexOf("?");
  if (query < 0) return url;
  const hash = url.indexOf("#", query);
  const end = hash < 0 ? url.length : hash;
  const params = url
    .slice(query + 1, end)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      return SECRET_QUERY_NAME.test(name) && pair.length > eq + 1 ? `${pair.slice(0, eq)}=${REDACTED_URL_PART}` : pair;
    });
  return `${url.slice(0, query + 1)}${params.join("&")}${url.slice(end)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every URL inside `text` redacted (error messages that quote a URL, possibly several). */
export function redactUrlsIn(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}

/**
 * The URL to request and the Authorization header its userinfo stands for. HTTP clients do not send
 * userinfo by themselves (undici drops it silently): a `user:pass@` URL becomes HTTP Basic auth, as
 * curl and Python's httpx (the OpenAI SDK's client) do. Like httpx, the URL's credentials win over
 * an Authorization header the caller set (a model's default `Bearer dummy`): they were typed for
 * exactly this endpoint.
 */
export function urlCredentials(url: string): { url: string; authorization?: string } {
  // Hot path: every hop of every rollout comes through here, and almost none has userinfo.
  if (!url.includes("@")) return { url };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url };
  }
  if (!parsed.username && !parsed.password) return { url };
  const credentials = `${safeDecode(parsed.username)}:${safeDecode(parsed.password)}`;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href, authorization: `Basic ${Buffer.from(credentials, "utf8").toString("base64")}` };
}
