"""ParaView reads the curvilinear grid of an airfoil run file through its XDMF: a vtkStructuredGrid with one cell per
solver cell, points at the node coordinates of /grid/x_nodes, y_nodes (bounds: the far-field circle), and the cell
field u equal to the HDF5 dataset's first slice.  Exit 1 on any mismatch.
usage: pvpython paraview_grid.py run.xmf run.h5 cells_around cells_normal"""
import sys

from paraview import servermanager
from paraview.simple import XDMFReader
from vtk.util.numpy_support import vtk_to_numpy
import numpy as np

xmf, h5, ni, nc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r = XDMFReader(FileNames=[xmf])
r.UpdatePipeline(0.0)
d = servermanager.Fetch(r)
g = d.GetBlock(0) if d.IsA("vtkMultiBlockDataSet") else d
fail = []
if g.GetClassName() != "vtkStructuredGrid":
    fail.append(f"reader gave a {g.GetClassName()}, not a vtkStructuredGrid")
if g.GetNumberOfCells() != ni * nc or g.GetNumberOfPoints() != (ni + 1) * (nc + 1):
    fail.append(f"{g.GetNumberOfCells()} cells, {g.GetNumberOfPoints()} points: expected {ni * nc}, {(ni + 1) * (nc + 1)}")
try:
    import h5py
    with h5py.File(h5, "r") as f:
        x, y, u = f["grid/x_nodes"][()], f["grid/y_nodes"][()], f["fields/u"][0]
    pts = vtk_to_numpy(g.GetPoints().GetData())
    if np.max(np.abs(pts[:, 0] - x.ravel())) > 0 or np.max(np.abs(pts[:, 1] - y.ravel())) > 0:
        fail.append("point coordinates differ from /grid/x_nodes, y_nodes")
    uc = vtk_to_numpy(g.GetCellData().GetArray("u"))
    if np.max(np.abs(uc - u.ravel())) > 0:
        fail.append("cell field u differs from /fields/u[0]")
except ImportError:
    pass  # ParaView's Python without h5py: counts only
print("paraview airfoil grid:", "ok" if not fail else "; ".join(fail))
sys.exit(1 if fail else 0)
