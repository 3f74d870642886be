#!/usr/bin/env bash
# A Node base image for the Dockerfile (its NODE_IMAGE) where no registry image can be pulled:
# Debian's root file system from debootstrap (the Debian mirror is all it downloads), the pinned
# Node 24 from node_modules, this machine's npm (plain JavaScript), and the `node` user the
# Dockerfile's `USER node` needs, given to `docker import`, trusting the certificate authorities
# this machine trusts. Prints the image name.
#
#   bash scripts/node-base-image.sh [IMAGE]     # default apicert-node-base:<pinned Node version>
#   docker build --network host --build-arg NODE_IMAGE="$(bash scripts/node-base-image.sh)" -t apicert .
#
# Needs root (debootstrap), the docker CLI with an engine (DOCKER_HOST), and `npm ci` done. An
# image of that name already in the engine is kept: the engine's storage is the cache between runs.
# Environment: APICERT_DEBIAN_MIRROR (default http://deb.debian.org/debian), APICERT_DEBIAN_SUITE (bookworm).
set -euo pipefail
cd "$(dirname "$0")/.."

node_bin=node_modules/node/bin/node
[ -x "$node_bin" ] || { echo "node-base-image: $node_bin is missing: run npm ci first" >&2; exit 2; }
version="$("$node_bin" -p process.versions.node)"
image="${1:-apicert-node-base:$version}"
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "node-base-image: $image is already in the engine" >&2
  echo "$image"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "node-base-image: run as root (debootstrap needs it)" >&2; exit 2; }
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
[ -f "$npm_dir/bin/npm-cli.js" ] || { echo "node-base-image: no npm found beside $(command -v npm)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null
fi

rootfs="$(mktemp -d /tmp/apicert-node-base.XXXXXX)"
cleanup() {
  # debootstrap mounts /proc and /sys in the target while it works: never delete through a mount.
  local m
  for m in proc sys; do if mountpoint -q "$rootfs/$m"; then umount -l "$rootfs/$m" || true; fi; done
  rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT

started=$SECONDS
debootstrap --variant=minbase "${APICERT_DEBIAN_SUITE:-bookworm}" "$rootfs" "${APICERT_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
install -m 0755 "$(readlink -f "$node_bin")" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# The same user as the official node images: uid and gid 1000, a home folder.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Node reads its own CA list, not the system's: give it this machine's, so that npm in the build
# trusts what the host trusts (a proxy's certificate authority included) on the way to the registry.
ca_env=()
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  ca_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
fi
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc "$rootfs"/usr/share/man
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "${ca_env[@]}" --change 'CMD ["node"]' - "$image" >/dev/null
echo "node-base-image: built $image (Debian $(cat "$rootfs/etc/debian_version"), Node $version, npm $("$node_bin" "$npm_dir/bin/npm-cli.js" --version)) in $((SECONDS - started)) s" >&2
echo "$image"
