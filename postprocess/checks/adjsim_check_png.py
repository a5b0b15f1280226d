#!/usr/bin/python3
"""Check that PNG images written by the adjsim_plot_*.py scripts are plausible (used by the tests).

For each image: it reads back (matplotlib.image.imread), has the expected size in pixels (--size),
and is not blank: more than --min-colors distinct colours, a standard deviation of its grey levels
above --min-std, no single colour covering more than --max-fraction of it, and at least
--min-coloured of its pixels in colour rather than grey (every adjsim plot draws its data in colour:
colour maps, coloured curves; an empty frame with grey labels and ticks has none). Prints one line
per image and exits 1 on the first failure (2 for bad options).

Example:
  /usr/bin/python3 postprocess/checks/adjsim_check_png.py fields.png --size 1200x500
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # postprocess/
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("images", nargs="+", metavar="PNG", help="image file(s) to check")
    ap.add_argument("--size", metavar="WxH", default=None,
                    help="required size in pixels, e.g. 1200x500 (default: any size)")
    ap.add_argument("--min-colors", type=int, default=16,
                    help="the image must have more distinct colours than this (default 16)")
    ap.add_argument("--min-std", type=float, default=0.05,
                    help="the standard deviation of its grey levels (0..1) must exceed this (default 0.05)")
    ap.add_argument("--max-fraction", type=float, default=0.99,
                    help="no single colour may cover more than this fraction of the pixels (default 0.99)")
    ap.add_argument("--min-coloured", type=float, default=0.002,
                    help="at least this fraction of the pixels must be coloured, i.e. max - min of R, G, B "
                         "above 0.15 (default 0.002)")
    return ap.parse_args(argv)


def check(path, size, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    if not os.path.exists(path):
        raise ah.RunFileError(f"{path} does not exist")
    try:
        img = mpimg.imread(path)
    except (OSError, ValueError, SyntaxError) as e:
        raise ah.RunFileError(f"{path} cannot be read as an image ({e})") from None
    if img.dtype != np.float32 and img.dtype != np.float64:
        img = img.astype(np.float64) / 255.0
    if img.ndim == 2:
        img = img[:, :, None]
    h, w = img.shape[:2]
    if size and (w, h) != size:
        raise ah.RunFileError(f"{path} is {w}x{h} pixels, expected {size[0]}x{size[1]}")
    rgb = img[:, :, :3] if img.shape[2] >= 3 else np.repeat(img[:, :, :1], 3, axis=2)
    if img.shape[2] == 4:  # composite on white, as a viewer shows it
        rgb = rgb * img[:, :, 3:4] + (1.0 - img[:, :, 3:4])
    q = np.round(rgb * 255).astype(np.uint32)
    codes = (q[:, :, 0] << 16) | (q[:, :, 1] << 8) | q[:, :, 2]
    values, counts = np.unique(codes, return_counts=True)
    colours, top = len(values), counts.max() / codes.size
    grey = rgb.mean(axis=2)
    std = float(grey.std())
    coloured = float(np.mean(rgb.max(axis=2) - rgb.min(axis=2) > 0.15))
    print(f"{path}: {w}x{h} pixels, {colours} colours, grey-level std {std:.3f}, "
          f"most common colour {100 * top:.1f}%, coloured {100 * coloured:.2f}% of pixels")
    if colours <= args.min_colors:
        raise ah.RunFileError(f"{path} looks blank: {colours} distinct colours (need more than {args.min_colors})")
    if std <= args.min_std:
        raise ah.RunFileError(f"{path} looks blank: grey-level standard deviation {std:.4f} <= {args.min_std}")
    if top > args.max_fraction:
        raise ah.RunFileError(f"{path} looks blank: one colour covers {100 * top:.1f}% of it "
                              f"(more than {100 * args.max_fraction:.0f}%)")
    if coloured < args.min_coloured:
        raise ah.RunFileError(f"{path} looks blank: only {100 * coloured:.3f}% of its pixels are coloured "
                              f"(need {100 * args.min_coloured:.2f}%): no data drawn?")


def main(argv=None):
    args = parse_args(argv)
    try:
        size = ah.parse_size(args.size) if args.size else None
        for path in args.images:
            check(path, size, args)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
