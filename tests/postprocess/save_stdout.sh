#!/usr/bin/env bash
# usage: save_stdout.sh OUT command args...: runs the command with its standard output saved to OUT
# (and echoed to the test log); exits with the command's status.
out=$1; shift
"$@" > "$out"; rc=$?
cat "$out"
exit $rc
