#!/bin/sh
# Runs check_recorded_rows.py in the pandas 2.3 Debian root on NeMo Gym's folder at 07d6b0d.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
GIT_DIR=${1:-/work/.mirror/NVIDIA-NeMo+Gym/repo}
ROOT=${2:-/tmp/ngpeer}
WORK=$ROOT/tmp/wa_check
rm -rf "$WORK" && mkdir -p "$WORK"
git --git-dir="$GIT_DIR" archive 07d6b0d resources_servers/workplace_assistant | tar -x -C "$WORK"
cp "$HERE/check_recorded_rows.py" "$HERE/recorded_prompt_rows.jsonl" "$WORK/"
cp "$HERE/../data/example_rollouts.jsonl" "$WORK/rollouts.jsonl"
chroot "$ROOT" python3 /tmp/wa_check/check_recorded_rows.py /tmp/wa_check /tmp/wa_check/recorded_prompt_rows.jsonl /tmp/wa_check/rollouts.jsonl
