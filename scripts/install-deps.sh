#!/bin/sh
# Install the Debian 12 packages roofline needs to build, test and render. As root it runs
# apt-get directly; as a user it uses sudo. Skips the install when everything is present.
# slurm-wlm, munge and parallel are for 'make test-cluster' (a private Slurm on localhost).
set -eu
PKGS="build-essential pkg-config clang-format libyaml-dev libgsl-dev libcairo2-dev libpango1.0-dev \
fonts-dejavu-core poppler-utils libxml2-utils python3 slurm-wlm munge parallel \
libmicrohttpd-dev libcurl4-openssl-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
