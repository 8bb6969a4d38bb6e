#include <cstdlib>

#include "sweep/mpi.h"

namespace anatomy::sweep {

bool mpi_launched() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
    if (const char* v = std::getenv(var); v && std::atoi(v) > 1) return true;
  return false;
}

}  // namespace anatomy::sweep
