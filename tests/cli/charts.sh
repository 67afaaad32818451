#!/bin/sh
# roofline chart: every kind rendered; PNGs against golden images (pixel tolerance), PDFs by page
# count and extracted text, SVGs well-formed with their title; then usage and failure cases.
# UPDATE_GOLDEN=1 rewrites tests/data/golden/*.png from the current build (look at them first).
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
G="$top/tests/data/golden"
SIZE=800x500

# The comparer is built here, not by the Makefile.
PNGDIFF="$T/pngdiff"
if ${CC:-cc} -std=c17 -O2 -o "$PNGDIFF" "$top/tests/tools/pngdiff.c" \
    $(pkg-config --cflags --libs cairo) 2>"$T/cc.err"; then
    echo "ok pngdiff builds"
else
    echo "not ok pngdiff builds"; sed 's/^/  /' "$T/cc.err" | head -n 5
fi

# golden NAME KIND ARGS...: render at $SIZE and compare with $G/NAME.png
golden() {
    gname=$1; shift  # not $gname: run() sets it
    run "chart $gname" 0 -- "$ROOFLINE" chart "$@" --size $SIZE -o "$T/$gname.png"
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$T/$gname.png" "$G/$gname.png" && echo "ok chart $gname golden updated"
        return
    fi
    # threshold 64 of 255 per channel, at most 0.5% of the pixels: font rasterisation may
    # differ between FreeType versions, a moved line or label does not pass
    if "$PNGDIFF" "$T/$gname.png" "$G/$gname.png" 64 0.005 >"$T/diff.out" 2>&1; then
        echo "ok chart $gname matches golden"
    else
        echo "not ok chart $gname differs from golden: $(cat "$T/diff.out")"
        cp "$T/$gname.png" "${TMPDIR:-/tmp}/roofline-chart-$gname.png" 2>/dev/null &&
            echo "  (kept as ${TMPDIR:-/tmp}/roofline-chart-$gname.png)"
    fi
}

M=llama-3-8b
# the goldens (like docs/img) draw the datasheet roofline, the physics bound: --engine datasheet
golden roofline roofline --gpu h100-sxm --model $M --measured "$G/measured.json" --engine datasheet
golden roofline-multi roofline --gpu h100-sxm,a100-sxm-80gb,rtx-4090 --model $M --engine datasheet
golden regime regime --gpu h100-sxm --model llama-3.1-8b --engine datasheet
golden batch batch --gpu h100-sxm,a100-sxm-80gb --model $M --engine datasheet
golden prefill prefill --gpu h100-sxm,rtx-4090 --model $M --batch 1,8 --engine datasheet
golden decode decode --gpu h100-sxm --model llama-3.1-8b --batch 1,32 --prompt 1024 --engine datasheet
golden memory memory --gpu h100-sxm --model $M --context 4096 --engine datasheet
golden memory-gpus memory --gpu h100-sxm,a100-sxm-80gb,rtx-4090 --model $M --batch 1,64 --engine datasheet
golden simulate simulate --scenario "$top/scenarios/continuous.yaml"

# the simulate chart: every example scenario, in PDF with its text, in SVG well-formed
for sc in static continuous chunked disaggregated; do
    run "chart simulate $sc pdf" 0 -- "$ROOFLINE" chart simulate \
        --scenario "$top/scenarios/$sc.yaml" -o "$T/sim-$sc.pdf"
    pdftotext "$T/sim-$sc.pdf" "$T/sim-$sc.txt"
    for want in "Serving simulation" "latency CDFs of the" "requests waiting and running" \
        "batch of each engine step" "KV-cache occupancy" "$sc scheduler" "p99: TTFT"; do
        if grep -qF "$want" "$T/sim-$sc.txt"; then echo "ok chart simulate $sc text '$want'"; else
            echo "not ok chart simulate $sc text lacks '$want'"; fi
    done
done
run "chart simulate svg" 0 -- "$ROOFLINE" chart simulate --scenario "$top/scenarios/chunked.yaml" \
    --seed 7 -o "$T/sim.svg"
if xmllint --noout "$T/sim.svg" 2>/dev/null && grep -qF "seed 7" "$T/sim.svg"; then
    echo "ok chart simulate svg well-formed with its seed"; else
    echo "not ok chart simulate svg well-formed with its seed"; fi
run "chart simulate no scenario" 2 -- "$ROOFLINE" chart simulate -o "$T/x.png"
expect_err "chart simulate no scenario message" "error: chart simulate needs --scenario FILE"
run "chart simulate gpu" 2 -- "$ROOFLINE" chart simulate --scenario "$top/scenarios/static.yaml" \
    --gpu h100-sxm -o "$T/x.png"
expect_err "chart simulate gpu message" "error: --gpu does not apply to the simulate chart"
run "chart scenario elsewhere" 2 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M \
    --scenario "$top/scenarios/static.yaml" -o "$T/x.png"
run "chart simulate bad scenario" 1 -- "$ROOFLINE" chart simulate \
    --scenario "$top/tests/data/bad-scenarios/$(ls "$top/tests/data/bad-scenarios" | grep yaml | head -n 1)" \
    -o "$T/x.png"
expect_err "chart simulate bad scenario position" ": error: "

# PDF: one page, the text is there, the page is half the pixel size in points, reproducible
for kind in roofline regime batch prefill decode memory; do
    run "chart $kind pdf" 0 -- "$ROOFLINE" chart $kind --gpu h100-sxm --model $M --size $SIZE \
        -o "$T/$kind.pdf"
    pages=$(pdfinfo "$T/$kind.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
    if [ "$pages" = 1 ]; then echo "ok chart $kind pdf has one page"; else
        echo "not ok chart $kind pdf has one page: got '$pages'"; fi
    if pdfinfo "$T/$kind.pdf" | grep -q '^Page size: *400 x 250 pts'; then
        echo "ok chart $kind pdf page size"; else
        echo "not ok chart $kind pdf page size: $(pdfinfo "$T/$kind.pdf" | grep 'Page size')"; fi
    pdftotext "$T/$kind.pdf" "$T/$kind.txt"
    for want in "$M on h100-sxm" "weights bf16"; do
        if grep -qF "$want" "$T/$kind.txt"; then echo "ok chart $kind pdf text '$want'"; else
            echo "not ok chart $kind pdf text lacks '$want'"; head -n 20 "$T/$kind.txt"; fi
    done
done
for want in "Roofline" "arithmetic intensity (FLOP/byte)" "attainable performance (FLOP/s)" \
    "ridge 295 FLOP/B" "fp16/bf16 989 TFLOP/s" "memory 3.35 TB/s" "prefill operators" "10 T"; do
    if grep -qF "$want" "$T/roofline.txt"; then echo "ok roofline pdf text '$want'"; else
        echo "not ok roofline pdf text lacks '$want'"; fi
done
for want in "critical batch" "memory limit" "tokens/s"; do
    if grep -qF "$want" "$T/batch.txt"; then echo "ok batch pdf text '$want'"; else
        echo "not ok batch pdf text lacks '$want'"; fi
done
if pdfinfo "$T/roofline.pdf" | grep -q '^CreationDate:.*2024'; then
    echo "ok pdf fixed creation date"; else echo "not ok pdf fixed creation date"; fi
"$ROOFLINE" chart roofline --gpu h100-sxm --model $M --size $SIZE -o "$T/again.pdf"
if cmp -s "$T/roofline.pdf" "$T/again.pdf"; then echo "ok pdf reproducible"; else
    echo "not ok pdf reproducible: two runs differ"; fi
run "chart measured pdf" 0 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M \
    --measured "$G/measured.json" -o "$T/measured.pdf"
if pdftotext "$T/measured.pdf" - | grep -qF "STREAM triad"; then
    echo "ok measured label in pdf"; else echo "not ok measured label in pdf"; fi

# SVG: well-formed XML carrying the title
for kind in roofline memory; do
    run "chart $kind svg" 0 -- "$ROOFLINE" chart $kind --gpu h100-sxm,a100-sxm-80gb --model $M \
        -o "$T/$kind.svg"
    if xmllint --noout "$T/$kind.svg" 2>"$T/xml.err"; then echo "ok chart $kind svg well-formed"
    else echo "not ok chart $kind svg well-formed"; head -n 3 "$T/xml.err"; fi
    if grep -qF "<title>" "$T/$kind.svg" && grep -qF "$M on h100-sxm, a100-sxm-80gb</title>" \
        "$T/$kind.svg"; then echo "ok chart $kind svg title"; else
        echo "not ok chart $kind svg title"; fi
done

# default size
run "chart default size" 0 -- "$ROOFLINE" chart memory --gpu h100-sxm --model $M -o "$T/big.png"
"$PNGDIFF" "$T/big.png" "$T/big.png" >"$T/size.out" 2>&1
if grep -q '^1600x1000:' "$T/size.out"; then echo "ok chart default 1600x1000"; else
    echo "not ok chart default 1600x1000: $(cat "$T/size.out")"; fi

# usage errors (exit 2) and failures (exit 1)
run "chart unknown kind" 2 -- "$ROOFLINE" chart rooflin --gpu h100-sxm --model $M -o "$T/x.png"
expect_err "chart unknown kind hint" "error: unknown chart kind 'rooflin' (did you mean 'roofline'?)"
run "chart no kind" 2 -- "$ROOFLINE" chart --gpu h100-sxm --model $M -o "$T/x.png"
expect_err "chart no kind message" "error: missing chart kind"
run "chart no output" 2 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M
expect_err "chart no output message" "error: -o FILE is required (.png, .svg or .pdf)"
run "chart bad extension" 2 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M -o "$T/x.jpg"
expect_err "chart bad extension message" "does not end in .png, .svg or .pdf"
run "chart bad size" 2 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M --size 10x10 \
    -o "$T/x.png"
expect_err "chart bad size message" "error: --size: expected WIDTHxHEIGHT"
run "chart batch list on roofline" 2 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M \
    --batch 1,8 -o "$T/x.png"
expect_err "chart batch list message" "error: --batch: the roofline chart takes one batch size"
run "chart bad batch" 2 -- "$ROOFLINE" chart batch --gpu h100-sxm --model $M --batch 1,x \
    -o "$T/x.png"
run "chart measured elsewhere" 2 -- "$ROOFLINE" chart batch --gpu h100-sxm --model $M \
    --measured "$G/measured.json" -o "$T/x.png"
run "chart six gpus" 2 -- "$ROOFLINE" chart roofline --model $M \
    --gpu h100-sxm,a100-sxm-80gb,rtx-4090,l4,t4,a10 -o "$T/x.png"
run "chart unknown gpu" 1 -- "$ROOFLINE" chart roofline --gpu h100-sxn --model $M -o "$T/x.png"
expect_err "chart unknown gpu hint" "h100-sxm"
printf '{"points": [{"label": "a", "intensity_flop_per_byte": -1, "flops_per_s": 1e12}]}\n' \
    >"$T/bad.json"
run "chart bad measured" 1 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model $M \
    --measured "$T/bad.json" -o "$T/x.png"
expect_err "chart bad measured position" "bad.json:1:55: error: 'points[0].intensity_flop_per_byte' must be positive"
if [ -e "$T/x.png" ]; then echo "not ok chart failures write nothing"; else
    echo "ok chart failures write nothing"; fi
run "chart unwritable" 1 -- "$ROOFLINE" chart memory --gpu h100-sxm --model $M \
    -o "$T/no/such/dir/x.png"
expect_err "chart unwritable message" "error: cannot create"
run "chart help" 0 -- "$ROOFLINE" chart --help
expect_out "chart help usage" "roofline chart KIND"

# engine options on every chart kind (a 70B model on 4 H100s), and a model that does not fit is
# a warning on stderr and in the chart
for k in roofline regime batch prefill decode memory; do
    run "chart $k --tp 4" 0 -- "$ROOFLINE" chart $k --gpu h100-sxm --model llama-3.1-70b --tp 4 --engine vllm --reserve 10% -o "$T/tp.pdf"
    if pdftotext "$T/tp.pdf" - | grep -q "TP 4"; then echo "ok chart $k --tp 4 in subtitle"; else
        echo "not ok chart $k --tp 4 in subtitle"; fi
done
# --ep: a MoE model's experts in expert-parallel groups, named beside TP in the subtitle
run "chart roofline --ep 8" 0 -- "$ROOFLINE" chart roofline --gpu h200 --model deepseek-v3 --tp 8 --ep 8 --weights fp8 -o "$T/ep.pdf"
if pdftotext "$T/ep.pdf" - | grep -q "TP 8, EP 8"; then echo "ok chart --ep 8 in subtitle"; else
    echo "not ok chart --ep 8 in subtitle"; fi
run "chart roofline --attn-dp 8" 0 -- "$ROOFLINE" chart roofline --gpu h200 --model deepseek-v3 --tp 8 --attn-dp 8 --weights fp8 -o "$T/adp.pdf"
if pdftotext "$T/adp.pdf" - | grep -q "TP 8, attention DP 8"; then echo "ok chart --attn-dp 8 in subtitle"; else
    echo "not ok chart --attn-dp 8 in subtitle"; fi
run "chart misfit" 0 -- "$ROOFLINE" chart batch --gpu h100-sxm --model llama-3.1-70b -o "$T/mf.pdf"
expect_err "chart misfit warns" "warning: llama-3.1-70b does not fit on h100-sxm even at batch 1: 150 GB needed per device, 84.9 GB available"
if pdftotext "$T/mf.pdf" - | grep -q "does not fit in memory"; then echo "ok chart misfit in the chart"; else
    echo "not ok chart misfit in the chart"; fi
run "chart fits no warning" 0 -- "$ROOFLINE" chart batch --gpu h100-sxm --model llama-3.1-70b --tp 2 -o "$T/ok.pdf"
if [ -s "$T/err" ]; then echo "not ok chart fits no warning: $(cat "$T/err")"; else echo "ok chart fits no warning (stderr empty)"; fi

# measured points above the memory roof get a note (cache-resident working sets)
printf '{"points": [{"label": "L2-resident", "intensity_flop_per_byte": 1, "flops_per_s": 10e12}]}\n' >"$T/above.json"
run "chart measured above roof" 0 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b --measured "$T/above.json" -o "$T/above.pdf"
if pdftotext "$T/above.pdf" - | tr '\n' ' ' | grep -q "1 measured point lies above the memory roof.*cache-resident"; then
    echo "ok chart measured above roof note"; else echo "not ok chart measured above roof note"; fi
run "chart measured below roof" 0 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b --measured "$G/measured.json" -o "$T/below.pdf"
if pdftotext "$T/below.pdf" - | grep -q "cache-resident"; then echo "not ok chart measured below roof has no note"; else
    echo "ok chart measured below roof has no note"; fi
