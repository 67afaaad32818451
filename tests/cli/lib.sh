# Helpers for CLI test scripts: run a command, compare exit code, stdout, stderr.
# Each check prints "ok NAME" or "not ok NAME" followed by details.
: "${ROOFLINE:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# run NAME EXPECTED_EXIT -- COMMAND...: runs, stores $T/out $T/err, checks the exit code
run() {
    name=$1; want=$2; shift 3
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$want" ]; then
        echo "ok $name (exit)"
    else
        echo "not ok $name: expected exit $want, got $got"
        sed 's/^/  stderr: /' "$T/err" | head -n 5
    fi
}

# expect_out NAME TEXT: stdout contains TEXT (fixed string)
expect_out() {
    if grep -qF -- "$2" "$T/out"; then echo "ok $1"; else
        echo "not ok $1: stdout lacks '$2'"; head -n 40 "$T/out" | sed 's/^/  stdout: /'; fi
}

# expect_err NAME TEXT: stderr contains TEXT
expect_err() {
    if grep -qF -- "$2" "$T/err"; then echo "ok $1"; else
        echo "not ok $1: stderr lacks '$2'"; sed 's/^/  stderr: /' "$T/err" | head -n 10; fi
}

# expect_no NAME WORD: stdout and stderr do not contain WORD as a whole word
expect_no() {
    if grep -qiwF -- "$2" "$T/out" "$T/err"; then echo "not ok $1: output contains '$2'"; else
        echo "ok $1"; fi
}
