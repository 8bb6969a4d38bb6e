#pragma once
// The one place that names the concrete network backends.

#include <string>

#include "coll/collective.h"

namespace anatomy::app {

using coll::NetworkFactory;
// Throws InputError (field --network) for an unknown model.
NetworkFactory network_factory(const std::string& model);
// The same model for bulk transfers (checkpoint shards): flow completions
// within 1 ms are solved together (flow_network.h).
NetworkFactory bulk_network_factory(const std::string& model);

}  // namespace anatomy::app
