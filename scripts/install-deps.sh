#!/bin/sh
# Installs the Debian packages inlet needs, only those missing.
#   install-deps.sh build   compiler, CMake and the codec/JSON/Redis/Kafka/INI libraries
#   install-deps.sh test    the above plus cmocka, clang, clang-format, Node.js/npm, redis-server, kcat,
#                           prometheus (promtool), curl, tmux, man-db, chromium (renders `inlet report`),
#                           time (peak RSS in scripts/rss-check.sh), jq, and zstd (tar --zstd unpacks
#                           the public Delta tables of tests/data/public)
set -eu
mode=${1:-build}
pkgs="build-essential cmake pkg-config libzstd-dev libsnappy-dev zlib1g-dev liblz4-dev
      libbrotli-dev libjansson-dev libhiredis-dev librdkafka-dev
      libcurl4-openssl-dev libexpat1-dev libssl-dev libroaring-dev libmicrohttpd-dev
      libsystemd-dev libinih-dev"
if [ "$mode" = test ]; then
  pkgs="$pkgs libcmocka-dev clang clang-format redis-server valgrind kcat prometheus curl tmux man-db
        chromium time jq zstd"
  command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing:$missing"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
fi
