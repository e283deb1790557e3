#!/usr/bin/env bash
# Installs the Debian 12 packages a target needs, skipping the network entirely
# when every one of them is already present. Usage: scripts/deps.sh build|test|bench|fuzz|web
set -euo pipefail

build_pkgs=(
  build-essential cmake ninja-build ccache pkg-config
  libboost1.81-dev libboost-url1.81-dev libboost-json1.81-dev
  libcli11-dev libspdlog-dev libfmt-dev libtomlplusplus-dev
  librust-blake3-dev libssl-dev libsodium-dev libsqlite3-dev libjwt-dev libicu-dev
  libmagic-dev libarchive-dev zlib1g-dev libexpat1-dev libical-dev
  libvips-dev libpoppler-cpp-dev libexiv2-dev libtag1-dev ffmpeg libpq-dev
)
test_pkgs=(libgtest-dev libgmock-dev python3 curl litmus cadaver rclone
  python3-caldav vdirsyncer khal khard radicale nextcloud-desktop-cmd owncloud-client-cmd exiv2
  postgresql-15)
bench_pkgs=(nginx-light libnginx-mod-http-dav-ext apache2 apache2-utils lighttpd lighttpd-mod-webdav
  php-cli php-sabre-dav php-sqlite3 rclone wrk curl b3sum time e2fsprogs libbenchmark-dev
  radicale xandikos vdirsyncer git nextcloud-desktop-cmd libvips-tools)
fuzz_pkgs=(clang-14 libclang-rt-14-dev)
# The web UI's end-to-end tests drive Debian's Chromium (never a
# downloaded browser); Node.js and npm come with the machine.
web_pkgs=(chromium)

want=()
for group in "$@"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
    bench) want+=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
    fuzz) want+=("${build_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
    web) want+=("${web_pkgs[@]}") ;;
    *) echo "deps.sh: unknown group '$group' (build|test|bench|fuzz|web)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
