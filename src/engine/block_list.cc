#include "engine/block_list.h"

#include <new>
#include <type_traits>

namespace anatomy::engine {

void BlockPool::grow() {
  const Id first = static_cast<Id>(chunks_.size()) << kChunkLog2;
  static_assert(std::is_trivially_destructible_v<Block> && std::is_aggregate_v<Block>);
  chunks_.emplace_back(static_cast<Block*>(::operator new(sizeof(Block) * kChunk, std::align_val_t{alignof(Block)})));
  next_.resize(next_.size() + kChunk, kNone);
  // Pushed in reverse so blocks are handed out in address order.
  for (Id i = kChunk; i-- > 0;) free_.push_back(first + i);
}

}  // namespace anatomy::engine
