#!/usr/bin/env bash
# usage: corrupt_max.sh IN OUT command args...: writes IN to OUT with a 9 put in front of every printed
# maximum ("max 1.5" -> "max 91.5"), then runs the command (a check that must catch it).
sed 's/ max \([0-9]\)/ max 9\1/' "$1" > "$2" || exit 2
# nothing corrupted: the check would pass for the wrong reason, or fail without having been tested
cmp -s "$1" "$2" && { echo "corrupt_max.sh: no ' max <digit>' in $1: nothing to corrupt"; exit 2; }
shift 2
exec "$@"
