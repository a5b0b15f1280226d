#!/usr/bin/env bash
# Runs a command under its own Xvfb virtual display, started and checked ready here (its socket
# exists) before the command runs, and stopped afterwards.  ParaView was seen, about once in ten
# suite runs, to abort with "bad X server connection" against a display that had just started;
# that failure of the environment (and only that one) is retried on a fresh Xvfb, at most 3 times, each
# time waiting longer after the socket appears (it was seen to fail all three times 0.5 s apart on a host at load 15).
# usage: with_xvfb.sh <first display number to try> command args...
set -u
n=$1; shift
command -v Xvfb >/dev/null || { echo "with_xvfb.sh: Xvfb is not installed (apt-get install xvfb)"; exit 1; }
log=$(mktemp)
xpid=
stop_x() { [ -n "$xpid" ] && kill "$xpid" 2>/dev/null && wait "$xpid" 2>/dev/null; xpid=; }
trap 'stop_x; rm -f "$log"' EXIT
for attempt in 1 2 3; do
  while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp -ac >/dev/null 2>&1 &
  xpid=$!
  for _ in $(seq 1 100); do [ -S "/tmp/.X11-unix/X$n" ] && break; kill -0 $xpid 2>/dev/null || break; sleep 0.1; done
  [ -S "/tmp/.X11-unix/X$n" ] || { echo "with_xvfb.sh: Xvfb :$n did not start"; exit 1; }
  # The socket can exist before the server accepts connections; on a loaded host it takes longer: wait 1, 4, 9 s.
  sleep $((attempt * attempt))
  DISPLAY=":$n" "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  stop_x
  if [ $rc -ne 0 ] && grep -q "bad X server connection" "$log" && [ $attempt -lt 3 ]; then
    echo "with_xvfb.sh: the X server on :$n refused the connection (environment, not the check): retrying on a new display"
    n=$((n + 1))
    continue
  fi
  exit $rc
done
