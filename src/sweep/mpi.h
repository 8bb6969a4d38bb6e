#pragma once
// A sweep across Open MPI ranks: `mpirun -n N anatomy sweep SPACE --store S`.
// Rank 0 owns the work queue and the store: every other rank asks it for a
// point, simulates it, and sends the row back with its next request
// (dynamic load balancing: a fast rank simply asks more often); rank 0 writes
// each row as it arrives, and simulates points of its own on --threads
// threads meanwhile (0: it only dispatches). Only rank 0 opens the store, so
// no two ranks ever write a row, and the ranks need share no file system.
// Every rank reads the sweep file itself; rank 0 checks they all read the
// same space (its hash) before the first point.
//
// Built only when CMake finds MPI (ANATOMY_HAVE_MPI); without it,
// mpi_compiled() is false and a run under mpirun is refused.

#include "sweep/run.h"

namespace anatomy::sweep {

// Whether this binary was built with MPI.
bool mpi_compiled();
// Whether the process was started by an MPI launcher with more than one
// rank (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX's).
bool mpi_launched();

// Initializes MPI for the life of the object (MPI_THREAD_FUNNELED: only the
// main thread talks to other ranks), and finalizes it.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

// The sweep over the session's ranks; callbacks run on rank 0 only, and
// the summary's counts are rank 0's (the whole sweep's). Throws InputError
// on every rank for a bad space, store or options.
Summary run_sweep_mpi(const MpiSession& mpi, const Space& space, const RunOptions& o, const Callbacks& cb = {});

}  // namespace anatomy::sweep
