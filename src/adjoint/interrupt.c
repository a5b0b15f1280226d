/* Signal-driven graceful stop (see include/adjsim/interrupt.h). */
#define _POSIX_C_SOURCE 200809L /* sigaction under -std=c17 */
#include <adjsim/interrupt.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t adj_signal_received = 0;

static void AdjSignalHandler(int sig)
{
  adj_signal_received = sig;
}

/*@ AdjInterruptInstall - catches SIGUSR1 and SIGTERM on this process. Not collective. @*/
PetscErrorCode AdjInterruptInstall(void)
{
  struct sigaction sa;

  PetscFunctionBeginUser;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = AdjSignalHandler;
  sigemptyset(&sa.sa_mask);
  PetscCheck(sigaction(SIGUSR1, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS,
             "Cannot install the SIGUSR1/SIGTERM handlers");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjInterruptRequested - PETSC_TRUE on every rank once any rank has received a signal. Collective. @*/
PetscErrorCode AdjInterruptRequested(MPI_Comm comm, PetscBool *requested)
{
  int local = adj_signal_received != 0, any;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm));
  *requested = (PetscBool)(any != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjInterruptRaise - sets the flag as if this process had received SIGUSR1: the deterministic
    interruption points of the tests (-optimize_test_interrupt_*) use it. Not collective. @*/
PetscErrorCode AdjInterruptRaise(void)
{
  PetscFunctionBeginUser;
  adj_signal_received = SIGUSR1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
