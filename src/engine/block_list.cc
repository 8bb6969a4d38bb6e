#include "engine/block_list.h"

namespace anatomy::engine {

void BlockPool::grow() {
  const Id first = static_cast<Id>(chunks_.size()) << kChunkLog2;
  chunks_.push_back(std::make_unique_for_overwrite<Block[]>(kChunk));
  next_.resize(next_.size() + kChunk, kNone);
  // Pushed in reverse so blocks are handed out in address order.
  for (Id i = kChunk; i-- > 0;) free_.push_back(first + i);
}

}  // namespace anatomy::engine
