#!/usr/bin/env python3
"""Table row of bench/mpm_inverse_plastic.sh: recovered against true parameters of a plastic inverse run.

  mpm_inverse_plastic.py CASE RUN.h5 TRUTH.h5 NAME=GUESS ...

prints, per parameter NAME, the truth (TRUTH.h5 /parameters/NAME), the guess, the recovered value (RUN.h5
/parameters/NAME) and the relative error (absolute when the truth is 0), then the optimizer's iterations and the
objective at the first and last iteration (RUN.h5 /optimization)."""
import sys

import h5py


def main():
    case, run, truth = sys.argv[1:4]
    with h5py.File(run, "r") as r, h5py.File(truth, "r") as t:
        J = r["optimization/objective"][()]
        for item in sys.argv[4:]:
            name, guess = item.split("=")
            tv, rv = float(t["parameters"][name][0]), float(r["parameters"][name][0])
            err = abs(rv - tv) / abs(tv) if tv != 0 else abs(rv - tv)
            kind = "rel" if tv != 0 else "abs"
            print(f"{case:<14} {name:<15} truth {tv:<10.6g} guess {float(guess):<10.6g} recovered {rv:<14.8g} "
                  f"{kind} error {err:.2e}")
        print(f"{case:<14} {len(J) - 1} iterations, J {J[0]:.3e} -> {J[-1]:.3e}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main())
