# scripts/check-links.py: the tree passes; a planted missing file or anchor in a copy fails.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

run links-tree 0 -- python3 "$root/scripts/check-links.py" "$root"

mkdir -p "$T/r"
cp -R "$root/docs" "$root/src" "$root/README.md" "$T/r/"
printf '/* see docs/physics.md#no-such-heading */\n' >>"$T/r/src/core/roof.h"
run links-anchor 1 -- python3 "$root/scripts/check-links.py" "$T/r"
expect_err links-anchor-msg "roof.h:"
expect_err links-anchor-what "no heading '#no-such-heading'"
cp "$root/src/core/roof.h" "$T/r/src/core/roof.h"
printf '\nSee [the guide](missing-guide.md).\n' >>"$T/r/docs/charts.md"
run links-file 1 -- python3 "$root/scripts/check-links.py" "$T/r"
expect_err links-file-msg "no file docs/missing-guide.md"
