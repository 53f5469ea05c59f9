// The MPI backend of `tfhost bench allreduce`: OpenMPI's MPI_Allreduce over
// MPI_COMM_WORLD, for jobs started by mpirun/srun with PMI (ranks and peers
// come from the MPI runtime, not TF_CONFIG). Started outside mpirun, MPI runs
// as a singleton: one rank.
//
// MPI may be initialised once per process; the collective finalises it when
// destroyed, so a process makes at most one (a second ConnectMpi after that
// fails with a message saying so).
#pragma once

#include <memory>

#include "host/launch/allreduce.h"

namespace tfhost::host::launch {

StatusOr<std::unique_ptr<Collective>> ConnectMpi();

}  // namespace tfhost::host::launch
