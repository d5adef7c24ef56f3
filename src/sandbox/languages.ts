// The languages the sandbox runs out of the box, as run requests. Python is the system interpreter
// (a sandboxed uid cannot read /root, where pyenv and friends live).
import { existsSync } from "node:fs";
import { PYTHON_REPL } from "./python_repl.js";
import type { RunRequest } from "./types.js";

export const PYTHON = ["/usr/bin/python3", "/usr/local/bin/python3"].find((path) => existsSync(path)) ?? "/usr/bin/python3";

/** One-shot languages (the stateful `ipython` session is handled by the session manager). */
export const LANGUAGES = ["python", "python3", "shell", "ipython", "cpp"] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

/** The run request for `code` in `language` (for `ipython`: one cell in a fresh interpreter). */
export function programFor(language: Language, code: string): Pick<RunRequest, "argv" | "files"> {
  switch (language) {
    case "python":
    case "python3":
      return { argv: [PYTHON, "main.py"], files: { "main.py": code } };
    case "shell":
      return { argv: ["/bin/bash", "main.sh"], files: { "main.sh": code } };
    case "ipython":
      return { argv: [PYTHON, "repl.py", "--once", "cell.py"], files: { "repl.py": PYTHON_REPL, "cell.py": code } };
    case "cpp":
      // C++17 with the host's g++ (compile errors on stderr, exit 1; then the program reads stdin).
      return { argv: ["/bin/bash", "-c", "g++ -std=c++17 -O2 -pipe -o main main.cpp && exec ./main"], files: { "main.cpp": code } };
  }
}
