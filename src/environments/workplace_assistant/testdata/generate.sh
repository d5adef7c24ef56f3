#!/bin/sh
# Extracts NeMo Gym's workplace_assistant at 07d6b0d from the local mirror into the pandas 2.3 Debian
# root (/tmp/ngpeer) and runs generate.py there. Usage: ./generate.sh [mirror git dir] [python root]
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
GIT_DIR=${1:-/work/.mirror/NVIDIA-NeMo+Gym/repo}
ROOT=${2:-/tmp/ngpeer}
WORK=$ROOT/tmp/wa_upstream
rm -rf "$WORK" && mkdir -p "$WORK"
git --git-dir="$GIT_DIR" archive 07d6b0d resources_servers/workplace_assistant | tar -x -C "$WORK"
cp "$HERE/generate.py" "$WORK/generate.py"
chroot "$ROOT" python3 /tmp/wa_upstream/generate.py /tmp/wa_upstream /tmp/wa_upstream/upstream_cases.json
cp "$WORK/upstream_cases.json" "$HERE/upstream_cases.json"
