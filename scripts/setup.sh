#!/usr/bin/env bash
# Installs what occtune needs on a fresh Debian 12 machine (idempotent): build tools and the
# Debian packages named in the README. CUDA itself is expected at /usr/local/cuda.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libsqlite3-dev libsqlitecpp-dev libspdlog-dev libfmt-dev
          libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libgtest-dev libgmock-dev
          libcpp-httplib-dev libxxhash-dev liblz4-dev libzstd-dev wrk sqlite3 python3
          python3-jsonschema chromium
          slurm-wlm)  # the Slurm fleet test starts its own slurmctld and slurmd (docs/fleet.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: the CUDA toolkit is missing at /usr/local/cuda (nvcc); install CUDA 13 there and rerun" >&2
  exit 4
fi
