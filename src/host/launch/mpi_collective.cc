#include "host/launch/mpi_collective.h"

// C bindings only: without this, mpi.h pulls in the deprecated C++ bindings,
// which need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>

namespace tfhost::host::launch {

namespace {

std::string MpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, len);
}

class MpiCollective : public Collective {
 public:
  MpiCollective(int rank, int size) : rank_(rank), size_(size) {}
  ~MpiCollective() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "mpi"; }

  Status AllreduceSum(float* data, size_t count) override {
    // MPI counts are int: reduce larger messages in INT_MAX pieces.
    while (count > 0) {
      int piece = static_cast<int>(std::min<size_t>(count, INT_MAX));
      int rc = MPI_Allreduce(MPI_IN_PLACE, data, piece, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      if (rc != MPI_SUCCESS) return Unavailable("MPI_Allreduce of " + std::to_string(piece) + " floats: " + MpiError(rc));
      data += piece;
      count -= piece;
    }
    return OkStatus();
  }

  Status Barrier() override {
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? OkStatus() : Unavailable("MPI_Barrier: " + MpiError(rc));
  }

 private:
  int rank_, size_;
};

}  // namespace

StatusOr<std::unique_ptr<Collective>> ConnectMpi() {
  int finalized = 0, initialized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return FailedPrecondition("MPI was already finalised in this process; it cannot start again");
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) return Unavailable("MPI_Init_thread failed: " + MpiError(rc));
  }
  // Errors come back as codes rather than aborting the job, so they are reported.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<Collective>(new MpiCollective(rank, size));
}

}  // namespace tfhost::host::launch
