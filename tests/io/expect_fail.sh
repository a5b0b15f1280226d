#!/bin/bash
# usage: expect_fail.sh <extended-regex> <command> [args...]
# Passes when the command exits nonzero AND its output (stdout+stderr) matches the regex: a failure must
# be a clean, explained one (the message names the file), not a crash or a success.
set -u
regex=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v 'Configure options'
if [ "$rc" -eq 0 ]; then
  echo "expect_fail.sh: FAIL: the command succeeded but must fail: $*"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_fail.sh: FAIL: exit $rc, but no output line matches /$regex/"
  exit 1
fi
echo "expect_fail.sh: failed as required (exit $rc) with a message matching /$regex/"
exit 0
