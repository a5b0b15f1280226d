/* AdjOutput: the XDMF 3 description of a run file, written by rank 0 at close from the writer's records.
 *
 * Cells are the data points (Center="Cell"), so the CoRectMesh topology counts points: cells + 1 per axis.
 * XDMF lists Dimensions, Origin and spacing slowest axis first (z y x), as ParaView's reader expects.
 * A 1-D grid is described as a 2-D one a single cell thick, since XDMF has no 1-D CoRectMesh. */
#include "ioimpl.h"
#include <stdio.h>
#include <string.h>

/* Write s with the five XML special characters escaped (names come from users). */
static void XdmfPutEscaped(FILE *fp, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", fp);
      break;
    case '<':
      fputs("&lt;", fp);
      break;
    case '>':
      fputs("&gt;", fp);
      break;
    case '"':
      fputs("&quot;", fp);
      break;
    case '\'':
      fputs("&apos;", fp);
      break;
    default:
      fputc(*s, fp);
    }
  }
}

static void XdmfPutHeavy(FILE *fp, const char *h5name, const char *path);

/* Topology and geometry of the grid: slowest axis first, a dummy y axis for 1-D; a curvilinear 2-D grid as a
 * 2DSMesh whose X_Y geometry reads the node coordinates from the run file h5name. */
static void XdmfPutMesh(FILE *fp, AdjOutput out, const char *indent, const char *h5name)
{
  const PetscInt nd = out->dim == 1 ? 2 : out->dim;
  long long      points[ADJ_IO_MAX_DIM];
  double         origin[ADJ_IO_MAX_DIM], spacing[ADJ_IO_MAX_DIM];

  if (out->curvilinear) { /* node coordinates written by AdjOutputWriteCurvilinearGrid */
    fprintf(fp, "%s<Topology TopologyType=\"2DSMesh\" Dimensions=\"%lld %lld\"/>\n%s<Geometry GeometryType=\"X_Y\">\n",
            indent, (long long)out->cells[1] + 1, (long long)out->cells[0] + 1, indent);
    for (int c = 0; c < 2; c++) {
      fprintf(fp, "%s  <DataItem Dimensions=\"%lld %lld\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">", indent,
              (long long)out->cells[1] + 1, (long long)out->cells[0] + 1);
      XdmfPutHeavy(fp, h5name, c ? "/grid/y_nodes" : "/grid/x_nodes");
      fprintf(fp, "</DataItem>\n");
    }
    fprintf(fp, "%s</Geometry>\n", indent);
    return;
  }
  for (PetscInt i = 0; i < nd; i++) {
    PetscInt axis = nd - 1 - i; /* x is last */

    if (axis < out->dim) {
      points[i]  = (long long)out->cells[axis] + 1;
      origin[i]  = (double)out->lower[axis];
      spacing[i] = (double)((out->upper[axis] - out->lower[axis]) / (PetscReal)out->cells[axis]);
    } else {
      points[i] = 2, origin[i] = 0.0, spacing[i] = 1.0;
    }
  }
  fprintf(fp, "%s<Topology TopologyType=\"%s\" Dimensions=\"", indent, nd == 3 ? "3DCoRectMesh" : "2DCoRectMesh");
  for (PetscInt i = 0; i < nd; i++) fprintf(fp, "%s%lld", i ? " " : "", points[i]);
  fprintf(fp, "\"/>\n%s<Geometry GeometryType=\"%s\">\n", indent, nd == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY");
  for (int which = 0; which < 2; which++) {
    const double *v = which ? spacing : origin;

    fprintf(fp, "%s  <DataItem Name=\"%s\" Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\"%d\">",
            indent, which ? "Spacing" : "Origin", (int)nd);
    for (PetscInt i = 0; i < nd; i++) fprintf(fp, "%s%.17g", i ? " " : "", v[i]);
    fprintf(fp, "</DataItem>\n");
  }
  fprintf(fp, "%s</Geometry>\n", indent);
}

/* C-order grid dimensions as text, e.g. "9 13". */
static void XdmfPutCellDims(FILE *fp, AdjOutput out)
{
  for (PetscInt i = out->dim - 1; i >= 0; i--)
    fprintf(fp, "%s%lld", i == out->dim - 1 ? "" : " ", (long long)out->cells[i]);
}

static void XdmfPutHeavy(FILE *fp, const char *h5name, const char *path)
{
  XdmfPutEscaped(fp, h5name);
  fputc(':', fp);
  XdmfPutEscaped(fp, path);
}

/* One cell attribute reading time slice k of a series through a HyperSlab (start, stride, count rows).
 * The HyperSlab item is dimensioned like one slice (not 1 x slice) and typed: ParaView's XDMF reader
 * otherwise reads the wrong number of values.  ParaView's Xdmf3 readers do not read HyperSlab items;
 * open the file with the "XDMF Reader" (docs/output-format.md). */
static void XdmfPutSliceAttribute(FILE *fp, AdjOutput out, const AdjIOEntry *e, PetscInt k, const char *h5name)
{
  const PetscInt nd = out->dim + 1;

  fprintf(fp, "        <Attribute Name=\"");
  XdmfPutEscaped(fp, e->name);
  fprintf(fp, "\" AttributeType=\"Scalar\" Center=\"Cell\">\n");
  fprintf(fp, "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"");
  XdmfPutCellDims(fp, out);
  fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Type=\"HyperSlab\">\n");
  fprintf(fp, "            <DataItem Dimensions=\"3 %d\" Format=\"XML\">%lld", (int)nd, (long long)k);
  for (PetscInt i = 1; i < nd; i++) fprintf(fp, " 0");
  for (PetscInt i = 0; i < nd; i++) fprintf(fp, " 1");
  fprintf(fp, " 1 ");
  XdmfPutCellDims(fp, out);
  fprintf(fp, "</DataItem>\n");
  fprintf(fp, "            <DataItem Dimensions=\"%lld ", (long long)e->extent);
  XdmfPutCellDims(fp, out);
  fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">");
  XdmfPutHeavy(fp, h5name, e->path);
  fprintf(fp, "</DataItem>\n          </DataItem>\n        </Attribute>\n");
}

/* A gradient/parameter field (Center Cell) or array (Center Grid: field data, one value per entry). */
static void XdmfPutDataAttribute(FILE *fp, AdjOutput out, const AdjIOEntry *e, const char *h5name)
{
  const char *prefix  = "";
  PetscBool   isfield = (PetscBool)(e->kind == ADJ_IO_ENTRY_GRADIENT_FIELD || e->kind == ADJ_IO_ENTRY_PARAMETER_FIELD ||
                                  e->kind == ADJ_IO_ENTRY_DESIGN_FIELD);

  if (e->kind == ADJ_IO_ENTRY_GRADIENT_FIELD || e->kind == ADJ_IO_ENTRY_GRADIENT_ARRAY)
    prefix = "gradient_";
  else if (e->kind == ADJ_IO_ENTRY_PARAMETER_FIELD || e->kind == ADJ_IO_ENTRY_PARAMETER_ARRAY)
    prefix = "parameter_";
  else
    prefix = "optimization_";
  fprintf(fp, "      <Attribute Name=\"%s", prefix);
  XdmfPutEscaped(fp, e->name);
  fprintf(fp, "\" AttributeType=\"Scalar\" Center=\"%s\">\n", isfield ? "Cell" : "Grid");
  fprintf(fp, "        <DataItem Dimensions=\"");
  if (isfield)
    XdmfPutCellDims(fp, out);
  else
    fprintf(fp, "%lld", (long long)e->n);
  fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">");
  XdmfPutHeavy(fp, h5name, e->path);
  fprintf(fp, "</DataItem>\n      </Attribute>\n");
}

/** Write the XDMF file xmf describing the run file h5name (a name relative to the .xmf's directory).
 *  Not collective: rank 0 only. */
PetscErrorCode AdjOutputWriteXdmf(AdjOutput out, const char xmf[], const char h5name[])
{
  FILE     *fp;
  PetscInt  ndata = 0;
  PetscBool failed;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, xmf, "w", &fp));
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
  fprintf(fp, "<!-- Written by adjsim %s: the time series of /fields and the gradients/parameters of ", ADJSIM_VERSION);
  XdmfPutEscaped(fp, h5name);
  fprintf(fp, " -->\n<Xdmf Version=\"2.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <Domain>\n");
  if (out->nt > 0) {
    fprintf(fp, "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (PetscInt k = 0; k < out->nt; k++) {
      fprintf(fp, "      <Grid Name=\"step_%lld\" GridType=\"Uniform\">\n", (long long)out->steps[k]);
      fprintf(fp, "        <Time Value=\"%.17g\"/>\n", (double)out->times[k]);
      XdmfPutMesh(fp, out, "        ", h5name);
      for (PetscInt i = 0; i < out->nentries; i++) {
        const AdjIOEntry *e = &out->entries[i];

        if (e->kind == ADJ_IO_ENTRY_FIELD && k < e->extent && e->written[k])
          XdmfPutSliceAttribute(fp, out, e, k, h5name);
      }
      fprintf(fp, "      </Grid>\n");
    }
    fprintf(fp, "    </Grid>\n");
  }
  for (PetscInt i = 0; i < out->nentries; i++)
    ndata += out->entries[i].kind != ADJ_IO_ENTRY_FIELD && out->entries[i].kind != ADJ_IO_ENTRY_OPTIMIZATION_ARRAY;
  if (ndata) {
    fprintf(fp, "    <Grid Name=\"gradients_and_parameters\" GridType=\"Uniform\">\n");
    if (out->nt > 0) fprintf(fp, "      <Time Value=\"%.17g\"/>\n", (double)out->times[out->nt - 1]);
    XdmfPutMesh(fp, out, "      ", h5name);
    for (PetscInt i = 0; i < out->nentries; i++)
      if (out->entries[i].kind != ADJ_IO_ENTRY_FIELD && out->entries[i].kind != ADJ_IO_ENTRY_OPTIMIZATION_ARRAY)
        XdmfPutDataAttribute(fp, out, &out->entries[i], h5name);
    fprintf(fp, "    </Grid>\n");
  }
  fprintf(fp, "  </Domain>\n</Xdmf>\n");
  failed = (PetscBool)(ferror(fp) != 0);
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Writing %s failed", xmf);
  PetscFunctionReturn(PETSC_SUCCESS);
}
