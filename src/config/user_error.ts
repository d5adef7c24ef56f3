// The errors that are the user's to fix: a flag, a config key, an input file, an endpoint they named.
// Their message is already a complete paragraph for the person who typed the command, so the CLI
// prints it as it is (no stack trace) and exits 2 (see cli/exit.ts). Every such error extends this
// class and the CLI asks `instanceof`, never a name or a message. It sits in config, the lowest layer
// that throws one (ConfigError, FileError), so every layer above may extend it.
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    // Each error keeps its own class name (in a 500 body or a log line, the kind is still visible).
    this.name = new.target.name;
  }
}
