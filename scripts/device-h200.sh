#!/usr/bin/env bash
# One session on a GPU host, run from the repository root with the carried folders:
#   .dev/  cubesearch (release, --features cuda), test binaries (tests-*), COMMIT
#   .gl/   Vulkan loader .deb, so wgpu can use the NVIDIA Vulkan driver
# It runs the CUDA and wgpu parity tests, then every benchmark suite, and writes the tables to $OUT.
set -uo pipefail
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
export CUBESEARCH_COMMIT="$(cat .dev/COMMIT 2>/dev/null || echo unknown)"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done; ldconfig
if [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
chmod +x .dev/* 2>/dev/null
status=0
for t in .dev/tests-*; do
    [ -e "$t" ] || continue
    echo "== $t"
    "$t" --test-threads=4 2>&1 | grep -v XDG_RUNTIME_DIR | tee -a "$out/tests.log" | tail -25 || status=1
done
echo "== bench"
scripts/bench-gpu .dev/cubesearch "$out/bench.md" 2>&1 | grep -v XDG_RUNTIME_DIR
echo "== fixed-depth perft (issue targets)"
{
    echo; echo "Fixed-depth perft (\`cubesearch perft ... --json\`):"; echo
    echo "| game | depth | backend | nodes | seconds | nodes/s |"; echo "|---|---:|---|---:|---:|---:|"
    for run in "checkers --rules american --depth 12" "reversi --depth 11" "reversi --depth 12" "checkers --rules american --depth 14" "reversi --depth 13"; do
        for backend in cuda wgpu; do
            timeout 120 .dev/cubesearch perft $run --backend $backend --json 2>/dev/null | tail -1 | python3 -c "import json,sys; j=json.load(sys.stdin); print(f\"| {j['game']} | {j['depth']} | {j['backend']} | {j['nodes']} | {j['seconds']:.3f} | {j['nodes_per_sec']:.3e} |\")" || echo "| $run | | $backend | failed or over 120 s | | |"
        done
    done
} | tee -a "$out/bench.md"
exit $status
