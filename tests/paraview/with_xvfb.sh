#!/usr/bin/env bash
# Runs a command under its own Xvfb virtual display, started and checked ready here (its socket
# exists) before the command runs, and stopped afterwards.  xvfb-run alone was seen to hand over
# before the server accepted connections ("bad X server connection"), once in a few runs.
# usage: with_xvfb.sh <first display number to try> command args...
set -u
n=$1; shift
command -v Xvfb >/dev/null || { echo "with_xvfb.sh: Xvfb is not installed (apt-get install xvfb)"; exit 1; }
while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
xpid=$!
trap 'kill $xpid 2>/dev/null; wait $xpid 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -S "/tmp/.X11-unix/X$n" ] && break; kill -0 $xpid 2>/dev/null || break; sleep 0.1; done
[ -S "/tmp/.X11-unix/X$n" ] || { echo "with_xvfb.sh: Xvfb :$n did not start"; exit 1; }
DISPLAY=":$n" "$@"
