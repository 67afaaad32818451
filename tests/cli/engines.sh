#!/bin/sh
# Engines without a profile: validate predicts them with the generic kernel model and a warning,
# with a band at least as wide as a profiled engine's on the same row; ollama uses llama.cpp's
# profile; an unknown name is an error.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
M=tests/data/measurements/unknown-engines.yaml

run engines-validate 0 -- "$ROOFLINE" validate --measurements "$M" -o csv
expect_err engines-warn-sglang "no engine profile for 'sglang': predicted with the generic kernel model"
expect_err engines-warn-habana "no engine profile for 'optimum-habana'"
expect_err engines-alias-ollama "engine 'ollama' runs llama.cpp's kernels"
# every row has a finite, positive prediction and no reason
if awk -F, 'NR > 1 && ($6 == "" || $6 + 0 <= 0 || $11 != "" || tolower($6) ~ /nan|inf/) { bad = 1 }
    END { exit bad }' "$T/out"; then echo "ok engines-all-predicted"; else
    echo "not ok engines-all-predicted"; sed 's/^/  /' "$T/out"; fi
# the sglang row repeats the vllm row: its band (relative to its prediction) is wider
if awk -F, '$1 == "vllm-row" { v = log($10 / $9) } $1 == "sglang-row" { s = log($10 / $9) }
    END { exit !(v > 0 && s > v * 1.2) }' "$T/out"; then echo "ok engines-generic-band-wider"; else
    echo "not ok engines-generic-band-wider"; sed 's/^/  /' "$T/out"; fi
# the band of a generic row contains the prediction
if awk -F, '$1 == "sglang-row" || $1 == "tgi-row" { if (!($9 <= $6 && $6 <= $10)) bad = 1 }
    END { exit bad }' "$T/out"; then echo "ok engines-band-contains"; else
    echo "not ok engines-band-contains"; fi

run engines-analyze-generic 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b \
    --phase decode --engine sglang -o csv
expect_err engines-analyze-warn "no engine profile for 'sglang'"
run engines-unknown 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine vlm
expect_err engines-unknown-msg "unknown engine 'vlm'"
