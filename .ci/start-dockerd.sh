#!/usr/bin/env bash
# Start (or stop) a private Docker engine on this machine: no registry, no iptables, host network only.
# The image test (suites/container) certifies apicert's image through it; .ci/run starts it.
#
# Verified 2026-11-22 on Debian 12 (bookworm), kernel 6.18, cgroup v1, as root:
# Debian's docker.io 20.10.24 (dockerd + its own managed containerd + runc 1.1.5), overlay2 storage.
#
#   .ci/start-dockerd.sh            # install docker.io if needed, start dockerd, print "export DOCKER_HOST=..."
#   eval "$(.ci/start-dockerd.sh env)"   # export DOCKER_HOST for this shell (engine must be running)
#   .ci/start-dockerd.sh stop       # stop the engine this script started, by its PID
#   .ci/start-dockerd.sh status
#
# Containers must use the host network (`docker run --network host ...`): the engine has no bridge,
# no NAT and no iptables rules, so nothing is exposed beyond loopback unless a container listens on
# other interfaces itself. Images come from `docker import` of a rootfs tarball (see
# scripts/build-image.ts); `docker pull` cannot work (no registry reachable).
#
# Environment:
#   APICERT_DOCKER_DIR   state directory (default /tmp/apicert-docker): data-root, exec-root, socket, pid, log
#   APICERT_DOCKER_STORAGE  storage driver (default overlay2; vfs works everywhere but copies every layer)
set -euo pipefail

DIR="${APICERT_DOCKER_DIR:-/tmp/apicert-docker}"
SOCK="$DIR/docker.sock"
PIDFILE="$DIR/dockerd.pid"
LOG="$DIR/dockerd.log"
STORAGE="${APICERT_DOCKER_STORAGE:-overlay2}"
export DOCKER_HOST="unix://$SOCK"

need_root() { [ "$(id -u)" = 0 ] || { echo "start-dockerd: run as root (dockerd needs it)" >&2; exit 2; }; }

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

install_engine() {
  command -v dockerd >/dev/null && return 0
  echo "start-dockerd: installing docker.io from Debian (services are not started by apt)" >&2
  # policy-rc.d exit 101 keeps apt from starting the packaged service (with its iptables defaults).
  local made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends docker.io >/dev/null
  [ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
  return 0
}

start() {
  need_root
  if running; then echo "start-dockerd: already running (pid $(cat "$PIDFILE")); DOCKER_HOST=$DOCKER_HOST" >&2; echo "export DOCKER_HOST=$DOCKER_HOST"; return 0; fi
  install_engine
  mkdir -p "$DIR/data" "$DIR/exec"
  # --bridge=none + --iptables=false + --ip-masq=false: no docker0, no NAT, no firewall changes.
  # A private socket, data-root and exec-root keep it apart from any other engine on the machine.
  setsid dockerd \
    --host "$DOCKER_HOST" \
    --data-root "$DIR/data" \
    --exec-root "$DIR/exec" \
    --pidfile "$PIDFILE" \
    --storage-driver "$STORAGE" \
    --iptables=false --ip6tables=false --ip-masq=false --bridge=none \
    --userland-proxy=false \
    >"$LOG" 2>&1 </dev/null &
  local i
  for i in $(seq 1 60); do
    if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
      echo "start-dockerd: dockerd $(docker version --format '{{.Server.Version}}') up (pid $(cat "$PIDFILE"), storage $STORAGE, log $LOG)" >&2
      echo "export DOCKER_HOST=$DOCKER_HOST"
      return 0
    fi
    sleep 0.5
  done
  echo "start-dockerd: dockerd did not answer within 30 s; last log lines:" >&2
  tail -20 "$LOG" >&2
  exit 1
}

stop() {
  if ! running; then echo "start-dockerd: not running" >&2; return 0; fi
  local pid; pid="$(cat "$PIDFILE")"
  # Containers first, so dockerd does not wait on them; then the engine itself, by its PID only.
  docker ps -q | xargs -r docker rm -f >/dev/null 2>&1 || true
  kill -TERM "$pid"
  local i
  for i in $(seq 1 40); do
    if ! kill -0 "$pid" 2>/dev/null; then
      # dockerd leaves its bind mount of the host network namespace behind; without this umount the
      # state directory cannot be deleted ("Device or resource busy").
      if mountpoint -q "$DIR/exec/netns/default" 2>/dev/null; then umount "$DIR/exec/netns/default" || true; fi
      echo "start-dockerd: stopped (pid $pid)" >&2
      return 0
    fi
    sleep 0.5
  done
  echo "start-dockerd: pid $pid still alive after 20 s; it is left to you (kill -KILL $pid)" >&2
  exit 1
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  env) echo "export DOCKER_HOST=$DOCKER_HOST" ;;
  status) if running; then echo "running pid $(cat "$PIDFILE") DOCKER_HOST=$DOCKER_HOST"; else echo "not running"; exit 1; fi ;;
  *) echo "usage: $0 [start|stop|status|env]" >&2; exit 2 ;;
esac
