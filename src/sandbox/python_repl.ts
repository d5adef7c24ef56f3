// The Python side of a stateful session (and of one-shot `ipython` runs): executes cells in one
// namespace, notebook style — the value of a trailing expression is printed — and after each cell
// writes a done marker to stdout and stderr so the host knows where the cell's output ends.
// Cells come in on a private copy of fd 0; the cell's own stdin is /dev/null.

/** argv: `repl.py NONCE` (session: cells framed on stdin) or `repl.py --once FILE` (one cell). */
export const PYTHON_REPL = String.raw`
import ast, os, sys, traceback

def run_cell(code, namespace):
    try:
        tree = ast.parse(code, "<cell>", "exec")
    except (SyntaxError, ValueError) as error:
        traceback.print_exception(type(error), error, None)
        return "error"
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    try:
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(last, "<cell>", "eval"), namespace)
            if value is not None:
                namespace["_"] = value
                print(repr(value))
        return "ok"
    except SystemExit:
        return "ok"
    except BaseException as error:
        # Drop our own frame: the traceback starts in the cell.
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return "error"

def flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass

def read_exact(stream, size):
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data

def main():
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    if sys.argv[1] == "--once":
        with open(sys.argv[2], encoding="utf-8") as f:
            code = f.read()
        status = run_cell(code, namespace)
        flush()
        os._exit(0 if status == "ok" else 1)
    nonce = sys.argv[1].encode()
    control = os.fdopen(os.dup(0), "rb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    while True:
        header = control.readline()
        if not header:
            return
        code = read_exact(control, int(header))
        if code is None:
            return
        status = run_cell(code.decode("utf-8", "replace"), namespace)
        flush()
        os.write(1, b"\0" + nonce + b":done:" + status.encode() + b"\n")
        os.write(2, b"\0" + nonce + b":done\n")

main()
`;
