/* AdjOutput: lifecycle of the run file (create, options, open, close, destroy), provenance and grid.
 *
 * Why raw parallel HDF5 rather than PetscViewerHDF5 + VecView: the layout is ours and documented
 * (docs/output-format.md), not whatever a PETSc version's viewer writes (its timestepping attributes
 * and dimension conventions changed across releases); we need int64 step datasets, extendable optimization
 * history, NaN-filled gaps, atomic renames and error checks that name the file on every rank. A DMDA global
 * vector's local block is already a box of the natural-ordering array, so writing it is one hyperslab per
 * rank with no scatter. */
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** Create a writer with default settings (path adjsim.h5, interval 0, XDMF on). Collective.
 *  @param[in]  comm communicator of all ranks that will write
 *  @param[out] out  the new writer */
PetscErrorCode AdjOutputCreate(MPI_Comm comm, AdjOutput *out)
{
  AdjOutput o;

  PetscFunctionBeginUser;
  PetscCheck(out, comm, PETSC_ERR_ARG_NULL, "AdjOutputCreate: out is NULL");
  PetscCall(PetscNew(&o));
  PetscCall(PetscCommDuplicate(comm, &o->comm, NULL));
  PetscCallMPI(MPI_Comm_rank(o->comm, &o->rank));
  PetscCallMPI(MPI_Comm_size(o->comm, &o->size));
  PetscCall(PetscStrncpy(o->path, "adjsim.h5", sizeof(o->path)));
  o->restart_path[0]  = 0;
  o->interval         = 0;
  o->restart_interval = 0;
  o->design_max       = ADJ_IO_DESIGN_SMALL;
  o->xdmf             = PETSC_TRUE;
  o->da               = NULL;
  o->dim              = 0;
  PetscCall(PetscStrncpy(o->units, "m", sizeof(o->units)));
  o->file         = H5I_INVALID_HID;
  o->isopen       = PETSC_FALSE;
  o->closed       = PETSC_FALSE;
  o->nt           = 0;
  o->nopt         = 0;
  o->ndesign      = -1;
  o->lock_output  = NULL;
  o->lock_restart = NULL;
  *out            = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read -output, -output_interval, -output_xdmf, -output_design_max, -restart_interval, -restart_file.
 *  Collective. The help strings are the manual (run with -help). */
PetscErrorCode AdjOutputSetFromOptions(AdjOutput out)
{
  char      path[PETSC_MAX_PATH_LEN];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(out->comm, NULL, "Run file output (AdjOutput)", "AdjOutput");
  PetscCall(PetscOptionsString("-output",
                               "Run file (HDF5, one per run, written in parallel). Written as <path>.partial and "
                               "renamed to <path> when the run ends normally; an XDMF file <stem>.xmf is put beside it",
                               "AdjOutputSetPath", out->path, path, sizeof(path), &set));
  if (set) PetscCall(AdjOutputSetPath(out, path));
  PetscCall(PetscOptionsInt("-output_interval",
                            "Write the fields every this many time steps (steps); 0: initial and final state only",
                            "AdjOutputIsOutputStep", out->interval, &out->interval, NULL));
  PetscCall(PetscOptionsBool("-output_xdmf", "Write <stem>.xmf (XDMF 3) beside the run file so ParaView can open it",
                             "AdjOutputClose", out->xdmf, &out->xdmf, NULL));
  PetscCall(PetscOptionsInt("-output_design_max",
                            "Largest design vector (entries) stored at every optimization iteration in "
                            "/optimization/design; larger designs keep only the last one, /optimization/design_last",
                            "AdjOutputWriteOptimizationIteration", out->design_max, &out->design_max, NULL));
  PetscCall(PetscOptionsInt("-restart_interval", "Write the restart file every this many time steps (steps); 0: never",
                            "AdjOutputIsRestartStep", out->restart_interval, &out->restart_interval, NULL));
  PetscCall(PetscOptionsString(
      "-restart_file", "Restart file (HDF5, replaced atomically at each write); default <output stem>-restart.h5",
      "AdjOutputWriteRestartFile", out->restart_path, path, sizeof(path), &set));
  if (set) PetscCall(AdjOutputSetRestartPath(out, path));
  PetscOptionsEnd();
  PetscCheck(out->interval >= 0, out->comm, PETSC_ERR_USER_INPUT,
             "-output_interval %" PetscInt_FMT " is invalid: use 0 (initial and final only) or a positive step count",
             out->interval);
  PetscCheck(out->restart_interval >= 0, out->comm, PETSC_ERR_USER_INPUT,
             "-restart_interval %" PetscInt_FMT " is invalid: use 0 (never) or a positive step count",
             out->restart_interval);
  PetscCheck(out->design_max >= 0, out->comm, PETSC_ERR_USER_INPUT,
             "-output_design_max %" PetscInt_FMT " is invalid: use a count >= 0", out->design_max);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set the run file path (overrides -output). Collective, before AdjOutputOpen().
 *  @param[in] path final file name, e.g. results/run.h5 */
/*@ AdjOutputSetXdmf - whether AdjOutputClose writes the XDMF file beside the run file. @*/
PetscErrorCode AdjOutputSetXdmf(AdjOutput out, PetscBool xdmf)
{
  PetscFunctionBeginUser;
  out->xdmf = xdmf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputSetPath(AdjOutput out, const char path[])
{
  size_t len = 0;

  PetscFunctionBeginUser;
  PetscCheck(!out->isopen && !out->closed, out->comm, PETSC_ERR_ORDER,
             "AdjOutputSetPath: the run file %s is already open", out->path);
  if (path) PetscCall(PetscStrlen(path, &len));
  PetscCheck(len > 0 && len + 16 < sizeof(out->path), out->comm, PETSC_ERR_USER_INPUT,
             "-output \"%s\" is invalid: give a file path shorter than %d characters", path ? path : "(null)",
             (int)sizeof(out->path) - 16);
  PetscCall(PetscStrncpy(out->path, path, sizeof(out->path)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The final run file path (what exists after AdjOutputClose()). Not collective. */
PetscErrorCode AdjOutputGetPath(AdjOutput out, const char *path[])
{
  PetscFunctionBeginUser;
  *path = out->path;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set the restart file path (overrides -restart_file). Collective. */
PetscErrorCode AdjOutputSetRestartPath(AdjOutput out, const char path[])
{
  size_t len = 0;

  PetscFunctionBeginUser;
  if (path) PetscCall(PetscStrlen(path, &len));
  PetscCheck(len > 0 && len + 16 < sizeof(out->restart_path), out->comm, PETSC_ERR_USER_INPUT,
             "-restart_file \"%s\" is invalid: give a file path shorter than %d characters", path ? path : "(null)",
             (int)sizeof(out->restart_path) - 16);
  PetscCall(PetscStrncpy(out->restart_path, path, sizeof(out->restart_path)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The restart file path in effect: -restart_file, else "<output stem>-restart.h5". Not collective. */
PetscErrorCode AdjOutputGetRestartPath(AdjOutput out, const char *path[])
{
  PetscFunctionBeginUser;
  if (out->restart_path[0])
    PetscCall(PetscStrncpy(out->restart_eff, out->restart_path, sizeof(out->restart_eff)));
  else {
    char stem[PETSC_MAX_PATH_LEN];

    PetscCall(AdjIOPathStem(out->path, stem, sizeof(stem)));
    PetscCall(PetscSNPrintf(out->restart_eff, sizeof(out->restart_eff), "%s-restart.h5", stem));
  }
  *path = out->restart_eff;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Describe the grid: the DMDA (dof 1, cell-centred, any dimension 1-3) and its domain box.
 *  Collective, before AdjOutputOpen(). The writer keeps a reference to da.
 *  @param[in] da    DMDA of the fields; its global sizes are the number of cells per axis
 *  @param[in] lower lower corner of the domain, x first (NULL: zeros)
 *  @param[in] upper upper corner, x first (NULL: lower + cells, i.e. unit spacing)
 *  @param[in] units length unit of lower/upper (NULL: "m") */
PetscErrorCode AdjOutputSetGrid(AdjOutput out, DM da, const PetscReal lower[], const PetscReal upper[],
                                const char units[])
{
  AdjIOBox box;

  PetscFunctionBeginUser;
  PetscCheck(!out->isopen && !out->closed, out->comm, PETSC_ERR_ORDER,
             "AdjOutputSetGrid: the run file %s is already open", out->path);
  PetscCall(AdjIODAGetBox(da, &box));
  PetscCall(PetscObjectReference((PetscObject)da));
  PetscCall(DMDestroy(&out->da));
  out->da  = da;
  out->dim = box.dim;
  for (PetscInt i = 0; i < box.dim; i++) {
    out->cells[i] = (PetscInt)box.gdims[box.dim - 1 - i];
    out->lower[i] = lower ? lower[i] : 0.0;
    out->upper[i] = upper ? upper[i] : out->lower[i] + (PetscReal)out->cells[i];
    PetscCheck(out->upper[i] > out->lower[i], out->comm, PETSC_ERR_USER_INPUT,
               "AdjOutputSetGrid: domain upper corner %g must exceed lower corner %g on axis %" PetscInt_FMT,
               (double)out->upper[i], (double)out->lower[i], i);
  }
  PetscCall(PetscStrncpy(out->units, units ? units : "m", sizeof(out->units)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The command line as the user typed it (recorded by AdjSetCommandLine before PETSc rewrites argv),
 * else PETSc's copy of the arguments. */
static char *adj_command_line = NULL;

/*@ AdjSetCommandLine - records the command line for /provenance, arguments with spaces single-quoted.
    Call once from main() before PetscInitialize(). Not collective. @*/
PetscErrorCode AdjSetCommandLine(int argc, char **argv)
{
  size_t len = 1, pos = 0;

  free(adj_command_line);
  for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 3;
  adj_command_line = malloc(len);
  if (!adj_command_line) return PETSC_ERR_MEM;
  for (int i = 0; i < argc; i++) {
    const int quote = strchr(argv[i], ' ') != NULL;
    pos += (size_t)snprintf(adj_command_line + pos, len - pos, quote ? "%s'%s'" : "%s%s", i ? " " : "", argv[i]);
  }
  return PETSC_SUCCESS;
}

static PetscErrorCode AdjOutputCommandLine(char **line)
{
  int    argc = 0;
  char **argv = NULL;

  PetscFunctionBeginUser;
  if (!adj_command_line) {
    PetscCall(PetscGetArgs(&argc, &argv));
    PetscCall(AdjSetCommandLine(argc, argv));
  }
  PetscCall(PetscStrallocpy(adj_command_line, line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write /provenance. full: the run file (start_time, command line, options); otherwise the short form of a
 *  restart file (write_time instead). Strings come from rank 0 so every rank writes identical metadata.
 *  Collective. */
PetscErrorCode AdjOutputWriteProvenance(AdjOutput out, hid_t file, PetscBool full)
{
  hid_t         grp;
  char          petsc[256], hdf5[64], mpi[MPI_MAX_LIBRARY_VERSION_STRING], when[64], host[256];
  char         *cmd = NULL, *opts = NULL, *nl;
  unsigned      maj, min, rel;
  int           mpilen;
  const int64_t nranks = out->size;

  PetscFunctionBeginUser;
  PetscCall(PetscGetVersion(petsc, sizeof(petsc)));
  AdjCallH5(H5get_libversion(&maj, &min, &rel));
  PetscCall(PetscSNPrintf(hdf5, sizeof(hdf5), "%u.%u.%u", maj, min, rel));
  PetscCallMPI(MPI_Get_library_version(mpi, &mpilen));
  if ((nl = strchr(mpi, '\n'))) *nl = 0;
  if (!out->rank) {
    PetscCall(AdjIOUTCTime(when, sizeof(when)));
    PetscCall(PetscGetHostName(host, sizeof(host)));
    PetscCall(AdjOutputCommandLine(&cmd));
    if (full) PetscCall(PetscOptionsGetAll(NULL, &opts));
  }
  PetscCallMPI(MPI_Bcast(mpi, sizeof(mpi), MPI_CHAR, 0, out->comm));
  PetscCallMPI(MPI_Bcast(when, sizeof(when), MPI_CHAR, 0, out->comm));
  PetscCallMPI(MPI_Bcast(host, sizeof(host), MPI_CHAR, 0, out->comm));
  PetscCall(AdjIOBcastString(out->comm, &cmd));

  PetscCall(AdjH5GroupOpen(file, "/provenance", PETSC_TRUE, &grp));
  PetscCall(AdjH5WriteAttrString(grp, "adjsim_version", ADJSIM_VERSION));
  PetscCall(AdjH5WriteAttrString(grp, "git_commit", ADJSIM_GIT_COMMIT));
  PetscCall(AdjH5WriteAttrString(grp, "petsc_version", petsc));
  PetscCall(AdjH5WriteAttrString(grp, "hdf5_version", hdf5));
  PetscCall(AdjH5WriteAttrString(grp, "mpi_version", mpi));
  PetscCall(AdjH5WriteAttrInt64(grp, "nranks", 0, &nranks));
  PetscCall(AdjH5WriteAttrString(grp, full ? "start_time" : "write_time", when));
  PetscCall(AdjH5WriteAttrString(grp, "hostname", host));
  PetscCall(AdjH5WriteAttrString(grp, "command_line", cmd));
  if (full) {
    /* A dataset, not an attribute: the options text may exceed the 64 KiB attribute limit. */
    PetscCall(AdjIOBcastString(out->comm, &opts));
    PetscCall(AdjH5WriteStringDataset(grp, "options", opts, (PetscBool)!out->rank));
    PetscCall(PetscFree(opts));
  }
  AdjCallH5(H5Gclose(grp));
  PetscCall(PetscFree(cmd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write /grid (dim, cells, lower, upper, spacing: x first; units; centering). Collective. */
PetscErrorCode AdjOutputWriteGridGroup(AdjOutput out, hid_t file)
{
  hid_t     grp;
  int64_t   dim = out->dim, cells[ADJ_IO_MAX_DIM];
  PetscReal spacing[ADJ_IO_MAX_DIM];
  char      axes[8] = "";

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < out->dim; i++) {
    cells[i]   = out->cells[i];
    spacing[i] = (out->upper[i] - out->lower[i]) / (PetscReal)out->cells[i];
    PetscCall(PetscStrlcat(axes, i ? " " : "", sizeof(axes)));
    PetscCall(PetscStrlcat(axes, i == 0 ? "x" : (i == 1 ? "y" : "z"), sizeof(axes)));
  }
  PetscCall(AdjH5GroupOpen(file, "/grid", PETSC_TRUE, &grp));
  PetscCall(AdjH5WriteAttrInt64(grp, "dim", 0, &dim));
  PetscCall(AdjH5WriteAttrInt64(grp, "cells", out->dim, cells));
  PetscCall(AdjH5WriteAttrReal(grp, "lower", out->dim, out->lower));
  PetscCall(AdjH5WriteAttrReal(grp, "upper", out->dim, out->upper));
  PetscCall(AdjH5WriteAttrReal(grp, "spacing", out->dim, spacing));
  PetscCall(AdjH5WriteAttrString(grp, "units", out->units));
  PetscCall(AdjH5WriteAttrString(grp, "axis_order", axes));
  PetscCall(AdjH5WriteAttrString(grp, "centering", "cell"));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Error unless the run file is open for writing. Collective (raises on every rank). */
PetscErrorCode AdjOutputCheckOpen(AdjOutput out, const char caller[])
{
  PetscFunctionBeginUser;
  PetscCheck(out->isopen, out->comm, PETSC_ERR_ORDER, "%s: the run file %s is %s", caller, out->path,
             out->closed ? "already closed" : "not open (call AdjOutputOpen first)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The groups and empty extendable datasets of the layout, so readers can rely on them even for a run that
 * wrote no output step or no optimization iteration. */
static PetscErrorCode AdjOutputCreateSkeleton(AdjOutput out)
{
  const char *groups[] = {"/fields", "/gradients", "/parameters", "/optimization"};
  const char *names[]  = {"/fields/step", "/fields/time", "/optimization/iteration", "/optimization/objective",
                          "/optimization/gradient_norm"};
  const char *units[]  = {"1", "s", "1", "1", "1"};
  const hid_t types[]  = {ADJ_H5_INT_FILE, ADJ_H5_REAL_FILE, ADJ_H5_INT_FILE, ADJ_H5_REAL_FILE, ADJ_H5_REAL_FILE};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
    hid_t grp;

    PetscCall(AdjH5GroupOpen(out->file, groups[i], PETSC_TRUE, &grp));
    AdjCallH5(H5Gclose(grp));
  }
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    hid_t dset;

    PetscCall(AdjH5AppendOpen(out->file, names[i], types[i], 0, &dset));
    PetscCall(AdjH5WriteAttrString(dset, "units", units[i]));
    AdjCallH5(H5Dclose(dset));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The files this run writes, for AdjIOCheckFileUses(): the run file, its .partial and XDMF names (option
 *  -output), the restart file and its .partial (-restart_file; the restart file may be the one the run
 *  resumes from, -restart, since it is replaced atomically only after that was read). Not collective.
 *  @param[out] n    number of entries (at most ADJ_OUTPUT_FILE_USES)
 *  @param[out] uses the entries; their paths live in out */
PetscErrorCode AdjOutputGetFileUses(AdjOutput out, PetscInt *n, AdjIOFileUse uses[])
{
  const char *restart;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(out->partial, sizeof(out->partial), "%s.partial", out->path));
  PetscCall(AdjOutputGetXdmfPath(out, out->xmf_path, sizeof(out->xmf_path)));
  PetscCall(AdjOutputGetParticleXdmfPath(out, out->pxmf_path, sizeof(out->pxmf_path)));
  PetscCall(AdjOutputGetRestartPath(out, &restart));
  PetscCall(PetscSNPrintf(out->restart_partial, sizeof(out->restart_partial), "%s.partial", restart));
  uses[0] = (AdjIOFileUse){out->path, "-output", NULL};
  uses[1] = (AdjIOFileUse){out->partial, "-output", NULL};
  uses[2] = (AdjIOFileUse){out->xmf_path, "-output", NULL};
  uses[3] = (AdjIOFileUse){out->pxmf_path, "-output", NULL};
  uses[4] = (AdjIOFileUse){restart, "-restart_file", "-restart"};
  uses[5] = (AdjIOFileUse){out->restart_partial, "-restart_file", NULL};
  *n      = 6;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Lock the run file and the restart file for this run (once), so that no second live run writes them. */
PetscErrorCode AdjOutputLockFiles(AdjOutput out)
{
  const char *restart;

  PetscFunctionBeginUser;
  if (!out->lock_output) PetscCall(AdjIOFileLockAcquire(out->comm, out->path, "-output", &out->lock_output));
  PetscCall(AdjOutputGetRestartPath(out, &restart));
  if (!out->lock_restart) PetscCall(AdjIOFileLockAcquire(out->comm, restart, "-restart_file", &out->lock_restart));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Create <path>.partial collectively and write the root attributes, /provenance (start_time) and /grid, plus
 *  the empty groups and extendable datasets of the layout. An earlier run's <path> and <stem>.xmf are left
 *  alone: AdjOutputClose() replaces them only when this run is complete, so a run that fails or is killed
 *  (even with SIGKILL) never damages earlier output. Collective.
 *  Fails on every rank (PETSC_ERR_FILE_OPEN, naming the path and -output) if the directory is missing or
 *  not writable. */
PetscErrorCode AdjOutputOpen(AdjOutput out)
{
  hid_t         fapl, grp;
  const int64_t version = ADJ_OUTPUT_FORMAT_VERSION;

  PetscFunctionBeginUser;
  PetscCheck(!out->isopen && !out->closed, out->comm, PETSC_ERR_ORDER, "AdjOutputOpen: %s was already opened",
             out->path);
  PetscCheck(out->da, out->comm, PETSC_ERR_ORDER, "AdjOutputOpen: call AdjOutputSetGrid() before opening %s",
             out->path);
  PetscCall(AdjIOCheckWritableTarget(out->comm, out->path, "-output"));
  PetscCall(AdjOutputLockFiles(out));
  PetscCall(PetscSNPrintf(out->partial, sizeof(out->partial), "%s.partial", out->path));
  PetscCall(AdjH5FileAccess(out->comm, &fapl));
  out->file = H5Fcreate(out->partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  AdjCallH5(H5Pclose(fapl));
  PetscCheck(out->file >= 0, out->comm, PETSC_ERR_FILE_OPEN,
             "Cannot create run file %s (option -output): HDF5 refused to create it", out->partial);
  out->isopen = PETSC_TRUE;

  grp = H5Gopen2(out->file, "/", H5P_DEFAULT);
  AdjCallH5(grp);
  PetscCall(AdjH5WriteAttrString(grp, "format", ADJ_IO_FORMAT_NAME));
  PetscCall(AdjH5WriteAttrInt64(grp, "format_version", 0, &version));
  PetscCall(AdjH5WriteAttrString(grp, "content", "run"));
  AdjCallH5(H5Gclose(grp));
  PetscCall(AdjOutputWriteProvenance(out, out->file, PETSC_TRUE));
  PetscCall(AdjOutputWriteGridGroup(out, out->file));

  PetscCall(AdjOutputCreateSkeleton(out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** <stem>.xmf for the current path. Not collective. */
PetscErrorCode AdjOutputGetXdmfPath(AdjOutput out, char xmf[], size_t len)
{
  char stem[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(AdjIOPathStem(out->path, stem, sizeof(stem)));
  PetscCall(PetscSNPrintf(xmf, len, "%s.xmf", stem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** A file beside the run file named after it: <stem><suffix>, e.g. suffix "-checkpoints.h5". Not collective. */
PetscErrorCode AdjOutputGetCompanionPath(AdjOutput out, const char suffix[], char path[], size_t len)
{
  char stem[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(AdjIOPathStem(out->path, stem, sizeof(stem)));
  PetscCall(PetscSNPrintf(path, len, "%s%s", stem, suffix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** <stem>-particles.xmf for the current path. Not collective. */
PetscErrorCode AdjOutputGetParticleXdmfPath(AdjOutput out, char xmf[], size_t len)
{
  char stem[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(AdjIOPathStem(out->path, stem, sizeof(stem)));
  PetscCall(PetscSNPrintf(xmf, len, "%s-particles.xmf", stem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 only: remove an earlier run's XDMF files, which must never describe the new <path>. */
static PetscErrorCode AdjOutputRemoveOldXdmf(AdjOutput out)
{
  char xmf[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetXdmfPath(out, xmf, sizeof(xmf)));
  (void)unlink(xmf); /* absent is fine */
  PetscCall(AdjOutputGetParticleXdmfPath(out, xmf, sizeof(xmf)));
  (void)unlink(xmf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 only: write the XDMF file under a temporary name and rename it, so a reader never sees half of it. */
static PetscErrorCode AdjOutputCommitXdmf(AdjOutput out)
{
  char        xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 16];
  const char *base = strrchr(out->path, '/');

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetXdmfPath(out, xmf, sizeof(xmf)));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.partial", xmf));
  /* The .xmf sits beside the .h5, so it names the data file without a directory and the pair can be moved. */
  PetscCall(AdjOutputWriteXdmf(out, tmp, base ? base + 1 : out->path));
  PetscCheck(!rename(tmp, xmf), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, xmf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Finish the run file: write /provenance end_time, close it, rename <path>.partial to <path>, then (rank 0)
 *  write <stem>.xmf. Collective. After this only AdjOutputWriteRestartFile() and AdjOutputDestroy() may be
 *  called. */
PetscErrorCode AdjOutputClose(AdjOutput out)
{
  hid_t          grp;
  char           when[64];
  PetscErrorCode xerr = PETSC_SUCCESS;
  int            xcode;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputClose"));
  if (!out->rank) PetscCall(AdjIOUTCTime(when, sizeof(when)));
  PetscCallMPI(MPI_Bcast(when, sizeof(when), MPI_CHAR, 0, out->comm));
  PetscCall(AdjH5GroupOpen(out->file, "/provenance", PETSC_FALSE, &grp));
  PetscCall(AdjH5WriteAttrString(grp, "end_time", when));
  AdjCallH5(H5Gclose(grp));
  AdjCallH5(H5Fclose(out->file));
  out->file   = H5I_INVALID_HID;
  out->isopen = PETSC_FALSE;
  out->closed = PETSC_TRUE;
  if (!out->rank) PetscCall(AdjOutputRemoveOldXdmf(out));
  PetscCall(AdjIOCommitFile(out->comm, out->partial, out->path));
  /* Only rank 0 writes the XDMF; its error code is shared so no rank waits for a rank that gave up. */
  if (out->xdmf && !out->rank) xerr = AdjOutputCommitXdmf(out);
  if (out->pxdmf.on && !out->rank && !xerr) xerr = AdjOutputCommitParticleXdmf(out);
  xcode = (int)xerr;
  PetscCallMPI(MPI_Bcast(&xcode, 1, MPI_INT, 0, out->comm));
  PetscCheck(!xcode, out->comm, PETSC_ERR_FILE_WRITE, "Writing the XDMF file for %s failed on rank 0", out->path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Free the writer. If the run file is still open (the run failed or stopped early) it is closed but left as
 *  <path>.partial, so an aborted run never looks complete. Collective. */
PetscErrorCode AdjOutputDestroy(AdjOutput *out)
{
  AdjOutput o;

  PetscFunctionBeginUser;
  if (!out || !*out) PetscFunctionReturn(PETSC_SUCCESS);
  o = *out;
  if (o->isopen) {
    /* Called during error unwinding too: report a failed close but carry on freeing. */
    if (H5Fclose(o->file) < 0) PetscCall(PetscInfo(NULL, "Closing %s failed\n", o->partial));
    o->isopen = PETSC_FALSE;
  }
  for (PetscInt i = 0; i < o->nentries; i++) PetscCall(PetscFree(o->entries[i].written));
  PetscCall(PetscFree(o->entries));
  PetscCall(PetscFree(o->steps));
  PetscCall(PetscFree(o->times));
  PetscCall(DMDestroy(&o->da));
  PetscCall(AdjIOFileLockRelease(&o->lock_restart));
  PetscCall(AdjIOFileLockRelease(&o->lock_output));
  PetscCall(PetscCommDestroy(&o->comm));
  PetscCall(PetscFree(o));
  *out = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Whether step is an output step: the initial step 0, every -output_interval steps, and the final step
 *  nsteps. Not collective (same answer everywhere). */
PetscErrorCode AdjOutputIsOutputStep(AdjOutput out, AdjStepIndex step, AdjStepIndex nsteps, PetscBool *yes)
{
  PetscFunctionBeginUser;
  *yes = (PetscBool)(step == 0 || step == nsteps || (out->interval > 0 && step % out->interval == 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Whether the restart file is due at step: every -restart_interval steps (never at step 0, never when the
 *  interval is 0). Not collective. */
PetscErrorCode AdjOutputIsRestartStep(AdjOutput out, AdjStepIndex step, PetscBool *yes)
{
  PetscFunctionBeginUser;
  *yes = (PetscBool)(out->restart_interval > 0 && step > 0 && step % out->restart_interval == 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Argument checks shared by the attribute setters, then the group, created if missing. */
static PetscErrorCode AdjOutputAttributeGroup(AdjOutput out, const char group[], const char name[], hid_t *grp)
{
  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputSetAttribute"));
  PetscCheck(group && group[0] == '/', out->comm, PETSC_ERR_USER_INPUT,
             "AdjOutputSetAttribute: group \"%s\" must be an absolute path such as /optimization",
             group ? group : "(null)");
  PetscCall(AdjIOCheckName(out->comm, "attribute", name));
  PetscCall(AdjH5GroupOpen(out->file, group, PETSC_TRUE, grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set a string attribute on a group of the run file (created if missing), e.g. ("/optimization",
 *  "objective_description", "..."). Collective; rank 0's value is written.
 *  @param[in] group absolute group path, "/" for the root */
PetscErrorCode AdjOutputSetAttribute(AdjOutput out, const char group[], const char name[], const char value[])
{
  hid_t grp;
  char *v = NULL;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputAttributeGroup(out, group, name, &grp));
  if (!out->rank) PetscCall(PetscStrallocpy(value ? value : "", &v));
  PetscCall(AdjIOBcastString(out->comm, &v));
  PetscCall(AdjH5WriteAttrString(grp, name, v));
  PetscCall(PetscFree(v));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0's n values v (reals, or int64 when real is false; n = 0: one value written as a scalar) into the
 * attribute name of group (created if missing); v is overwritten by rank 0's values. Collective. */
static PetscErrorCode AdjOutputWriteAttributeValues(AdjOutput out, const char group[], const char name[], PetscInt n,
                                                    PetscBool real, void *v)
{
  hid_t grp;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputAttributeGroup(out, group, name, &grp));
  PetscCallMPI(MPI_Bcast(v, (PetscMPIInt)PetscMax(n, 1), real ? MPIU_REAL : MPI_INT64_T, 0, out->comm));
  if (real)
    PetscCall(AdjH5WriteAttrReal(grp, name, n, (PetscReal *)v));
  else
    PetscCall(AdjH5WriteAttrInt64(grp, name, n, (int64_t *)v));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set a real attribute on a group of the run file (created if missing). Collective; rank 0's value. */
PetscErrorCode AdjOutputSetAttributeReal(AdjOutput out, const char group[], const char name[], PetscReal value)
{
  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteAttributeValues(out, group, name, 0, PETSC_TRUE, &value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set an int64 array attribute (n values, rank 0's) on a group of the run file (created if missing),
 *  e.g. the offsets of the design blocks in /optimization/design. Collective. */
PetscErrorCode AdjOutputSetAttributeInts(AdjOutput out, const char group[], const char name[], PetscInt n,
                                         const PetscInt values[])
{
  int64_t *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &v));
  for (PetscInt i = 0; i < n; i++) v[i] = (int64_t)values[i];
  PetscCall(AdjOutputWriteAttributeValues(out, group, name, n, PETSC_FALSE, v));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Set a real array attribute (n values, rank 0's) on a group of the run file (created if missing). Collective. */
PetscErrorCode AdjOutputSetAttributeReals(AdjOutput out, const char group[], const char name[], PetscInt n,
                                          const PetscReal values[])
{
  PetscReal *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &v));
  PetscCall(PetscArraycpy(v, values, n));
  PetscCall(AdjOutputWriteAttributeValues(out, group, name, n, PETSC_TRUE, v));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
