"""Independent re-implementation of adjsim's online checkpointing cost (src/revolve/online.c, docs/checkpointing.md),
used to produce the reference counts hard-coded in test_revolve_online_large.c. Not run by ctest (minutes at
n = 10^6 in pure Python).

Placement: Wang, Moin & Iaccarino's dynamic rule with delta = s + 1 checkpoints (the newest state is tentative);
reverse: step n at once, then revolve on each interval [c_j, c_{j+1}] with s - j slots, costed with
t(l, c) = r l - C(c + r, r - 1), r = min{r : C(c + r, c) >= l}, t(l, 1) = l (l - 1) / 2.
usage: python3 online_reference.py n s [n s ...]  ->  "n s online_forward_steps offline_forward_steps" per pair"""
import math
import sys


def repetition(n, c):
    r = 0
    while math.comb(c + r, c) < n:
        r += 1
    return r


def extra(n, c):
    if n <= 1:
        return 0
    if c == 1:
        return n * (n - 1) // 2
    r = repetition(n, c)
    return r * n - math.comb(c + r, r - 1)


def kept_checkpoints(n, s):
    """Steps held in slots when the run stops after the step to n (x_n itself is never stored)."""
    inf = float("inf")
    entries = [[0, inf]]  # [step, level]; the last entry is the tentative current state
    for _ in range(n):
        if len(entries) < s + 1:
            entries.append([entries[-1][0] + 1, 0])
            continue
        dispensable, highest = -1, entries[-1][1]
        for k in range(len(entries) - 2, -1, -1):
            if entries[k][1] < highest:
                dispensable = k
                break
            highest = max(highest, entries[k][1])
        if dispensable >= 0:
            del entries[dispensable]
            entries.append([entries[-1][0] + 1, 0])
        else:
            entries[-1][0] += 1
            entries[-1][1] += 1
    return [e[0] for e in entries[:-1]]


def online_forward_steps(n, s):
    total, end = n + 1, n - 1
    kept = kept_checkpoints(n, s)
    for j in range(len(kept) - 1, -1, -1):
        length = end - kept[j]
        if length > 0:
            total += length + extra(length, s - j)
        end = kept[j]
    return total


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    for n, s in zip(args[0::2], args[1::2]):
        print(n, s, online_forward_steps(n, s), n + extra(n, s))
