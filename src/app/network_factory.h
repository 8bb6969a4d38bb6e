#pragma once
// The one place that names the concrete network backends: a typed spec
// (net/network_spec.h) in, a factory of flow or packet networks out.

#include "coll/collective.h"
#include "net/network_spec.h"

namespace anatomy::app {

using coll::NetworkFactory;
// Throws InputError (field network.transport) for a transport the registry
// does not know, before anything runs.
NetworkFactory network_factory(const net::NetworkSpec& spec);
// The same model for bulk transfers (checkpoint shards): flow completions
// within 1 ms are solved together (flow_network.h).
NetworkFactory bulk_network_factory(const net::NetworkSpec& spec);

}  // namespace anatomy::app
