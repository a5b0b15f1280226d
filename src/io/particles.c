/* AdjOutput for particle solvers: /particles/<name> time series, the particle XDMF file and particle
 * restart states (include/adjsim/particles.h).  Built on the io component's internals (ioimpl.h) so the
 * run file keeps one writer, one set of output steps and the same atomic restart-file commit. */
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <adjsim/particles.h>
#include <stdio.h>
#include <string.h>

/* Global count and first global row of the n particles this rank holds. Collective. */
static PetscErrorCode AdjParticleRows(MPI_Comm comm, PetscInt n, hsize_t *N, hsize_t *start)
{
  PetscInt64  nl = n, tot = 0, first = 0;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Allreduce(&nl, &tot, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Exscan(&nl, &first, 1, MPIU_INT64, MPI_SUM, comm));
  if (!rank) first = 0;
  *N     = (hsize_t)tot;
  *start = (hsize_t)first;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Open /particles/<name>, creating it as (0, N[, ncomp]) extendable along time. Collective. */
static PetscErrorCode AdjParticleSeriesOpen(AdjOutput out, hid_t grp, const char name[], const char units[],
                                            PetscInt ncomp, hsize_t N, hid_t *dset)
{
  PetscBool exists;
  const int nd = ncomp > 1 ? 3 : 2;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(grp, name, &exists));
  if (!exists) {
    hsize_t dims[3] = {0, N, (hsize_t)ncomp}, maxdims[3] = {H5S_UNLIMITED, N, (hsize_t)ncomp};
    hsize_t chunk[3] = {1, PetscMax(1, PetscMin(N, (hsize_t)1 << 18)), (hsize_t)ncomp};
    hid_t   space, dcpl;

    space = H5Screate_simple(nd, dims, maxdims);
    AdjCallH5(space);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    AdjCallH5(dcpl);
    AdjCallH5(H5Pset_chunk(dcpl, nd, chunk));
    AdjCallH5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    *dset = H5Dcreate2(grp, name, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    AdjCallH5(*dset);
    AdjCallH5(H5Pclose(dcpl));
    AdjCallH5(H5Sclose(space));
    PetscCall(AdjH5WriteAttrString(*dset, "units", units ? units : "1"));
  } else {
    hsize_t  dims[8];
    PetscInt ndf;

    *dset = H5Dopen2(grp, name, H5P_DEFAULT);
    AdjCallH5(*dset);
    PetscCall(AdjH5DatasetDims(*dset, &ndf, dims));
    PetscCheck(ndf == nd && dims[1] == N && (nd == 2 || dims[2] == (hsize_t)ncomp), out->comm, PETSC_ERR_ARG_SIZ,
               "Particle field %s: written before with another particle count or number of components", name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputWriteParticleField(AdjOutput out, const char name[], const char units[], PetscInt ncomp,
                                           PetscInt n, const PetscReal values[])
{
  hsize_t        N, start, dims[8];
  hid_t          grp, dset = H5I_INVALID_HID;
  PetscInt       nd;
  const PetscInt k = out->nt - 1;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteParticleField"));
  PetscCheck(out->nt > 0, out->comm, PETSC_ERR_ORDER, "AdjOutputWriteParticleField: call AdjOutputBeginStep() first");
  PetscCall(AdjIOCheckName(out->comm, "particle field", name));
  PetscCheck(ncomp >= 1, out->comm, PETSC_ERR_ARG_OUTOFRANGE, "particle field %s: ncomp must be >= 1", name);
  PetscCall(AdjParticleRows(out->comm, n, &N, &start));
  PetscCall(AdjH5GroupOpen(out->file, "/particles", PETSC_TRUE, &grp));
  PetscCall(AdjParticleSeriesOpen(out, grp, name, units, ncomp, N, &dset));
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  if (dims[0] < (hsize_t)k + 1) {
    dims[0] = (hsize_t)k + 1;
    AdjCallH5(H5Dset_extent(dset, dims));
  }
  {
    const hsize_t s[3] = {(hsize_t)k, start, 0}, c[3] = {1, (hsize_t)n, (hsize_t)ncomp};

    PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, nd, s, c, PETSC_TRUE, values));
  }
  AdjCallH5(H5Dclose(dset));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One HyperSlab DataItem: slice k of /particles/<name> shaped (nt, N[, ncomp]). */
static void AdjParticleXdmfSlab(FILE *fp, const char *indent, const char *h5name, const char *name, PetscInt k,
                                PetscInt nt, long long N, PetscInt ncomp)
{
  if (ncomp > 1) {
    fprintf(fp,
            "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld %d\" NumberType=\"Float\" Precision=\"8\" "
            "Type=\"HyperSlab\">\n",
            indent, N, (int)ncomp);
    fprintf(fp, "%s  <DataItem Dimensions=\"3 3\" Format=\"XML\">%d 0 0 1 1 1 1 %lld %d</DataItem>\n", indent, (int)k,
            N, (int)ncomp);
    fprintf(fp,
            "%s  <DataItem Dimensions=\"%d %lld %d\" NumberType=\"Float\" Precision=\"8\" "
            "Format=\"HDF\">%s:/particles/%s</DataItem>\n",
            indent, (int)nt, N, (int)ncomp, h5name, name);
  } else {
    fprintf(fp,
            "%s<DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld\" NumberType=\"Float\" Precision=\"8\" "
            "Type=\"HyperSlab\">\n",
            indent, N);
    fprintf(fp, "%s  <DataItem Dimensions=\"3 2\" Format=\"XML\">%d 0 1 1 1 %lld</DataItem>\n", indent, (int)k, N);
    fprintf(fp,
            "%s  <DataItem Dimensions=\"%d %lld\" NumberType=\"Float\" Precision=\"8\" "
            "Format=\"HDF\">%s:/particles/%s</DataItem>\n",
            indent, (int)nt, N, h5name, name);
  }
  fprintf(fp, "%s</DataItem>\n", indent);
}

/* Rank 0: write the XDMF text to tmp. Returns 0 or an errno-like failure. */
static int AdjParticleXdmfWrite(AdjOutput out, const char tmp[], const char h5name[], const char position[],
                                PetscInt pcomp, PetscInt nfields, const char *const names[], const PetscInt ncomp[],
                                long long N)
{
  FILE *fp = fopen(tmp, "w");

  if (!fp) return 1;
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n");
  fprintf(fp, "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (PetscInt k = 0; k < out->nt; k++) {
    fprintf(fp, "      <Grid Name=\"particles_%d\" GridType=\"Uniform\">\n", (int)k);
    fprintf(fp, "        <Time Value=\"%.17g\"/>\n", (double)out->times[k]);
    fprintf(fp, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" NodesPerElement=\"1\"/>\n", N);
    fprintf(fp, "        <Geometry GeometryType=\"%s\">\n", pcomp == 3 ? "XYZ" : "XY");
    AdjParticleXdmfSlab(fp, "          ", h5name, position, k, out->nt, N, pcomp);
    fprintf(fp, "        </Geometry>\n");
    for (PetscInt f = 0; f < nfields; f++) {
      const char *type = ncomp[f] == 1 ? "Scalar" : (ncomp[f] == 3 ? "Vector" : (ncomp[f] == 9 ? "Tensor" : "Matrix"));

      fprintf(fp, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", names[f], type);
      AdjParticleXdmfSlab(fp, "          ", h5name, names[f], k, out->nt, N, ncomp[f]);
      fprintf(fp, "        </Attribute>\n");
    }
    fprintf(fp, "      </Grid>\n");
  }
  fprintf(fp, "    </Grid>\n  </Domain>\n</Xdmf>\n");
  if (fclose(fp)) return 1;
  return 0;
}

PetscErrorCode AdjOutputWriteParticleXdmf(AdjOutput out, const char position[], PetscInt nfields,
                                          const char *const names[], const PetscInt ncomp[])
{
  AdjIOParticleXdmf *px = &out->pxdmf;
  char               path[300];
  hid_t              dset;
  hsize_t            dims[8];
  PetscInt           nd;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteParticleXdmf"));
  if (!out->xdmf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nfields <= ADJ_IO_PXDMF_MAX, out->comm, PETSC_ERR_SUP,
             "AdjOutputWriteParticleXdmf: at most %d particle fields", ADJ_IO_PXDMF_MAX);
  PetscCall(PetscSNPrintf(path, sizeof(path), "/particles/%s", position));
  dset = H5Dopen2(out->file, path, H5P_DEFAULT);
  AdjCallH5(dset);
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  AdjCallH5(H5Dclose(dset));
  PetscCall(PetscStrncpy(px->position, position, sizeof(px->position)));
  px->pcomp   = nd == 3 ? (PetscInt)dims[2] : 1;
  px->N       = (long long)dims[1];
  px->nfields = nfields;
  for (PetscInt f = 0; f < nfields; f++) {
    PetscCall(PetscStrncpy(px->names[f], names[f], sizeof(px->names[f])));
    px->ncomp[f] = ncomp[f];
  }
  px->on = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 only, from AdjOutputClose() once the run file has its name: <stem>-particles.xmf for every
 * output step, written as <stem>-particles.xmf.partial and renamed. */
PetscErrorCode AdjOutputCommitParticleXdmf(AdjOutput out)
{
  const AdjIOParticleXdmf *px   = &out->pxdmf;
  const char              *base = strrchr(out->path, '/');
  const char              *names[ADJ_IO_PXDMF_MAX];
  char                     xmf[PETSC_MAX_PATH_LEN + 32], tmp[PETSC_MAX_PATH_LEN + 48];

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < px->nfields; f++) names[f] = px->names[f];
  PetscCall(AdjOutputGetParticleXdmfPath(out, xmf, sizeof(xmf)));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.partial", xmf));
  PetscCheck(!AdjParticleXdmfWrite(out, tmp, base ? base + 1 : out->path, px->position, px->pcomp, px->nfields, names,
                                   px->ncomp, px->N),
             PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the particle XDMF file %s", tmp);
  PetscCheck(!rename(tmp, xmf), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, xmf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <group>/<name> of file: an (N) (nd 1, ncomp 1) or (N, ncomp) (nd 2) table of the particles, each rank
 * writing its n rows (replacing an older dataset of that name). Collective. */
static PetscErrorCode AdjParticleTableWrite(AdjOutput out, hid_t file, const char group[], const char name[],
                                            const char units[], int nd, PetscInt ncomp, PetscInt n,
                                            const PetscReal values[])
{
  hsize_t   N, start, dims[2];
  hid_t     grp, space, dset;
  PetscBool exists;

  PetscFunctionBeginUser;
  PetscCall(AdjIOCheckName(out->comm, group, name));
  PetscCall(AdjParticleRows(out->comm, n, &N, &start));
  PetscCall(AdjH5GroupOpen(file, group, PETSC_TRUE, &grp));
  PetscCall(AdjH5Exists(grp, name, &exists));
  if (exists) AdjCallH5(H5Ldelete(grp, name, H5P_DEFAULT));
  dims[0] = N, dims[1] = (hsize_t)ncomp;
  space = H5Screate_simple(nd, dims, NULL);
  AdjCallH5(space);
  dset = H5Dcreate2(grp, name, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  AdjCallH5(dset);
  AdjCallH5(H5Sclose(space));
  {
    const hsize_t s[2] = {start, 0}, c[2] = {(hsize_t)n, (hsize_t)ncomp};
    PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, nd, s, c, PETSC_TRUE, values));
  }
  if (units) PetscCall(AdjH5WriteAttrString(dset, "units", units));
  AdjCallH5(H5Dclose(dset));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /restart/<name> of file: the (N, bs) dataset of the block vector state. Collective. */
static PetscErrorCode AdjParticleRestartData(AdjOutput out, hid_t file, const char name[], Vec state)
{
  PetscInt           bs, n;
  hid_t              grp;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetBlockSize(state, &bs));
  PetscCall(VecGetLocalSize(state, &n));
  PetscCall(VecGetArrayRead(state, &a));
  PetscCall(AdjParticleTableWrite(out, file, "/restart", name, NULL, 2, bs, n / bs, a));
  PetscCall(VecRestoreArrayRead(state, &a));
  PetscCall(AdjH5GroupOpen(file, "/restart", PETSC_FALSE, &grp));
  PetscCall(AdjH5WriteAttrString(grp, "field_names", name));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputWriteParticleBlock(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                           PetscInt ncomp, PetscInt n, const PetscReal values[])
{
  const char *path = group == ADJ_OUTPUT_GRADIENTS ? "/gradients" : "/parameters";

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteParticleBlock"));
  PetscCheck(ncomp >= 1, out->comm, PETSC_ERR_ARG_OUTOFRANGE, "particle map %s/%s: ncomp must be >= 1", path, name);
  PetscCall(
      AdjParticleTableWrite(out, out->file, path, name, units ? units : "1", ncomp > 1 ? 2 : 1, ncomp, n, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputWriteParticleRestart(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                             const char name[], Vec state, PetscBool standalone)
{
  char  tmp[PETSC_MAX_PATH_LEN + 16];
  hid_t file;

  PetscFunctionBeginUser;
  if (!standalone) {
    /* In the run file: the attributes, then the particle data (the attributes' step/time are written
       last by AdjOutputWriteRestartGroup only for grid fields; a reader finding them without the
       dataset reports the dataset as missing). */
    PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteParticleRestart"));
    PetscCall(AdjOutputWriteRestartGroup(out, out->file, solver, step, time, 0, NULL, NULL));
    PetscCall(AdjParticleRestartData(out, out->file, name, state));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* As AdjOutputWriteRestartFile(), with the particle dataset before the atomic commit. */
  PetscCall(AdjOutputRestartFileBegin(out, "AdjOutputWriteParticleRestart", tmp, sizeof(tmp), &file));
  PetscCall(AdjOutputWriteRestartGroup(out, file, solver, step, time, 0, NULL, NULL));
  PetscCall(AdjParticleRestartData(out, file, name, state));
  PetscCall(AdjOutputRestartFileEnd(out, tmp, file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjInputReadParticleRestart(MPI_Comm comm, const char path[], const char solver[], DM da,
                                           const char name[], Vec state, AdjStepIndex *step, PetscReal *time)
{
  char         dsetname[2 * ADJ_IO_NAME_MAX];
  hid_t        fapl, file, dset;
  PetscBool    exists;
  hsize_t      dims[8], N, start;
  PetscInt     nd, bs, n;
  PetscScalar *a;

  PetscFunctionBeginUser;
  /* Rank 0 vouches for the file, the solver and the grid (no hang on a bad file). */
  PetscCall(AdjInputReadRestart(comm, path, solver, da, 0, NULL, NULL, step, time));
  PetscCall(AdjH5FileAccess(comm, &fapl));
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  AdjCallH5(H5Pclose(fapl));
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN, "Cannot read %s: parallel HDF5 could not open it", path);
  PetscCall(PetscSNPrintf(dsetname, sizeof(dsetname), "/restart/%s", name));
  PetscCall(AdjH5Exists(file, dsetname, &exists));
  if (!exists) AdjCallH5(H5Fclose(file));
  PetscCheck(exists, comm, PETSC_ERR_FILE_READ, "Cannot restart from %s: it has no dataset %s", path, dsetname);
  PetscCall(AdjInputOpenDataset(comm, file, path, dsetname, &dset)); /* numbers, not e.g. complex or strings */
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  PetscCall(VecGetBlockSize(state, &bs));
  PetscCall(VecGetLocalSize(state, &n));
  PetscCall(AdjParticleRows(comm, n / bs, &N, &start));
  if (!(nd == 2 && dims[0] == N && dims[1] == (hsize_t)bs)) {
    AdjCallH5(H5Dclose(dset));
    AdjCallH5(H5Fclose(file));
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "Cannot restart from %s: dataset %s has shape (%llu, %llu) but this run has %llu particles of %d values",
            path, dsetname, (unsigned long long)dims[0], (unsigned long long)(nd > 1 ? dims[1] : 0),
            (unsigned long long)N, (int)bs);
  }
  PetscCall(VecGetArrayWrite(state, &a));
  {
    const hsize_t  s[2] = {start, 0}, c[2] = {(hsize_t)(n / bs), (hsize_t)bs};
    const AdjIOBox box = {2, {N, (hsize_t)bs}, {start, 0}, {c[0], c[1]}};
    PetscCall(AdjInputReadData(path, dsetname, AdjH5ReadSelection(dset, ADJ_H5_REAL_MEM, 2, s, c, a)));
    PetscCall(AdjInputCheckFinite(comm, file, path, dsetname, -1, ADJ_INPUT_PARTICLE, &box, a));
  }
  PetscCall(VecRestoreArrayWrite(state, &a));
  AdjCallH5(H5Dclose(dset));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjInputReadParticleTable(MPI_Comm comm, const char path[], const char dataset[], PetscInt ncomp,
                                         PetscInt n, PetscReal values[], PetscBool *found)
{
  hid_t    fapl, file, dset;
  hsize_t  dims[8], N, start;
  PetscInt nd;

  PetscFunctionBeginUser;
  PetscCall(AdjH5FileAccess(comm, &fapl));
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  AdjCallH5(H5Pclose(fapl));
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN, "Cannot read %s: parallel HDF5 could not open it", path);
  PetscCall(AdjH5Exists(file, dataset, found));
  if (!*found) {
    AdjCallH5(H5Fclose(file));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjInputOpenDataset(comm, file, path, dataset, &dset));
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  PetscCall(AdjParticleRows(comm, n, &N, &start));
  if (!(dims[0] == N && ((ncomp == 1 && nd == 1) || (ncomp > 1 && nd == 2 && dims[1] == (hsize_t)ncomp)))) {
    AdjCallH5(H5Dclose(dset));
    AdjCallH5(H5Fclose(file));
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "Cannot read %s: dataset %s is not shaped (%llu%s) like the %llu particles of this run with %d values each",
            path, dataset, (unsigned long long)N, ncomp > 1 ? ", ncomp" : "", (unsigned long long)N, (int)ncomp);
  }
  {
    const hsize_t  s[2] = {start, 0}, c[2] = {(hsize_t)n, (hsize_t)ncomp};
    const AdjIOBox box = {ncomp > 1 ? 2 : 1, {N, (hsize_t)ncomp}, {start, 0}, {c[0], c[1]}};
    PetscCall(
        AdjInputReadData(path, dataset, AdjH5ReadSelection(dset, ADJ_H5_REAL_MEM, ncomp > 1 ? 2 : 1, s, c, values)));
    PetscCall(AdjInputCheckFinite(comm, file, path, dataset, -1, ADJ_INPUT_PARTICLE, &box, values));
  }
  AdjCallH5(H5Dclose(dset));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}
