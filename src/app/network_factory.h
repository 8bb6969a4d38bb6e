#pragma once
// The one place that names the concrete network backends: a typed spec
// (net/network_spec.h) in, a factory of flow or packet networks out.

#include <string>

#include "coll/collective.h"
#include "net/network_spec.h"

namespace anatomy::app {

using coll::NetworkFactory;
// Throws InputError (field network.transport) for a transport the registry
// does not know, before anything runs.
NetworkFactory network_factory(const net::NetworkSpec& spec);
// Where "auto" picks a collective's algorithm and protocol (CollectiveRunner):
// empty = on the network itself; at packet level with choose=flow (the
// default), the flow model, so that only the winner runs packet by packet.
NetworkFactory choice_network_factory(const net::NetworkSpec& spec);
// The sentence a report prints about that choice (empty for the flow model).
std::string choice_text(const net::NetworkSpec& spec);
// The same model for bulk transfers (checkpoint shards): flow completions
// within 1 ms are solved together (flow_network.h).
NetworkFactory bulk_network_factory(const net::NetworkSpec& spec);

}  // namespace anatomy::app
