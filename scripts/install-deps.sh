#!/usr/bin/env bash
# Installs the Debian 12 packages rdpaudit builds, tests and plots with, and (as root) the
# Python package python/ (pyproject.toml) in editable mode from this clone, with Debian's pip and
# setuptools (no PyPI), when /usr/bin/python3 cannot import rdpaudit yet.
# Idempotent: installs only what is missing and prints nothing when all are present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential cmake pkg-config git
  libeigen3-dev libboost-random-dev libhdf5-dev catch2
  libtomlplusplus-dev libcli11-dev libfmt-dev libmuparser-dev
  libopenmpi-dev openmpi-bin
  python3-h5py python3-numpy python3-scipy python3-matplotlib python3-mpmath
  python3-pip python3-setuptools python3-wheel
  clang-format
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root, or: sudo $0)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python package. The tests and `rdpaudit plot` do not need it installed: they put their
# own tree's python/ first on PYTHONPATH. An installed copy serves the studies and users'
# scripts; with several clones, the first one installed stays (see python/README.md).
if ! (cd / && env -u PYTHONPATH /usr/bin/python3 -c "import rdpaudit" 2>/dev/null); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: the Python package is not installed (tests do not need it; as root:" \
         "$0, or PYTHONPATH=python)" >&2
    exit 0
  fi
  echo "install-deps: installing the Python package from $root/python (editable)" >&2
  # --break-system-packages: Debian's pip refuses system-wide installs without it (PEP 668);
  # --no-deps: h5py and numpy come from Debian.
  /usr/bin/python3 -m pip install --quiet --no-build-isolation --no-deps --no-index \
    --break-system-packages --root-user-action=ignore -e "$root/python"
fi
