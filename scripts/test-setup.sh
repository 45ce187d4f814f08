#!/usr/bin/env bash
# Installs the real servers the test suite starts on loopback (redis-server, nats-server) and the
# browser the web app's tests drive (Debian's chromium, through playwright-core: never a browser
# download) when the machine lacks them. Debian packages; needs root or sudo, as on the CI and
# developer machines.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v nats-server >/dev/null 2>&1 || need+=(nats-server)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "test-setup: installing ${need[*]}"
  # Another apt (unattended upgrades, a second install) may hold the dpkg lock: wait for it.
  lock=(-o DPkg::Lock::Timeout=600)
  $SUDO apt-get "${lock[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${lock[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
redis-server --version
nats-server --version
/usr/bin/chromium --version
