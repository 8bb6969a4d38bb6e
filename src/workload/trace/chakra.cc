#include "workload/trace/chakra.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "core/input_file.h"
#include "et_def.pb.h"

namespace anatomy::workload::trace {
namespace {

namespace pb = ChakraProtoMsg;
using google::protobuf::io::ArrayInputStream;
using google::protobuf::io::CodedInputStream;

constexpr int64_t kMaxEtBytes = int64_t{4} << 30;

std::optional<coll::Op> op_of(int t) {
  switch (t) {
    case pb::ALL_REDUCE: return coll::Op::kAllReduce;
    case pb::REDUCE: return coll::Op::kReduce;
    case pb::ALL_GATHER: return coll::Op::kAllGather;
    case pb::BROADCAST: return coll::Op::kBroadcast;
    case pb::ALL_TO_ALL: return coll::Op::kAllToAll;
    case pb::REDUCE_SCATTER:
    case pb::REDUCE_SCATTER_BLOCK: return coll::Op::kReduceScatter;
    default: return std::nullopt;
  }
}
pb::CollectiveCommType type_of(coll::Op op) {
  switch (op) {
    case coll::Op::kAllReduce: return pb::ALL_REDUCE;
    case coll::Op::kReduce: return pb::REDUCE;
    case coll::Op::kAllGather: return pb::ALL_GATHER;
    case coll::Op::kBroadcast: return pb::BROADCAST;
    case coll::Op::kAllToAll: return pb::ALL_TO_ALL;
    case coll::Op::kReduceScatter: return pb::REDUCE_SCATTER;
    case coll::Op::kSendRecv: return pb::ALL_TO_ALL;
  }
  return pb::ALL_REDUCE;
}

// An integer attribute, whichever integer field the writer chose.
std::optional<int64_t> int_attr(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val: return a.int32_val();
    case pb::AttributeProto::kInt64Val: return a.int64_val();
    case pb::AttributeProto::kUint32Val: return a.uint32_val();
    case pb::AttributeProto::kUint64Val: return static_cast<int64_t>(a.uint64_val());
    case pb::AttributeProto::kSint32Val: return a.sint32_val();
    case pb::AttributeProto::kSint64Val: return a.sint64_val();
    case pb::AttributeProto::kFixed32Val: return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val: return static_cast<int64_t>(a.fixed64_val());
    case pb::AttributeProto::kSfixed32Val: return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val: return a.sfixed64_val();
    case pb::AttributeProto::kDoubleVal: return static_cast<int64_t>(a.double_val());
    case pb::AttributeProto::kFloatVal: return static_cast<int64_t>(a.float_val());
    case pb::AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
    default: return std::nullopt;
  }
}

// Reads the delimited messages of one file.
class Stream {
 public:
  Stream(std::string path) : path_(std::move(path)), data_(core::read_input_file(path_, kMaxEtBytes, "Chakra ET file")),
                             raw_(data_.data(), static_cast<int>(data_.size())), in_(&raw_) {
    in_.SetTotalBytesLimit(static_cast<int>(std::min<size_t>(data_.size() + 1, INT32_MAX)));
  }
  bool done() { return in_.CurrentPosition() >= static_cast<int>(data_.size()); }
  template <typename M>
  void next(M& msg, int64_t record, const char* what) {
    uint32_t size = 0;
    const int at = in_.CurrentPosition();
    if (!in_.ReadVarint32(&size)) record_error(path_, record, "length", fmt::format("truncated: the file ends inside a length prefix (byte {})", at));
    if (static_cast<size_t>(in_.CurrentPosition()) + size > data_.size())
      record_error(path_, record, "length",
           fmt::format("truncated: a {}-byte message at byte {} runs past the end of the {}-byte file", size, at, data_.size()));
    const auto limit = in_.PushLimit(static_cast<int>(size));
    if (!msg.ParseFromCodedStream(&in_) || !in_.ConsumedEntireMessage())
      record_error(path_, record, what, fmt::format("not a Chakra {} message (byte {}): a foreign or corrupt file?", what, at));
    in_.PopLimit(limit);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string data_;
  ArrayInputStream raw_;
  CodedInputStream in_;
};

Phase phase_from(const std::string& name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n.find("optim") != std::string::npos || n.find("adam") != std::string::npos) return Phase::kOptimizer;
  if (n.find("bwd") != std::string::npos || n.find("backward") != std::string::npos || n.find("grad") != std::string::npos)
    return Phase::kBackward;
  return Phase::kForward;
}

RankTrace read_rank(const std::string& path, int rank, TraceGraph& g) {
  Stream s(path);
  RankTrace r;
  r.rank = rank;
  r.file = path;
  pb::GlobalMetadata meta;
  s.next(meta, 0, "GlobalMetadata");
  if (meta.version().empty()) record_error(path, 0, "version", "not a Chakra ET file: its metadata names no version");
  for (const pb::AttributeProto& a : meta.attr())
    if (a.name().rfind("pg_ranks:", 0) == 0 && a.value_case() == pb::AttributeProto::kInt64List) {
      std::vector<int> ranks(a.int64_list().values().begin(), a.int64_list().values().end());
      g.groups[a.name().substr(9)] = ranks;
    }
  for (int64_t record = 1; !s.done(); ++record) {
    pb::Node p;
    s.next(p, record, "Node");
    Node n;
    n.record = record;
    n.id = p.id();
    n.name = p.name();
    // Beyond 1e12 us (11.6 days) a step's node cannot be real, and its
    // picoseconds would near int64's 106 days (check_trace bounds the sum).
    constexpr uint64_t kMaxMicros = 1'000'000'000'000;
    if (p.duration_micros() > kMaxMicros)
      record_error(path, record, "duration_micros", fmt::format("{} us is not a duration a trace records", p.duration_micros()));
    n.duration = SimTime::us(static_cast<int64_t>(p.duration_micros()));
    n.phase = phase_from(p.name());
    for (uint64_t d : p.data_deps()) n.deps.push_back(d);
    for (uint64_t d : p.ctrl_deps())
      if (std::find(n.deps.begin(), n.deps.end(), d) == n.deps.end()) n.deps.push_back(d);
    int64_t comm_type = -1, num_ops = 0;
    for (const pb::AttributeProto& a : p.attr()) {
      const std::string& k = a.name();
      const std::optional<int64_t> v = int_attr(a);
      if (k == "comm_type" && v) comm_type = *v;
      else if ((k == "comm_size" || k == "tensor_size") && v) n.bytes = Bytes(*v);
      else if (k == "comm_src" && v && p.type() == pb::COMM_RECV_NODE) n.peer = static_cast<int>(*v);
      else if (k == "comm_dst" && v && p.type() == pb::COMM_SEND_NODE) n.peer = static_cast<int>(*v);
      else if (k == "comm_tag" && v) n.tag = *v;
      else if (k == "num_ops" && v) num_ops = *v;
      else if (k == "pg_name" && a.value_case() == pb::AttributeProto::kStringVal) n.group = a.string_val();
      else if (k == "anatomy_duration_ps" && v) n.duration = SimTime::ps(*v);
      else if (k == "anatomy_host" && v) n.host = *v != 0;
      else if (k == "anatomy_idle" && v) n.idle = *v != 0;
      else if (k == "anatomy_phase" && a.value_case() == pb::AttributeProto::kStringVal)
        n.phase = a.string_val() == "backward" ? Phase::kBackward : a.string_val() == "optimizer" ? Phase::kOptimizer : Phase::kForward;
      else if (k == "anatomy_comm" && a.value_case() == pb::AttributeProto::kStringVal) {
        n.comm = CommKind::kDp;  // what the writer names (to_string), else gradients'
        for (CommKind c : {CommKind::kTp, CommKind::kCp, CommKind::kEp, CommKind::kPp})
          if (a.string_val() == to_string(c)) n.comm = c;
      }
    }
    if (n.bytes.count() < 0) record_error(path, record, "comm_size", "must not be negative");
    if (n.bytes.count() > (int64_t{1} << 56)) record_error(path, record, "comm_size", "more than 2^56 bytes (64 PiB): not a real size");
    if (n.duration < SimTime() || n.duration > SimTime::us(static_cast<int64_t>(kMaxMicros)))
      record_error(path, record, "anatomy_duration_ps", "must be a duration from 0 to 1e12 us");
    switch (p.type()) {
      case pb::COMP_NODE:
        n.kind = NodeKind::kCompute;
        if (num_ops > 0) {  // as a square GEMM of as many FLOPs (2 m n k)
          WorkShape w;
          w.kind = WorkShape::Kind::kGemm;
          w.m = w.n = w.k = std::max<int64_t>(1, std::llround(std::cbrt(static_cast<double>(num_ops) / 2)));
          w.dtype = hw::Precision::kBf16;
          n.shapes.push_back(w);
        }
        break;
      case pb::COMM_COLL_NODE: {
        n.kind = NodeKind::kCollective;
        if (comm_type < 0) record_error(path, record, "comm_type", "a collective node needs a comm_type");
        const auto op = op_of(static_cast<int>(comm_type));
        if (!op) record_error(path, record, "comm_type", fmt::format("collective type {} is not one anatomy runs (all-reduce, reduce, all-gather, broadcast, all-to-all, reduce-scatter)", comm_type));
        n.op = *op;
        break;
      }
      case pb::COMM_SEND_NODE:
      case pb::COMM_RECV_NODE:
        n.kind = p.type() == pb::COMM_SEND_NODE ? NodeKind::kSend : NodeKind::kRecv;
        n.comm = CommKind::kPp;
        if (n.peer < 0) record_error(path, record, p.type() == pb::COMM_SEND_NODE ? "comm_dst" : "comm_src", "a send or receive needs its peer rank");
        break;
      case pb::MEM_LOAD_NODE: n.kind = NodeKind::kMemLoad; break;
      case pb::MEM_STORE_NODE: n.kind = NodeKind::kMemStore; break;
      case pb::METADATA_NODE: n.kind = NodeKind::kCompute; n.duration = SimTime(); n.host = true; break;
      default:
        record_error(path, record, "type", fmt::format("node type {} is not one anatomy runs", static_cast<int>(p.type())));
    }
    r.nodes.push_back(std::move(n));
  }
  return r;
}

void set_string(pb::Node& n, const char* name, const std::string& v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}
void set_int(pb::Node& n, const char* name, int64_t v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void write_delimited(std::string& out, const google::protobuf::MessageLite& m) {
  std::string body = m.SerializeAsString();
  uint64_t size = body.size();
  do {  // varint
    uint8_t b = size & 0x7f;
    size >>= 7;
    out.push_back(static_cast<char>(size ? b | 0x80 : b));
  } while (size);
  out += body;
}

}  // namespace

TraceGraph read_chakra(const std::vector<std::string>& files, const std::string& source) {
  TraceGraph g;
  g.source = source;
  g.format = "Chakra ET";
  for (size_t i = 0; i < files.size(); ++i) g.ranks.push_back(read_rank(files[i], static_cast<int>(i), g));
  g.notes.push_back("Chakra compute nodes rescaled by their num_ops as one square GEMM where they give it, else as memory-bound work");
  return g;
}

std::vector<std::string> write_chakra(const TraceGraph& g, const std::string& dir, const std::string& prefix) {
  std::vector<std::string> paths;
  for (const RankTrace& r : g.ranks) {
    std::string out;
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    for (const auto& [name, ranks] : g.groups) {
      pb::AttributeProto* a = meta.add_attr();
      a->set_name("pg_ranks:" + name);
      for (int x : ranks) a->mutable_int64_list()->add_values(x);
    }
    write_delimited(out, meta);
    for (const Node& n : r.nodes) {
      pb::Node p;
      p.set_id(n.id);
      p.set_name(n.name);
      for (uint64_t d : n.deps) p.add_ctrl_deps(d);
      p.set_duration_micros(static_cast<uint64_t>(n.duration.count_ps() / 1000000));
      set_int(p, "anatomy_duration_ps", n.duration.count_ps());
      set_string(p, "anatomy_phase", to_string(n.phase));
      if (n.host) set_int(p, "anatomy_host", 1);
      if (n.idle) set_int(p, "anatomy_idle", 1);
      switch (n.kind) {
        case NodeKind::kCompute: p.set_type(pb::COMP_NODE); break;
        case NodeKind::kCollective:
          p.set_type(pb::COMM_COLL_NODE);
          set_int(p, "comm_type", type_of(n.op));
          set_int(p, "comm_size", n.bytes.count());
          if (!n.group.empty()) set_string(p, "pg_name", n.group);
          set_string(p, "anatomy_comm", to_string(n.comm));
          break;
        case NodeKind::kSend:
        case NodeKind::kRecv:
          p.set_type(n.kind == NodeKind::kSend ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
          set_int(p, n.kind == NodeKind::kSend ? "comm_dst" : "comm_src", n.peer);
          set_int(p, "comm_tag", n.tag);
          set_int(p, "comm_size", n.bytes.count());
          set_string(p, "anatomy_comm", to_string(n.comm));
          break;
        case NodeKind::kMemLoad:
        case NodeKind::kMemStore:
          p.set_type(n.kind == NodeKind::kMemLoad ? pb::MEM_LOAD_NODE : pb::MEM_STORE_NODE);
          set_int(p, "tensor_size", n.bytes.count());
          break;
      }
      write_delimited(out, p);
    }
    const std::string path = fmt::format("{}/{}.{}.et", dir, prefix, r.rank);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (f) f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) throw core::InputError({"", 0, "--export-chakra"}, fmt::format("cannot write '{}'", path));
    paths.push_back(path);
  }
  return paths;
}

}  // namespace anatomy::workload::trace
