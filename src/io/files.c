/* The files a run writes: refused before any work when they would destroy a file the run reads or another
 * file it writes, and locked while the run writes them so that a second live run cannot write them too.
 *
 * Why these checks exist: a run file is written as <path>.partial and renamed over <path> at the end, and
 * the checkpoint scratch file is truncated at set-up and deleted at the end. Without the checks, -output
 * naming the observation file replaced the observations, -checkpoint_disk_file naming any existing file
 * truncated and deleted it, two runs writing one -output at once left the one that reported success holding
 * the other's data, and two gradient runs sharing a checkpoint file got wrong gradients with exit 0.
 *
 * Locks are POSIX record locks (fcntl F_SETLK) on "<path>.lock": the kernel drops them when the process
 * dies, even by SIGKILL, so a crashed run never blocks the next one (its stale .lock file is reused). On a
 * file system without record locks the run goes on with a warning: the guard is then unavailable, not
 * wrong. Only rank 0 touches the file system; every rank learns the verdict, so no rank waits for another. */
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ADJ_FILE_MSG_MAX (3 * PETSC_MAX_PATH_LEN + 512)

struct _p_AdjIOFileLock {
  MPI_Comm comm;
  int      fd; /* rank 0: the locked file descriptor, -1 elsewhere or when the file system has no locks */
  char     path[PETSC_MAX_PATH_LEN + 8];
};

/* Rank 0: who holds a lock, as its holder wrote it ("pid P on host H since T"), or a placeholder. */
static void AdjIOLockHolder(int fd, char holder[], size_t len)
{
  ssize_t n = pread(fd, holder, len - 1, 0);

  if (n <= 0) {
    snprintf(holder, len, "another process");
    return;
  }
  holder[n]                     = 0;
  holder[strcspn(holder, "\n")] = 0;
}

/* Rank 0: note who holds the lock, for the message another run would print. */
static void AdjIOLockSign(int fd)
{
  char   host[256] = "unknown", sign[512], when[64] = "";
  time_t now = time(NULL);

  (void)gethostname(host, sizeof(host) - 1);
  host[sizeof(host) - 1] = 0;
  (void)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  snprintf(sign, sizeof(sign), "pid %ld on host %s since %s\n", (long)getpid(), host, when);
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, sign, strlen(sign), 0);
}

/* Rank 0: whether another process holds the lock of path (without taking it); its holder in holder. */
static PetscBool AdjIOLockHeld(const char path[], char holder[], size_t len)
{
  char         lockpath[PETSC_MAX_PATH_LEN + 8];
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  int          fd;
  PetscBool    held;

  snprintf(lockpath, sizeof(lockpath), "%s.lock", path);
  fd = open(lockpath, O_RDONLY);
  if (fd < 0) return PETSC_FALSE;
  held = (PetscBool)(!fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK);
  if (held) AdjIOLockHolder(fd, holder, len);
  close(fd);
  return held;
}

/* Rank 0: whether "<path>.lock" exists and no process holds it (its holder died: see AdjIOCheckScratchFile). */
static PetscBool AdjIOLockStale(const char path[])
{
  char        lockpath[PETSC_MAX_PATH_LEN + 8], holder[8];
  struct stat st;

  snprintf(lockpath, sizeof(lockpath), "%s.lock", path);
  return (PetscBool)(!stat(lockpath, &st) && !AdjIOLockHeld(path, holder, sizeof(holder)));
}

/* Rank 0: try to lock lockpath. Returns the locked descriptor (>= 0); -1 with msg set when another run holds
 * it; -1 with msg empty when the file system has no record locks (*nolocks, warned) or the lock file cannot
 * be created (the directory is missing or read-only: creating the file itself then fails with a message). */
static int AdjIOLockTry(const char lockpath[], char msg[], size_t len, PetscBool *nolocks)
{
  *nolocks = PETSC_TRUE;
  for (int attempt = 0; attempt < 8; attempt++) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    struct stat  held, named;
    int          fd = open(lockpath, O_RDWR | O_CREAT, 0644);

    if (fd < 0) { /* a missing or read-only directory: the file's own creation will say so, naming it */
      *nolocks = PETSC_FALSE;
      return -1;
    }
    if (fcntl(fd, F_SETLK, &fl)) {
      int  e           = errno;
      char holder[256] = "";

      if (e == EACCES || e == EAGAIN) {
        AdjIOLockHolder(fd, holder, sizeof(holder));
        snprintf(msg, len, "another adjsim run is writing it right now (%s; lock %s)", holder, lockpath);
      } else /* ENOLCK, EOPNOTSUPP, ...: no record locks here */
        msg[0] = 0;
      close(fd);
      return -1;
    }
    /* The holder before us may have removed the name between our open and our lock: then we locked an
     * orphan and must try again on the file the name now gives. */
    if (!fstat(fd, &held) && !stat(lockpath, &named) && held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      AdjIOLockSign(fd);
      return fd;
    }
    close(fd);
  }
  snprintf(msg, len, "its lock file %s keeps being replaced by another process", lockpath);
  return -1;
}

/** Lock a file this run is going to write, refusing it when another live run holds it: rank 0 takes a
 *  POSIX record lock on "<path>.lock" and every rank learns the verdict. Collective.
 *  @param[in]  comm   ranks of the run
 *  @param[in]  path   the file to be written
 *  @param[in]  option the option that names it, for messages (e.g. "-output")
 *  @param[out] lock   held until AdjIOFileLockRelease() */
PetscErrorCode AdjIOFileLockAcquire(MPI_Comm comm, const char path[], const char option[], AdjIOFileLock *lock)
{
  AdjIOFileLock l;
  PetscMPIInt   rank;
  char          msg[ADJ_FILE_MSG_MAX] = "";
  PetscBool     nolocks               = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&l));
  l->comm = comm;
  l->fd   = -1;
  PetscCall(PetscSNPrintf(l->path, sizeof(l->path), "%s.lock", path));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    l->fd   = AdjIOLockTry(l->path, msg, sizeof(msg), &nolocks);
    nolocks = (PetscBool)(nolocks && l->fd < 0 && !msg[0]);
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  if (msg[0]) PetscCall(PetscFree(l));
  PetscCheck(!msg[0], comm, PETSC_ERR_FILE_OPEN,
             "%s %s cannot be written: %s. Two runs writing one file would mix their data: choose another %s, or "
             "wait for that run to end",
             option, path, msg, option);
  if (nolocks)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "adjsim: warning: the file system of %s has no file locks; a second run writing %s (%s) at "
                          "the same time would not be detected\n",
                          path, path, option));
  *lock = l;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Release a lock taken by AdjIOFileLockAcquire(): the lock file is removed while still locked, so a run
 *  waiting for the name never locks an orphan (see AdjIOLockTry). Collective; NULL is fine. */
PetscErrorCode AdjIOFileLockRelease(AdjIOFileLock *lock)
{
  PetscFunctionBeginUser;
  if (!lock || !*lock) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*lock)->fd >= 0) {
    (void)unlink((*lock)->path);
    close((*lock)->fd);
  }
  PetscCall(PetscFree(*lock));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The absolute form of path without following a final component that does not exist yet: the directory is
 * resolved (symbolic links, "..") and the file name appended, so two spellings of one target compare equal. */
static void AdjIONormalPath(const char path[], char out[], size_t len)
{
  char        dir[PATH_MAX], name[PETSC_MAX_PATH_LEN], resolved[PATH_MAX];
  const char *slash = strrchr(path, '/');

  if (realpath(path, resolved)) {
    snprintf(out, len, "%s", resolved);
    return;
  }
  if (!slash) {
    snprintf(dir, sizeof(dir), ".");
    snprintf(name, sizeof(name), "%s", path);
  } else {
    snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    snprintf(name, sizeof(name), "%s", slash + 1);
  }
  if (realpath(dir, resolved))
    snprintf(out, len, "%s/%s", resolved, name);
  else
    snprintf(out, len, "%s", path);
}

/* Whether a and b are one existing file (same device and inode), or name one path. */
static PetscBool AdjIOSameFile(const char a[], const char b[])
{
  struct stat sa, sb;
  char        na[PATH_MAX + PETSC_MAX_PATH_LEN], nb[PATH_MAX + PETSC_MAX_PATH_LEN];

  if (!stat(a, &sa) && !stat(b, &sb)) return (PetscBool)(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
  AdjIONormalPath(a, na, sizeof(na));
  AdjIONormalPath(b, nb, sizeof(nb));
  return (PetscBool)!strcmp(na, nb);
}

/* Rank 0: the first target that equals another target, as a message (empty when none). */
static void AdjIOTargetClash(PetscInt nt, const AdjIOFileUse targets[], char msg[], size_t len)
{
  for (PetscInt i = 0; i < nt; i++)
    for (PetscInt j = i + 1; j < nt; j++)
      if (strcmp(targets[i].option, targets[j].option) && AdjIOSameFile(targets[i].path, targets[j].path)) {
        snprintf(msg, len, "%s %s and %s %s name the same file: one would overwrite the other", targets[i].option,
                 targets[i].path, targets[j].option, targets[j].path);
        return;
      }
}

/* Rank 0: the first target that is an input file, as a message (empty when none). */
static void AdjIOInputClash(PetscInt nt, const AdjIOFileUse targets[], PetscInt nin, const AdjIOFileUse inputs[],
                            char msg[], size_t len)
{
  for (PetscInt i = 0; i < nt; i++)
    for (PetscInt k = 0; k < nin; k++) {
      /* the option's own value is the target itself, e.g. -output naming an earlier run's file */
      if (!strcmp(targets[i].option, inputs[k].option)) continue;
      if (targets[i].may_be && !strcmp(targets[i].may_be, inputs[k].option)) continue;
      if (AdjIOSameFile(targets[i].path, inputs[k].path)) {
        snprintf(msg, len, "%s %s is the input file of %s: this run would replace it", targets[i].option,
                 targets[i].path, inputs[k].option);
        return;
      }
    }
}

/* Rank 0: every option value of the options database that names an existing regular file, with its option,
 * so that no solver has to declare what it reads (observation, initial, body, restart files...). PETSc keeps
 * options as "-name value" pairs; a value is a token that does not start with '-'. A path containing a space
 * is not seen here (it still works as an input). Returns the count; *inputs and *store are malloc'ed. */
static PetscErrorCode AdjIOOptionFiles(PetscInt *n, AdjIOFileUse **inputs, char **store)
{
  char       *all, *tok, *save = NULL, *option = NULL;
  PetscInt    cap = 16;
  struct stat st;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  *store = all;
  *n     = 0;
  PetscCall(PetscMalloc1(cap, inputs));
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (tok[0] == '-') {
      option = tok;
      continue;
    }
    if (!option || stat(tok, &st) || !S_ISREG(st.st_mode)) continue;
    if (*n == cap) {
      cap *= 2;
      PetscCall(PetscRealloc(sizeof(AdjIOFileUse) * (size_t)cap, inputs));
    }
    (*inputs)[*n].path   = tok;
    (*inputs)[*n].option = option;
    (*inputs)[*n].may_be = NULL;
    (*n)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Refuse, before any work, a run whose output files would destroy its inputs or each other: no target may
 *  be another target (under another option) or a file that an option of the options database names, or one
 *  of the extra inputs (e.g. the options files, which are not in the database). A target may equal the
 *  input of the option it names in may_be (the restart file a run resumes from, replaced atomically).
 *  Collective; the targets and inputs are read on rank 0.
 *  @param[in] nt      number of targets (files this run creates, replaces or deletes)
 *  @param[in] targets path, option naming it, and the input option it may equal (or NULL)
 *  @param[in] nin     number of extra inputs
 *  @param[in] inputs  extra input files (path, option) */
PetscErrorCode AdjIOCheckFileUses(MPI_Comm comm, PetscInt nt, const AdjIOFileUse targets[], PetscInt nin,
                                  const AdjIOFileUse inputs[])
{
  PetscMPIInt rank;
  char        msg[ADJ_FILE_MSG_MAX] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    AdjIOFileUse *found;
    char         *store;
    PetscInt      nfound = 0;

    AdjIOTargetClash(nt, targets, msg, sizeof(msg));
    if (!msg[0]) AdjIOInputClash(nt, targets, nin, inputs, msg, sizeof(msg));
    PetscCall(AdjIOOptionFiles(&nfound, &found, &store));
    if (!msg[0]) AdjIOInputClash(nt, targets, nfound, found, msg, sizeof(msg));
    PetscCall(PetscFree(found));
    PetscCall(PetscFree(store));
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s; choose another file name (nothing was written)", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: whether an existing file is a scratch file of this kind that adjsim made (root attributes
 * format = ADJ_IO_SCRATCH_FORMAT and content = content), so that reusing and later deleting it destroys nothing else.
 */
static PetscErrorCode AdjIOIsScratchFile(const char path[], const char content[], PetscBool *ours)
{
  H5E_auto2_t func;
  void       *data;
  hid_t       fapl, file = -1, root = -1;
  char        format[64] = "", kind[64] = "";
  PetscBool   found;

  PetscFunctionBeginUser;
  *ours = PETSC_FALSE;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* "not HDF5" is an answer here, not an error */
  fapl = H5Pcreate(H5P_FILE_ACCESS);
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  H5Pset_file_locking(fapl, 0, 1);
#endif
  if (H5Fis_hdf5(path) > 0) file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (file >= 0) root = H5Gopen2(file, "/", H5P_DEFAULT);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  if (root >= 0) {
    PetscCall(AdjH5ReadAttrString(root, "format", sizeof(format), format, &found));
    PetscCall(AdjH5ReadAttrString(root, "content", sizeof(kind), kind, &found));
    *ours = (PetscBool)(!strcmp(format, ADJ_IO_SCRATCH_FORMAT) && !strcmp(kind, content));
    H5Gclose(root);
  }
  if (file >= 0) H5Fclose(file);
  H5Pclose(fapl);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Refuse a scratch file path (a file adjsim creates, truncates and deletes, such as the checkpoint file)
 *  that names an existing file other than an earlier scratch file of the same kind (left by a killed run),
 *  so that adjsim never truncates or deletes a file it did not create. Collective.
 *  @param[in] content the root attribute "content" the scratch file carries, e.g. "checkpoints" */
PetscErrorCode AdjIOCheckScratchFile(MPI_Comm comm, const char path[], const char option[], const char content[])
{
  PetscMPIInt rank;
  char        msg[ADJ_FILE_MSG_MAX] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    struct stat st;
    PetscBool   ours = PETSC_FALSE;

    char holder[256];

    if (AdjIOLockHeld(path, holder, sizeof(holder)))
      snprintf(msg, sizeof(msg),
               "%s %s cannot be used: another adjsim run is writing it right now (%s); two runs sharing it would "
               "get wrong results: choose another %s, or wait for that run to end",
               option, path, holder, option);
    else if (!stat(path, &st)) {
      if (S_ISREG(st.st_mode)) PetscCall(AdjIOIsScratchFile(path, content, &ours));
      /* A lock file that exists but is not held belongs to a run that died holding it (a finished run removes
       * its lock): that run created the file after locking it (a file it did not create is refused above), and
       * a SIGKILL in the middle of its HDF5 writes may have left it without its marks or unreadable. */
      if (!ours && S_ISREG(st.st_mode) && AdjIOLockStale(path)) ours = PETSC_TRUE;
      if (!ours)
        snprintf(msg, sizeof(msg),
                 "%s %s names an existing file that is not an adjsim %s file: adjsim creates this scratch file, "
                 "overwrites it and deletes it at the end, so it never uses a file it did not create; choose a new "
                 "name",
                 option, path, content);
    }
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}
