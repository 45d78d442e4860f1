#!/usr/bin/env bash
# Build the lab's base image from scratch: debootstrap Debian bookworm (minbase) and
# `docker import` it. No image registry is reachable from lab machines, so every lab
# image starts here.
#
# usage: build.sh IMAGE_TAG [MIRROR]
set -euo pipefail

tag=${1:?usage: build.sh IMAGE_TAG [MIRROR]}
mirror=${2:-http://deb.debian.org/debian}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v debootstrap >/dev/null 2>&1; then
    env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

root=$(mktemp -d /var/tmp/dlcluster-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT

# netbase provides /etc/services: without it rpcbind binds no network socket.
debootstrap --variant=minbase --include=netbase,ca-certificates \
    bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -n 30 "$root.log" >&2
    exit 1
}
rm -f "$root.log"

install -m 0644 "$here/debian.sources" "$root/etc/apt/sources.list.d/debian.sources"
rm -f "$root/etc/apt/sources.list"
# Keep images small: no apt caches, no docs.
install -m 0644 "$here/dpkg-nodoc" "$root/etc/dpkg/dpkg.cfg.d/01-nodoc"
install -m 0644 "$here/apt-slim" "$root/etc/apt/apt.conf.d/01-slim"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

tar --numeric-owner -C "$root" -c . | docker import \
    --change 'CMD ["/bin/bash"]' \
    --change 'ENV LANG=C.UTF-8' \
    - "$tag" >/dev/null
echo "built $tag"
