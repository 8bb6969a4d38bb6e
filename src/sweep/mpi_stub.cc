// The MPI entry points in a build without MPI (sweep/mpi.h).
#include "sweep/mpi.h"

#ifndef ANATOMY_HAVE_MPI

namespace anatomy::sweep {

bool mpi_compiled() { return false; }

MpiSession::MpiSession() {
  throw core::InputError({"", 0, "mpirun"}, "this anatomy was built without MPI (install libopenmpi-dev and rebuild)");
}
MpiSession::~MpiSession() = default;

Summary run_sweep_mpi(const MpiSession&, const Space& space, const RunOptions& o, const Callbacks& cb) {
  return run_sweep(space, o, cb);
}

}  // namespace anatomy::sweep

#endif
