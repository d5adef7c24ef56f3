// Python's `csv.reader(io.StringIO(text), delimiter=…)` with the default excel dialect (quotechar '"',
// doublequote, no escape character, strict off), ported from CPython's Modules/_csv.c state machine:
// the text is read line by line (split after each "\n", as StringIO does), each line's characters
// and then an end-of-line marker drive the parser, and a record ends when the parser is back at the
// start. Blank lines are empty rows. IFBench's CSV checkers decide with it.
import { ReferenceRaises } from "./checkers_errors.js";

type State = "START_RECORD" | "START_FIELD" | "IN_FIELD" | "IN_QUOTED_FIELD" | "QUOTE_IN_QUOTED_FIELD" | "EAT_CRNL";
const EOL = null;

export function pyCsvRows(text: string, delimiter = ","): string[][] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n") {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));

  const rows: string[][] = [];
  let state: State = "START_RECORD";
  let fields: string[] = [];
  let field = "";
  let fieldLen = 0;
  const save = () => {
    fields.push(field);
    field = "";
    fieldLen = 0;
  };
  const add = (c: string) => {
    field += c;
    fieldLen++;
  };
  const endOrCrnl = (c: string | null): State => (c === EOL ? "START_RECORD" : "EAT_CRNL");
  const step = (c: string | null) => {
    const newline = c === "\n" || c === "\r";
    switch (state) {
      case "START_RECORD":
        if (c === EOL) return;
        if (newline) {
          state = "EAT_CRNL";
          return;
        }
        state = "START_FIELD";
      // falls through
      case "START_FIELD":
        if (newline || c === EOL) {
          save();
          state = endOrCrnl(c);
        } else if (c === '"') state = "IN_QUOTED_FIELD";
        else if (c === delimiter) save();
        else {
          add(c);
          state = "IN_FIELD";
        }
        return;
      case "IN_FIELD":
        if (newline || c === EOL) {
          save();
          state = endOrCrnl(c);
        } else if (c === delimiter) {
          save();
          state = "START_FIELD";
        } else add(c);
        return;
      case "IN_QUOTED_FIELD":
        if (c === EOL) return;
        if (c === '"') state = "QUOTE_IN_QUOTED_FIELD";
        else add(c);
        return;
      case "QUOTE_IN_QUOTED_FIELD":
        if (c === '"') {
          add(c);
          state = "IN_QUOTED_FIELD";
        } else if (c === delimiter) {
          save();
          state = "START_FIELD";
        } else if (newline || c === EOL) {
          save();
          state = endOrCrnl(c);
        } else {
          add(c);
          state = "IN_FIELD";
        }
        return;
      case "EAT_CRNL":
        if (newline) return;
        if (c === EOL) {
          state = "START_RECORD";
          return;
        }
        throw new ReferenceRaises("new-line character seen in unquoted field");
    }
  };

  let next = 0;
  for (;;) {
    // One record: lines until the parser is back at the start.
    fields = [];
    do {
      if (next >= lines.length) {
        if (fieldLen !== 0 || (state as State) === "IN_QUOTED_FIELD") {
          save();
          rows.push(fields);
        }
        return rows;
      }
      for (const c of lines[next++]!) {
        if (c === "\0") throw new ReferenceRaises("line contains NUL");
        step(c);
      }
      step(EOL);
    } while (state !== "START_RECORD");
    rows.push(fields);
  }
}
