# scripts/check-layers.sh: the tree passes, and each kind of planted violation in a copy fails.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/scripts/check-layers.sh

run layers-tree 0 -- sh "$check" "$root/src"

# plant: copy src/, add one bad line, expect exit 1 naming the file and line
plant() {
    p_name=$1 p_file=$2 p_text=$3 p_want=$4 # run() sets name and want
    rm -rf "$T/src"
    cp -R "$root/src" "$T/src"
    printf '%s\n' "$p_text" >>"$T/src/$p_file"
    run "$p_name" 1 -- sh "$check" "$T/src"
    expect_err "$p_name-msg" "$p_want"
}
plant layers-core-cli core/roof.c '#include "cli/cli.h"' "core/roof.c:"
plant layers-util-core util/strs.c '#include "core/hw.h"' "util/ includes core/"
plant layers-io-render io/points.h '#include "render/chart.h"' "io/ includes render/"
plant layers-sim-io sim/sim.h '#include "io/scenario.h"' "sim/ includes io/"
plant layers-bench-io bench/report.c '#include "io/profiles.h"' "bench/ includes io/"
plant layers-render-cli render/chart.c '#include "cli/out.h"' "render/ includes cli/"
plant layers-cli-main cli/cli.c '#include "main/x.h"' "cli/ includes main/"
plant layers-core-yaml core/hw.c '#include <yaml.h>' "include YAML, Cairo or Pango"
plant layers-io-prints io/measure.c 'static void f(void) { printf("x"); }' "library code prints"
