#!/usr/bin/env bash
# Installs the Debian 12 packages rdpaudit builds, tests and plots with.
# Idempotent: installs only what is missing and prints nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libeigen3-dev libboost-random-dev libhdf5-dev catch2
  libtomlplusplus-dev libcli11-dev libfmt-dev libmuparser-dev
  libopenmpi-dev openmpi-bin
  python3-h5py python3-numpy python3-scipy python3-matplotlib python3-mpmath
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or: sudo $0)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
