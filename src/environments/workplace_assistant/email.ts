// The email toolkit, matched to NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/email.py: a table of emails read from
// csv_data/emails.csv; sending appends a row (index renumbered), deleting drops one (its label left out).
import { appendRow, column, dropWhere, maxOf, records, type Frame } from "./frame.js";
import { bind, type Kwargs } from "./kwargs.js";
import { PyError, pyEq, pyIn, pyInt, pyLower, pySplitWords, pyStr, truthy } from "./py.js";
import { timestampOf } from "./timestamp.js";

/** NeMo Gym's fixed "now" for sent emails: `str(pd.to_datetime("2023-11-30T23:59:00"))`. */
const SENT_AT = "2023-11-30 23:59:00";

export class EmailTool {
  constructor(public emails: Frame) {}

  private has(id: unknown): boolean {
    return column(this.emails, "email_id").some((v) => pyEq(v, id));
  }

  private first(id: unknown): Record<string, unknown> {
    return records(this.emails).find((r) => pyEq(r.email_id, id))!;
  }

  get_email_information_by_id(kwargs: Kwargs): unknown {
    const { email_id, field } = bind("EmailTool.get_email_information_by_id", { email_id: null, field: null }, kwargs);
    if (!truthy(email_id)) return "Email ID not provided.";
    if (!truthy(field)) return "Field not provided.";
    const found = records(this.emails).filter((r) => pyEq(r.email_id, email_id));
    if (!found.length) return "Email not found.";
    const row = found[0]!;
    if (typeof field === "string" && field in row) return { [field]: row[field] };
    return `Field '${pyStr(field)}' not found. Available fields: ${Object.keys(row).join(", ")}`;
  }

  search_emails(kwargs: Kwargs): unknown {
    const { query, date_min, date_max, page, page_size } = bind("EmailTool.search_emails", { query: "", date_min: null, date_max: null, page: 1, page_size: 5 }, kwargs);
    try {
      const words = pySplitWords(pyLower(query));
      let found = records(this.emails).filter((r) => {
        const combined = pyLower(`${pyStr(r.subject)} ${pyStr(r.body)} ${pyStr(r["sender/recipient"])}`);
        return words.every((w) => combined.includes(w));
      });
      // Most recent first; a stable sort keeps ties in table order (pandas' default quicksort on one key may not).
      found = found.map((r, i) => ({ r, i, t: timestampOf(r.sent_datetime) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.r);
      const day = (v: unknown) => Math.floor(timestampOf(v) / 86_400_000);
      if (truthy(date_min)) found = found.filter((r) => day(r.sent_datetime) >= day(date_min));
      if (truthy(date_max)) found = found.filter((r) => day(r.sent_datetime) <= day(date_max));
      return paginate(found, "emails", "total_emails", page, page_size) ?? "No emails found.";
    } catch (error) {
      return `Error searching emails: ${pyMessage(error)}`;
    }
  }

  send_email(kwargs: Kwargs): string {
    const { recipient, subject, body } = bind("EmailTool.send_email", { recipient: null, subject: null, body: null }, kwargs);
    if (!truthy(recipient) || !truthy(subject) || !truthy(body)) return "Recipient, subject, or body not provided.";
    if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
    try {
      const to = pyLower(recipient);
      const id = this.emails.rows.length === 0 ? "1" : String(pyInt(maxOf(this.emails, "email_id")) + 1);
      this.emails = appendRow(this.emails, { email_id: id, "inbox/outbox": "outbox", "sender/recipient": to, subject, sent_datetime: SENT_AT, body }, true);
      return "Email sent successfully.";
    } catch (error) {
      return `Error sending email: ${pyMessage(error)}`;
    }
  }

  delete_email(kwargs: Kwargs): string {
    const { email_id } = bind("EmailTool.delete_email", { email_id: null }, kwargs);
    if (!truthy(email_id)) return "Email ID not provided.";
    if (!this.has(email_id)) return "Email not found.";
    this.emails = dropWhere(this.emails, "email_id", email_id);
    return "Email deleted successfully.";
  }

  forward_email(kwargs: Kwargs): string {
    const { email_id, recipient } = bind("EmailTool.forward_email", { email_id: null, recipient: null }, kwargs);
    if (!truthy(email_id) || !truthy(recipient)) return "Email ID or recipient not provided.";
    if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
    try {
      if (!this.has(email_id)) return "Email not found.";
      const to = pyLower(recipient);
      const email = this.first(email_id);
      const result = this.send_email({ recipient: to, subject: `FW: ${pyStr(email.subject)}`, body: email.body });
      return result.includes("Error") || result.includes("Invalid") ? result : "Email forwarded successfully.";
    } catch (error) {
      return `Error forwarding email: ${pyMessage(error)}`;
    }
  }

  reply_email(kwargs: Kwargs): string {
    const { email_id, body } = bind("EmailTool.reply_email", { email_id: null, body: null }, kwargs);
    if (!truthy(email_id) || !truthy(body)) return "Email ID or body not provided.";
    try {
      if (!this.has(email_id)) return "Email not found.";
      const email = this.first(email_id);
      const result = this.send_email({ recipient: email["sender/recipient"], subject: `RE: ${pyStr(email.subject)}`, body });
      return result.includes("Error") || result.includes("Invalid") ? result : "Email replied successfully.";
    } catch (error) {
      return `Error replying to email: ${pyMessage(error)}`;
    }
  }
}

/** NeMo Gym's page arithmetic: the page clamped into range, `undefined` when nothing matched. */
export function paginate(items: unknown[], key: string, totalKey: string, pageArg: unknown, pageSizeArg: unknown): Record<string, unknown> | undefined {
  if (typeof pageArg !== "number" || typeof pageSizeArg !== "number") throw new PyError("TypeError: page and page_size must be numbers");
  const total = items.length;
  const size = pageSizeArg;
  const pages = Math.floor((total + size - 1) / size);
  const page = pages > 0 ? Math.max(1, Math.min(pageArg, pages)) : 1;
  const start = (page - 1) * size;
  const end = Math.min(start + size, total);
  if (!total) return undefined;
  return { [key]: items.slice(Math.max(0, start), Math.max(0, end)), pagination: { [totalKey]: total, page, page_size: size, total_pages: pages } };
}

/** `str(exception)` of a Python error raised inside a tool: the message after the class name. */
export const pyMessage = (error: unknown): string => (error instanceof Error ? error.message.replace(/^[A-Za-z]+Error: /, "") : String(error));
