# scripts/inferencex_client.py: InferenceX's client lengths (numpy's legacy MT19937, seed 0) and
# scripts/sim-vs-public.py running a row of that client on them (docs/simulate.md#inferencexs-benchmark-client-issue-13).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
ix="$root/scripts/inferencex_client.py"

# MT19937's published first outputs: init_genrand(5489) gives 3499211612 (the C++ std::mt19937
# default), init_genrand(0) 2357136044. By hand: 2357136044 = 0x8C7F0AAC; its low byte 0xAC = 172
# is within randint(819, 1025)'s range 0..205 under the mask 255, so the first prompt is 819 + 172 = 991.
run ix-mt 0 -- python3 -c "import sys; sys.path.insert(0, '$root/scripts'); import inferencex_client as c
print(c.numpy_legacy_rng(5489).getrandbits(32), c.numpy_legacy_rng(0).getrandbits(32), c.randint(c.numpy_legacy_rng(0), 819, 1025, 1))"
expect_out ix-mt-values "3499211612 2357136044 [991]"

# The published check: InferenceX-app's fixture (benchmarks.json at 3a600f1) gives input and output
# tokens/s per GPU; their ratio is the run's total input over total output tokens. MI355X SGLang
# 1k/1k at 4 users (run 22469096331): 90.76813862503164 / 89.88905796876784 = 1.0097796; the draws
# for 40 = 10 x 4 prompts give 37068 / 36709 = 1.0097796 (20 prompts would give 0.98172).
run ix-1k 0 -- python3 "$ix" 1024 1024 40
expect_out ix-1k-sums "requests 40 prompt sum 37068 mean 926.7000 output sum 36709 mean 917.7250"
# B200 SGLang 8k/1k at 4 users (run 23552373331): 822.2716341013205 / 102.92027714027923 = 7.9894036
# = 294050 / 36805.
run ix-8k 0 -- python3 "$ix" 8192 1024 40
expect_out ix-8k-sums "requests 40 prompt sum 294050 mean 7351.2500 output sum 36805 mean 920.1250"
# TensorRT-LLM 8k/1k at 32 users (run 21640806486): 2935.673725671496 / 369.6242803725131 = 7.9423184
# = 2352062 / 296143 with 320 = 10 x 32 prompts (160 would give 8.0247).
run ix-trt 0 -- python3 "$ix" 8192 1024 320
expect_out ix-trt-sums "requests 320 prompt sum 2352062 mean 7350.1938 output sum 296143 mean 925.4469"
# A third party's run of InferenceX's gpt-oss H200 recipe (GloriaXimingLu/inferencex-profiling at 72294ff,
# nebius/results/gptoss_tp1_c64_*.log, vLLM's own printout of the run): 640 = 10 x 64 prompts, "Total input
# tokens: 590227", "Total generated tokens: 589961" at 1k/1k and 4727544 / 589927 at 8k/1k.
run ix-640 0 -- python3 "$ix" 1024 1024 640
expect_out ix-640-sums "requests 640 prompt sum 590227 mean 922.2297 output sum 589961 mean 921.8141"
run ix-640-8k 0 -- python3 "$ix" 8192 1024 640
expect_out ix-640-8k-sums "requests 640 prompt sum 4727544 mean 7386.7875 output sum 589927 mean 921.7609"
# --random-range-ratio 1: fixed lengths, no draw.
run ix-fixed 0 -- python3 "$ix" 1024 1024 40 1
expect_out ix-fixed-sums "prompt sum 40960 mean 1024.0000 output sum 40960 mean 1024.0000"

# One row of that client through the comparison: it runs on the client's lengths and leaves no trace file.
grep '^source,' "$root/calibration/public-sweeps.csv" >"$T/one.csv"
grep '^ix-dsr1-h200,.*,1024,1024,4,' "$root/calibration/public-sweeps.csv" >>"$T/one.csv"
mkdir "$T/tmp"
run ix-row 0 -- env TMPDIR="$T/tmp" python3 "$root/scripts/sim-vs-public.py" "$ROOFLINE" "$T/one.csv"
expect_out ix-row-line "| ix-dsr1-h200 | h200 x8 tp8 | deepseek-v3 fp8 | 1024/1024 | 4 | sweep | 367.5 / "
if [ -z "$(ls "$T/tmp")" ]; then echo "ok ix-row-no-file-left"; else echo "not ok ix-row-no-file-left: $(ls "$T/tmp")"; fi
