#!/bin/sh
# Dependencies point one way: util <- core <- {io, sim, bench} <- {plan, net} <- render <- cli <- main
# (docs/architecture.md). A file may include headers of its own folder and of folders further
# left; the one sibling edge allowed is io -> sim (the scenario format builds a simulator
# config). core/ and util/ never see YAML, Cairo or Pango; library code never prints.
# Usage: scripts/check-layers.sh [SRC_DIR] (default src). Exit 1 with every violation listed.
src=${1:-src}
rank() {
    case $1 in
    util) echo 0 ;; core) echo 1 ;; io | sim | bench) echo 2 ;; plan | net) echo 3 ;;
    render) echo 4 ;; cli) echo 5 ;; main) echo 6 ;; *) echo 99 ;;
    esac
}
bad=0
for f in "$src"/*.c "$src"/*/*.c "$src"/*/*.h; do
    [ -f "$f" ] || continue
    rel=${f#"$src"/}
    case $rel in */*) from=${rel%%/*} ;; *) from=main ;; esac
    rf=$(rank "$from")
    # every quoted include with a folder: "dir/file.h"
    for dep in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f" | sort -u); do
        [ "$dep" = "$from" ] && continue
        [ "$from/$dep" = io/sim ] && continue
        rd=$(rank "$dep")
        if [ "$rd" -ge "$rf" ]; then
            line=$(grep -n "#[[:space:]]*include[[:space:]]*\"$dep/" "$f" | head -n 1 | cut -d: -f1)
            echo "$f:$line: layer violation: $from/ includes $dep/ (util <- core <- {io, sim, bench} <- {plan, net} <- render <- cli <- main)" >&2
            bad=1
        fi
    done
done
for f in "$src"/core/* "$src"/util/*; do
    [ -f "$f" ] || continue
    if grep -n -E '#include <(yaml|cairo|pango)' "$f" >/dev/null; then
        echo "$f: layer violation: core/ and util/ include YAML, Cairo or Pango" >&2
        bad=1
    fi
done
for f in "$src"/core/*.c "$src"/util/*.c "$src"/io/*.c "$src"/sim/*.c "$src"/bench/*.c "$src"/plan/*.c "$src"/net/*.c \
    "$src"/render/*.c; do
    [ -f "$f" ] || continue
    if grep -n -E '\b(printf|puts|fprintf)\(' "$f" >/dev/null; then
        echo "$f: layer violation: library code prints" >&2
        bad=1
    fi
done
exit $bad
