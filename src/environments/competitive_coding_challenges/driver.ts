// The shell program that grades one batch of tests in one sandbox run, doing per test what NeMo
// Gym's ccc_eval.py at commit 07d6b0d asks NeMo-Skills' sandbox to do: the problem folder (grader
// files, compile.sh, run.sh) is first compiled without the submission (failures ignored), then with
// it; then each test runs in its own copy of that folder with `input.txt`/`correct_output.txt`,
// `TMPDIR` and `TIME_LIMIT_SCALE` set, under the per-test deadline. Compilation is done once per
// batch instead of once per test: it is the same compilation of the same files (see README).
// A run given a kept build (`base.tar` with `compile.out` / `compile.err`, see build_cache.ts) unpacks
// it instead of compiling (and compiles after all when it does not unpack). With `KEEP_BUILD=<bytes>` (0: never)
// a clean compilation also prints the compiled folder as a tar, when it is no larger than that.
// Output: one line per stream, `B|<tar>` (when kept), `C|<compile stdout>|<compile stderr>`, then
// `T|<i>|<ns>|<stdout>|<stderr>|<timed out>`, base64.

export const DRIVER = String.raw`#!/bin/bash
set -u
root="$PWD"
b64() { base64 -w0 < "$1"; }
if [ -f base.tar ] && [ -f compile.out ] && [ -f compile.err ] && mkdir base && tar -xpf base.tar -C base 2>/dev/null; then
  rm -f base.tar
else
  rm -rf base base.tar
  chmod 755 pre/compile.sh pre/run.sh 2>/dev/null
  mkdir -p pre/graders pre/tmp
  ( cd pre && timeout -s KILL "$COMPILE_TIMEOUT" ./compile.sh >/dev/null 2>&1 || true )
  cp -a pre base
  mkdir -p "$(dirname "base/$SOLUTION_PATH")"
  cp submission "base/$SOLUTION_PATH"
  ( cd base && timeout -s KILL "$COMPILE_TIMEOUT" ./compile.sh ) > compile.out 2> compile.err
  if [ $? -eq 137 ]; then printf 'Compilation timed out\n' >> compile.err; fi
  if [ "$KEEP_BUILD" -gt 0 ] && [ ! -s compile.err ] && tar -cf build.tar -C base . 2>/dev/null && [ "$(stat -c %s build.tar)" -le "$KEEP_BUILD" ]; then
    printf 'B|'; b64 build.tar; printf '\n'
  fi
  rm -f build.tar
fi
printf 'C|%s|%s\n' "$(b64 compile.out)" "$(b64 compile.err)"
if [ -s compile.err ]; then exit 0; fi
i=0
while [ -d "tests/$i" ]; do
  dir="$root/run_$i"
  cp -a base "$dir"
  mkdir -p "$dir/tmp"
  cp "tests/$i/input.txt" "tests/$i/correct_output.txt" "$dir/"
  start=$(date +%s%N)
  ( cd "$dir" && export TMPDIR="$dir/tmp" && TIME_LIMIT_SCALE="$TIME_SCALE" timeout -s KILL "$RUN_TIMEOUT" ./run.sh ) > run.out 2> run.err
  code=$?
  end=$(date +%s%N)
  timed=0
  if [ $code -eq 137 ]; then timed=1; fi
  printf 'T|%s|%s|%s|%s|%s\n' "$i" "$((end - start))" "$(b64 run.out)" "$(b64 run.err)" "$timed"
  rm -rf "$dir"
  i=$((i + 1))
done
`;
