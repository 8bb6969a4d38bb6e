// Reads the PyTorch profiler's Chrome trace and the execution trace of each
// rank and joins them (pytorch_reader.h says how).

#include "workload/trace/pytorch_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "core/input_file.h"

namespace anatomy::workload::trace {
namespace {

using nlohmann::json;

// A record's optional field: its value, `fallback` when absent or null, and
// an error naming the file, record and field when it has another JSON type
// (nlohmann's own getters would throw a type_error nobody catches).
std::string text_field(const json& o, const char* key, const std::string& fallback, const std::string& path, size_t record) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return fallback;
  if (!it->is_string()) record_error(path, static_cast<int64_t>(record), key, fmt::format("must be a string, not {}", it->type_name()));
  return it->get<std::string>();
}
int64_t int_field(const json& o, const char* key, int64_t fallback, const std::string& path, size_t record) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) record_error(path, static_cast<int64_t>(record), key, fmt::format("must be a whole number, not {}", it->type_name()));
  return it->get<int64_t>();
}

constexpr int64_t kMaxTraceBytes = int64_t{2} << 30;  // 2 GiB: a long step of a large model

json parse_file(const std::string& path, const char* what) {
  const std::string text = core::read_input_file(path, kMaxTraceBytes, what);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    record_error(path, -1, "", fmt::format("not a {} (malformed JSON: {})", what, e.what()));
  }
}

// One operator span of the profiler (times in microseconds, as recorded).
struct Span {
  std::string name;
  double ts = 0, dur = 0;
  int64_t tid = 0;
  size_t record = 0;  // index in the file's event list
  int et = -1;        // matched execution-trace node
  std::vector<size_t> children;
  bool comm() const;
};

std::optional<coll::Op> collective_op(std::string_view name) {
  // "gloo:all_reduce", "nccl:all_reduce", "c10d::allreduce_", "allreduce" ...
  std::string n;
  for (char c : name)
    if (c != '_') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  if (has("allreduce")) return coll::Op::kAllReduce;
  if (has("reducescatter") || has("reducescatterbase")) return coll::Op::kReduceScatter;
  if (has("allgather")) return coll::Op::kAllGather;
  if (has("alltoall")) return coll::Op::kAllToAll;
  if (has("broadcast")) return coll::Op::kBroadcast;
  if (has("reduce")) return coll::Op::kReduce;
  return std::nullopt;
}

// The communication thread's span of a collective.
bool is_comm_span(std::string_view name) {
  return (name.rfind("gloo:", 0) == 0 || name.rfind("nccl:", 0) == 0) && collective_op(name.substr(5)).has_value();
}
bool Span::comm() const { return is_comm_span(name); }
bool is_launcher(std::string_view name) { return name.rfind("c10d::", 0) == 0; }

// A record_function annotation that wraps operators rather than being one.
bool is_wrapper(std::string_view name) {
  return name.find("::") == std::string_view::npos && name.rfind("autograd", 0) != 0 && !is_comm_span(name);
}

// An execution-trace node, in either schema.
struct EtNode {
  std::string name;
  int64_t id = 0, parent = 0, order = 0;
  std::vector<std::vector<int64_t>> shapes;  // input shapes
  std::vector<std::string> types;            // input types
  std::vector<std::vector<int64_t>> out_shapes;
  std::vector<std::string> out_types;
  std::vector<json> values;  // input values
  size_t record = 0;         // index in the file's "nodes"
  bool leaf = true;
};

// The most elements one tensor may have: 2^48 (a petabyte of bf16), far
// above any real one, so that sizes in bytes and FLOPs cannot overflow.
constexpr int64_t kMaxElements = int64_t{1} << 48;

std::vector<std::vector<int64_t>> read_shapes(const json& j, const std::string& path, size_t record, const char* field) {
  std::vector<std::vector<int64_t>> out;
  if (!j.is_array()) return out;
  for (const json& s : j) {
    std::vector<int64_t> dims;
    int64_t elements = 1;
    if (s.is_array())
      for (const json& d : s)
        if (d.is_number_integer()) {
          const int64_t v = d.get<int64_t>();
          if (v > kMaxElements || (v > 0 && elements > kMaxElements / v))
            record_error(path, static_cast<int64_t>(record), field,
                         fmt::format("a tensor of more than 2^48 elements (dimension {}): not a real shape", v));
          if (v > 0) elements *= v;
          dims.push_back(v);
        }
    out.push_back(dims);
  }
  return out;
}
std::vector<std::string> read_types(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const json& t : j) out.push_back(t.is_string() ? t.get<std::string>() : "");
  return out;
}

std::vector<EtNode> read_et(const std::string& path, std::string& schema) {
  const json doc = parse_file(path, "PyTorch execution trace");
  if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
    record_error(path, -1, "nodes", "not a PyTorch execution trace: no \"nodes\" array");
  schema = text_field(doc, "schema", "?", path, 0);
  std::vector<EtNode> nodes;
  const json& arr = doc["nodes"];
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& n = arr[i];
    if (!n.is_object() || !n.contains("name") || !n["name"].is_string() || !n.contains("id"))
      record_error(path, static_cast<int64_t>(i), "name", "an execution-trace node needs a name and an id");
    EtNode e;
    e.record = i;
    e.name = n["name"].get<std::string>();
    e.id = int_field(n, "id", 0, path, i);
    e.order = e.id;
    if (n.contains("inputs") && n["inputs"].is_object()) {  // ExecutionTraceObserver (schema 1.0.2+)
      const json& in = n["inputs"];
      if (in.contains("shapes")) e.shapes = read_shapes(in["shapes"], path, i, "inputs.shapes");
      if (in.contains("types")) e.types = read_types(in["types"]);
      if (in.contains("values") && in["values"].is_array()) e.values = in["values"].get<std::vector<json>>();
      if (n.contains("outputs") && n["outputs"].is_object()) {
        if (n["outputs"].contains("shapes")) e.out_shapes = read_shapes(n["outputs"]["shapes"], path, i, "outputs.shapes");
        if (n["outputs"].contains("types")) e.out_types = read_types(n["outputs"]["types"]);
      }
      e.parent = int_field(n, "ctrl_deps", 0, path, i);
      if (n.contains("attrs") && n["attrs"].is_array())
        for (const json& a : n["attrs"])
          if (a.is_object() && a.contains("name") && a["name"] == "rf_id" && a.contains("value") && a["value"].is_number_integer())
            e.order = a["value"].get<int64_t>();
    } else {  // torch 1.13's ExecutionGraphObserver (schema 1.0.1)
      if (n.contains("input_shapes")) e.shapes = read_shapes(n["input_shapes"], path, i, "input_shapes");
      if (n.contains("input_types")) e.types = read_types(n["input_types"]);
      if (n.contains("output_shapes")) e.out_shapes = read_shapes(n["output_shapes"], path, i, "output_shapes");
      if (n.contains("output_types")) e.out_types = read_types(n["output_types"]);
      if (n.contains("inputs") && n["inputs"].is_array()) e.values = n["inputs"].get<std::vector<json>>();
      e.parent = int_field(n, "parent", 0, path, i);
      if (n.contains("rf_id") && n["rf_id"].is_number_integer()) e.order = n["rf_id"].get<int64_t>();
    }
    nodes.push_back(std::move(e));
  }
  std::unordered_map<int64_t, size_t> at;
  for (size_t i = 0; i < nodes.size(); ++i) at[nodes[i].id] = i;
  for (const EtNode& e : nodes) {
    auto it = at.find(e.parent);
    if (it != at.end()) nodes[it->second].leaf = false;
  }
  std::stable_sort(nodes.begin(), nodes.end(), [](const EtNode& a, const EtNode& b) { return a.order < b.order; });
  return nodes;
}

// "Tensor(float)", "Tensor(c10::BFloat16)", ... -> bytes per element and precision.
std::pair<int, hw::Precision> element(const std::string& type) {
  if (type.find("BFloat16") != std::string::npos) return {2, hw::Precision::kBf16};
  if (type.find("Half") != std::string::npos) return {2, hw::Precision::kFp16};
  if (type.find("double") != std::string::npos || type.find("long") != std::string::npos) return {8, hw::Precision::kFp32};
  if (type.find("Float8") != std::string::npos || type.find("unsigned char") != std::string::npos ||
      type.find("bool") != std::string::npos)
    return {1, hw::Precision::kFp8};
  return {4, hw::Precision::kFp32};
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= std::max<int64_t>(d, 0);
  return n;
}

// The work a leaf operator does, from its shapes: GEMMs by their
// dimensions, everything else as memory-bound bytes in plus out.
std::optional<WorkShape> work_of(const EtNode& e) {
  const auto& s = e.shapes;
  const hw::Precision p = e.types.empty() ? hw::Precision::kFp32 : element(e.types[0]).second;
  WorkShape w;
  w.dtype = p;
  auto gemm = [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) -> std::optional<WorkShape> {
    if (a.size() < 2 || b.size() < 2) return std::nullopt;
    w.kind = WorkShape::Kind::kGemm;
    w.m = a[a.size() - 2];
    w.k = a[a.size() - 1];
    w.n = b[b.size() - 1];
    w.batch = a.size() == 3 ? a[0] : 1;
    if (w.m <= 0 || w.n <= 0 || w.k <= 0) return std::nullopt;
    return w;
  };
  if ((e.name == "aten::mm" || e.name == "aten::bmm") && s.size() >= 2) return gemm(s[0], s[1]);
  if ((e.name == "aten::addmm" || e.name == "aten::baddbmm") && s.size() >= 3) return gemm(s[1], s[2]);
  // Each tensor is at most 2^51 bytes (read_shapes); the sum over however
  // many inputs stays in range as a double, capped at 2^60.
  double bytes = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (i < e.types.size() && e.types[i].rfind("Tensor", 0) == 0) bytes += static_cast<double>(numel(s[i]) * element(e.types[i]).first);
  for (size_t i = 0; i < e.out_shapes.size(); ++i)
    if (i < e.out_types.size() && e.out_types[i].rfind("Tensor", 0) == 0)
      bytes += static_cast<double>(numel(e.out_shapes[i]) * element(e.out_types[i]).first);
  if (bytes == 0) return std::nullopt;
  w.kind = WorkShape::Kind::kMemoryBound;
  w.bytes = Bytes(static_cast<int64_t>(std::min(bytes, 0x1p60)));
  return w;
}

// Bytes of a collective's tensor: its first tensor input (numel x element size).
int64_t collective_bytes(const EtNode& e) {
  for (size_t i = 0; i < e.shapes.size() && i < e.types.size(); ++i)
    if (e.types[i].rfind("Tensor", 0) == 0 && !e.shapes[i].empty()) return numel(e.shapes[i]) * element(e.types[i]).first;
  for (size_t i = 0; i < e.values.size(); ++i) {  // 1.13: [tensor_id, storage_id, offset, numel, elem_bytes, device]
    const json& v = e.values[i];
    if (v.is_array() && v.size() == 6 && v[3].is_number_integer() && v[4].is_number_integer()) {
      const int64_t elements = v[3].get<int64_t>(), size = v[4].get<int64_t>();
      if (elements < 0 || elements > kMaxElements || size <= 0 || size > 16) return -1;
      return elements * size;
    }
  }
  return -1;
}

// The collective an execution-trace node records: its operation, or none.
std::optional<coll::Op> et_collective(const EtNode& e) {
  if (is_comm_span(e.name)) return collective_op(e.name.substr(5));
  if (e.name == "record_param_comms")
    for (const json& v : e.values)
      if (v.is_string())
        if (auto op = collective_op(v.get<std::string>())) return op;
  return std::nullopt;
}

std::vector<Span> read_profiler(const std::string& path) {
  const json doc = parse_file(path, "PyTorch profiler trace");
  const json* events = nullptr;
  if (doc.is_array()) events = &doc;
  else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) events = &doc["traceEvents"];
  if (!events) record_error(path, -1, "traceEvents", "not a Chrome trace: neither an event array nor a \"traceEvents\" array");
  std::vector<Span> spans;
  for (size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    if (!e.is_object() || text_field(e, "ph", "", path, i) != "X") continue;
    const std::string cat = text_field(e, "cat", "", path, i);
    if (!cat.empty() && cat != "cpu_op" && cat != "user_annotation" && cat != "Operator") continue;
    if (!e.contains("name") || !e["name"].is_string() || !e.contains("ts") || !e["ts"].is_number() ||
        !e.contains("dur") || !e["dur"].is_number())
      record_error(path, static_cast<int64_t>(i), "ts", "a complete event (\"ph\": \"X\") needs a name, a ts and a dur");
    Span s;
    s.name = e["name"].get<std::string>();
    s.ts = e["ts"].get<double>();
    s.dur = e["dur"].get<double>();
    s.tid = e.contains("tid") && e["tid"].is_number_integer() ? e["tid"].get<int64_t>() : 0;
    s.record = i;
    // Microseconds. Timestamps may count from the epoch (1.7e15 us now);
    // a span beyond 1e12 us (11.6 days) cannot be real, and its picoseconds
    // would near int64's 106 days (check_trace bounds the sum).
    if (!(std::abs(s.ts) <= 1e17)) record_error(path, static_cast<int64_t>(i), "ts", fmt::format("{} us is not a time a trace records", s.ts));
    if (!(s.dur <= 1e12)) record_error(path, static_cast<int64_t>(i), "dur", fmt::format("{} us is not a duration a trace records", s.dur));
    if (s.dur < 0) record_error(path, static_cast<int64_t>(i), "dur", "must not be negative");
    spans.push_back(std::move(s));
  }
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
  return spans;
}

SimTime us(double v) { return SimTime::from_seconds(v * 1e-6); }

// Overlap of [a, b) with the union of `intervals` (sorted by start).
double overlap(double a, double b, const std::vector<std::pair<double, double>>& intervals) {
  double sum = 0, covered = a;
  for (const auto& [s, e] : intervals) {
    const double lo = std::max(s, covered), hi = std::min(e, b);
    if (hi > lo) {
      sum += hi - lo;
      covered = hi;
    }
  }
  return sum;
}

class RankReader {
 public:
  explicit RankReader(const PytorchRankFiles& f) : f_(f) {}

  // Reads the profiler file; returns the duration of each profiled step
  // ("ProfilerStep#N" spans, in order), in microseconds.
  std::vector<double> load() {
    spans_ = read_profiler(f_.profiler);
    if (spans_.empty())
      record_error(f_.profiler, -1, "traceEvents", "no operator spans (\"ph\": \"X\" CPU operators): was the profiler on?");
    for (size_t i = 0; i < spans_.size(); ++i)
      if (spans_[i].name.rfind("ProfilerStep#", 0) == 0) steps_.push_back(i);
    if (steps_.empty())
      record_error(f_.profiler, -1, "ProfilerStep#",
           "no \"ProfilerStep#N\" span: anatomy replays one step; profile with a schedule (prof.step()) or wrap the "
           "step in record_function(\"ProfilerStep#0\")");
    std::vector<double> d;
    for (size_t i : steps_) d.push_back(spans_[i].dur);
    return d;
  }

  // The graph of profiled step `k` (0-based, of those load() found).
  RankTrace read(size_t k) {
    step_ = steps_.at(k);
    main_tid_ = spans_[step_].tid;
    if (!f_.execution_trace.empty()) {
      std::string schema;
      et_ = read_et(f_.execution_trace, schema);
      schema_ = schema;
    }
    nest();
    match_et();
    return build();
  }
  const std::string& schema() const { return schema_; }

 private:
  bool in_step(const Span& s) const {
    const Span& st = spans_[step_];
    return s.ts >= st.ts && s.ts + s.dur <= st.ts + st.dur;
  }

  // Parent/child nesting of the main thread's spans inside the step.
  void nest() {
    std::vector<size_t> stack;
    for (size_t i = 0; i < spans_.size(); ++i) {
      const Span& s = spans_[i];
      if (i == step_ || s.tid != main_tid_ || !in_step(s)) continue;
      while (!stack.empty() && spans_[stack.back()].ts + spans_[stack.back()].dur < s.ts + s.dur) stack.pop_back();
      (stack.empty() ? top_ : spans_[stack.back()].children).push_back(i);
      stack.push_back(i);
    }
  }

  // Profiled spans of the step's main thread <-> execution-trace nodes: the
  // k-th operator of a name in the one is the k-th of that name in the
  // other (both ran the same step's operators in the same order; a name
  // one file lacks simply goes unmatched).
  void match_et() {
    if (et_.empty()) return;
    std::unordered_map<std::string, std::vector<int>> by_name;
    for (size_t j = 0; j < et_.size(); ++j) by_name[et_[j].name].push_back(static_cast<int>(j));
    std::unordered_map<std::string, size_t> seen;
    for (size_t i = 0; i < spans_.size(); ++i) {
      if (i == step_ || spans_[i].tid != main_tid_ || !in_step(spans_[i])) continue;
      auto it = by_name.find(spans_[i].name);
      if (it == by_name.end()) continue;
      const size_t k = seen[spans_[i].name]++;
      if (k < it->second.size()) spans_[i].et = it->second[k];
    }
  }

  // The work inside a span: a GEMM operator's shape where it is one (what
  // it holds are views and conjugation checks), else its leaves' bytes.
  void collect_shapes(const Span& s, std::vector<WorkShape>& out) const {
    if (s.et >= 0) {
      const std::optional<WorkShape> w = work_of(et_[s.et]);
      if (w && (w->kind == WorkShape::Kind::kGemm || s.children.empty())) {
        out.push_back(*w);
        return;
      }
    }
    for (size_t c : s.children) collect_shapes(spans_[c], out);
  }

  // The outermost operators, through annotation wrappers.
  void flatten(const std::vector<size_t>& level, std::vector<size_t>& out, bool in_optimizer,
               std::vector<bool>& optimizer) const {
    for (size_t i : level) {
      const Span& s = spans_[i];
      const bool opt = in_optimizer || s.name.rfind("Optimizer.", 0) == 0;
      if (is_wrapper(s.name) && !s.children.empty()) {
        flatten(s.children, out, opt, optimizer);
      } else if (!is_wrapper(s.name) || s.dur > 0) {
        out.push_back(i);
        optimizer.push_back(opt);
      }
    }
  }

  RankTrace build() {
    RankTrace r;
    r.rank = f_.rank;
    r.file = f_.profiler;
    std::vector<size_t> ops;
    std::vector<bool> optimizer;
    flatten(top_, ops, false, optimizer);
    if (ops.empty()) record_error(f_.profiler, static_cast<int64_t>(spans_[step_].record), "ProfilerStep#", "the step holds no operators");
    // The collectives: the communication threads' spans in the step, in
    // order, and the execution trace's, in order.
    std::vector<size_t> comm_spans;
    for (size_t i = 0; i < spans_.size(); ++i)
      if (spans_[i].comm() && spans_[i].tid != main_tid_ && in_step(spans_[i])) comm_spans.push_back(i);
    std::vector<const EtNode*> comm_et;
    for (const EtNode& e : et_)
      if (et_collective(e)) comm_et.push_back(&e);
    // One collective per launcher (c10d:: operator) on the main thread.
    std::vector<size_t> launchers;
    for (size_t i = 0; i < ops.size(); ++i)
      if (is_launcher(spans_[ops[i]].name) || has_launcher(spans_[ops[i]])) launchers.push_back(i);
    const size_t collectives = std::max(comm_spans.size(), launchers.size());
    if (collectives > 0 && !comm_et.empty() && comm_et.size() < collectives)
      record_error(f_.execution_trace, -1, "nodes",
           fmt::format("records {} collectives; the profiled step ran {}: were both taken from the same loop?",
                       comm_et.size(), collectives));
    std::vector<std::pair<double, double>> in_flight;
    for (size_t c : comm_spans) in_flight.push_back({spans_[c].ts, spans_[c].ts + spans_[c].dur});
    std::sort(in_flight.begin(), in_flight.end());

    uint64_t next_id = 1;
    uint64_t prev = 0;
    bool backward = false;
    double t = spans_[step_].ts;
    std::vector<uint64_t> outstanding;  // collectives not yet waited for
    size_t launched = 0;
    auto add = [&](Node n) {
      n.id = next_id++;
      if (prev) n.deps.push_back(prev);
      prev = n.id;
      r.nodes.push_back(std::move(n));
      return prev;
    };
    for (size_t k = 0; k < ops.size(); ++k) {
      const Span& s = spans_[ops[k]];
      const bool opt = optimizer[k];
      if (!opt && s.name.rfind("autograd::engine::evaluate_function", 0) == 0) backward = true;
      const Phase phase = opt ? Phase::kOptimizer : backward ? Phase::kBackward : Phase::kForward;
      const bool launcher = is_launcher(s.name) || has_launcher(s);
      // The host time before it, less any wait on collectives in flight.
      if (s.ts > t) {
        const double gap = (s.ts - t) - overlap(t, s.ts, in_flight);
        if (gap > 0) {
          Node h;
          h.name = "host time between operators";
          h.phase = phase;
          h.host = true;
          h.duration = us(gap);
          add(std::move(h));
        }
      }
      Node n;
      n.record = static_cast<int64_t>(s.record);
      n.name = s.name;
      n.phase = phase;
      const double busy = launcher ? s.dur - overlap(s.ts, s.ts + s.dur, in_flight) : s.dur;
      n.duration = us(std::max(0.0, busy));
      collect_shapes(s, n.shapes);
      if (launcher) n.host = n.shapes.empty();
      if (phase == Phase::kOptimizer && !outstanding.empty()) {
        n.deps = outstanding;  // the gradients are reduced before the optimizer reads them
        outstanding.clear();
      }
      const uint64_t issuer = add(std::move(n));
      t = std::max(t, s.ts + s.dur);
      if (launcher && launched < collectives) {
        Node c;
        c.id = next_id++;
        c.kind = NodeKind::kCollective;
        c.name = launched < comm_spans.size() ? spans_[comm_spans[launched]].name : s.name;
        c.phase = phase;
        c.comm = CommKind::kDp;
        c.deps = {issuer};
        c.record = static_cast<int64_t>(launched < comm_spans.size() ? spans_[comm_spans[launched]].record : s.record);
        if (launched < comm_spans.size()) c.duration = us(spans_[comm_spans[launched]].dur);
        std::optional<coll::Op> op = collective_op(c.name.rfind("gloo:", 0) == 0 || c.name.rfind("nccl:", 0) == 0
                                                       ? c.name.substr(5)
                                                       : c.name);
        int64_t bytes = -1;
        if (launched < comm_et.size()) {
          op = et_collective(*comm_et[launched]);
          bytes = collective_bytes(*comm_et[launched]);
        }
        if (bytes < 0)
          record_error(f_.execution_trace.empty() ? f_.profiler : f_.execution_trace,
               static_cast<int64_t>(s.record), "comm_size",
               fmt::format("collective {} ({}) has no size: give the execution trace (et_rank{}.json) beside the "
                           "profiler file",
                           launched, c.name, f_.rank));
        c.op = op.value_or(coll::Op::kAllReduce);
        c.bytes = Bytes(bytes);
        outstanding.push_back(c.id);
        r.nodes.push_back(std::move(c));
        ++launched;
      }
    }
    if (!outstanding.empty()) {  // the step ends when its collectives have
      Node end;
      end.name = "end of step";
      end.phase = Phase::kOptimizer;
      end.deps = outstanding;
      end.host = true;
      add(std::move(end));
    }
    return r;
  }

  bool has_launcher(const Span& s) const {
    for (size_t c : s.children)
      if (is_launcher(spans_[c].name) || has_launcher(spans_[c])) return true;
    return false;
  }

  const PytorchRankFiles& f_;
  std::vector<Span> spans_;
  std::vector<EtNode> et_;
  std::vector<size_t> top_;
  size_t step_ = 0;
  std::vector<size_t> steps_;  // every ProfilerStep# span
  int64_t main_tid_ = 0;
  std::string schema_;
};

}  // namespace

TraceGraph read_pytorch_traces(const std::vector<PytorchRankFiles>& files, const std::string& source) {
  TraceGraph g;
  g.source = source;
  std::string schema = "none";
  // With several profiled steps, the one whose slowest rank took the median
  // time: one step is replayed, and the median is the least disturbed by a
  // busy machine's outliers.
  std::vector<std::unique_ptr<RankReader>> readers;
  std::vector<std::vector<double>> steps;
  for (const PytorchRankFiles& f : files) {
    readers.push_back(std::make_unique<RankReader>(f));
    steps.push_back(readers.back()->load());
  }
  size_t n = steps.front().size();
  for (const auto& s : steps) n = std::min(n, s.size());
  std::vector<std::pair<double, size_t>> slowest;
  for (size_t k = 0; k < n; ++k) {
    double d = 0;
    for (const auto& s : steps) d = std::max(d, s[k]);
    slowest.push_back({d, k});
  }
  std::sort(slowest.begin(), slowest.end());
  const size_t chosen = slowest[(n - 1) / 2].second;
  for (size_t r = 0; r < files.size(); ++r) {
    g.ranks.push_back(readers[r]->read(chosen));
    if (!files[r].execution_trace.empty()) schema = readers[r]->schema();
  }
  if (n > 1) g.notes.push_back(fmt::format("profiled step {} of {} replayed: the median of their slowest ranks' times", chosen, n));
  g.format = fmt::format("PyTorch profiler (Chrome trace) + execution trace (schema {})", schema);
  g.notes.push_back("collectives taken as data-parallel, over every rank (the trace names no process-group roles)");
  g.notes.push_back("host time between operators kept as measured; time the main thread waited on collectives left out");
  return g;
}

}  // namespace anatomy::workload::trace
