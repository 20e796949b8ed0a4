// Python bindings of libsymbiosis: the offline studies. The CLI and plots
// live in Python; every number comes from here.

#include <algorithm>
#include <cstdint>
#include <memory>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "symbiosis/block_trace.h"
#include "symbiosis/controller.h"
#include "symbiosis/error.h"
#include "symbiosis/kernel_cache.h"
#include "symbiosis/kernel_model_study.h"
#include "symbiosis/layout.h"
#include "symbiosis/mrc.h"
#include "sim/progress.h"
#include "symbiosis/redis_cache.h"
#include "symbiosis/replay.h"
#include "symbiosis/trace.h"
#include "symbiosis/trace_mrc.h"
#include "symbiosis/trace_partition.h"
#include "symbiosis/two_level_study.h"
#include "symbiosis/workload.h"

namespace py = pybind11;
using namespace symbiosis;

namespace {

py::dict PointToDict(const SplitPoint& p) {
  py::dict d;
  d["ma_bytes"] = p.ma_bytes;
  d["mk_bytes"] = p.mk_bytes;
  d["hit_app"] = p.hit_app;
  d["hit_second_tier"] = p.hit_second_tier;
  d["latency"] = p.latency;
  d["second_tier_hits_per_read"] = p.second_tier_hits_per_read;
  return d;
}

BlockTrace WorkloadTrace(uint64_t data_bytes, double alpha, uint32_t block_bytes,
                         uint32_t entry_bytes, uint64_t file_bytes, bool aligned,
                         const std::string& workload, uint64_t accesses,
                         uint64_t seed) {
  LayoutOptions layout_options;
  layout_options.data_bytes = data_bytes;
  layout_options.alpha = alpha;
  layout_options.block_bytes = block_bytes;
  layout_options.entry_bytes = entry_bytes;
  layout_options.file_bytes = file_bytes;
  layout_options.aligned = aligned;
  layout_options.seed = seed;
  DataLayout layout(layout_options);
  if (accesses == 0) accesses = 20 * layout.num_blocks();
  return TraceFromWorkload(layout, workload, accesses, seed);
}

TraceOptions ParseTraceOptions(const std::string& format, const std::string& columns,
                               uint64_t max_records) {
  TraceOptions options;
  options.format = ParseTraceFormat(format);
  if (!columns.empty()) options.csv = ParseCsvColumns(columns);
  options.max_records = max_records;
  return options;
}

BlockTrace FileTrace(const std::string& path, const std::string& format,
                     const std::string& columns, uint64_t max_records,
                     uint32_t block_bytes, double alpha, uint64_t file_bytes,
                     bool aligned) {
  const std::vector<TraceRecord> records =
      ReadTrace(path, ParseTraceOptions(format, columns, max_records));
  TraceLayoutOptions layout;
  layout.block_bytes = block_bytes;
  layout.alpha = alpha;
  layout.file_bytes = file_bytes;
  layout.aligned = aligned;
  BlockTrace trace = TraceFromRecords(records, layout);
  trace.description = path;
  return trace;
}

py::dict TwoLevelStudy(const BlockTrace& trace, uint64_t memory_bytes, double ca,
                       double ck, uint32_t points, const std::string& kernel,
                       uint32_t max_readahead_pages, bool exclusive, double warmup,
                       unsigned threads, bool progress) {
  StudyOptions options;
  options.memory_bytes = memory_bytes;
  options.costs = MissCosts{ca, ck};
  options.points = points;
  options.kernel = ParseKernelModelKind(kernel);
  options.max_readahead_pages = max_readahead_pages;
  options.exclusive = exclusive;
  options.warmup = warmup;
  options.threads = threads;
  options.progress = progress;
  StudyResult result;
  {
    py::gil_scoped_release release;
    result = RunTwoLevelStudy(trace, options);
  }
  py::list pts;
  for (const SplitPoint& p : result.points) pts.append(PointToDict(p));
  py::dict d;
  d["points"] = pts;
  d["best"] = PointToDict(result.best);
  d["counted_accesses"] = result.counted_accesses;
  return d;
}

py::dict KernelModels(const BlockTrace& trace, const std::vector<uint64_t>& capacities,
                      double rate, uint32_t group_blocks, uint32_t max_readahead_pages,
                      double warmup, unsigned threads, bool progress) {
  KernelStudyOptions options;
  options.capacities = capacities;
  options.sample_rate = rate;
  options.group_blocks = group_blocks;
  options.max_readahead_pages = max_readahead_pages;
  options.warmup = warmup;
  options.threads = threads;
  options.progress = progress;
  KernelStudyResult result;
  {
    py::gil_scoped_release release;
    result = RunKernelModelStudy(trace, options);
  }
  py::list curves;
  for (const KernelCurve& c : result.curves) {
    py::dict d;
    d["model"] = c.model;
    d["hit_ratio"] = c.hit_ratio;
    d["mean_abs_error"] = c.mean_abs_error;
    d["max_abs_error"] = c.max_abs_error;
    curves.append(d);
  }
  py::dict d;
  d["capacities"] = result.capacities;
  d["curves"] = curves;
  return d;
}

// The mean on-disk block size of a trace, rounded as
// DataLayout::mean_disk_block_bytes rounds it (for a workload trace it is
// that value: the trace's D_c is the layout's stored bytes). The Controller
// groups blocks for sampling by this nominal size.
uint32_t MeanDiskBlockBytes(const BlockTrace& trace) {
  const uint64_t n = trace.blocks.size();
  if (n == 0) return 4096;  // RunReplay rejects the empty trace
  const uint64_t mean = (trace.disk_bytes + n / 2) / n;
  return static_cast<uint32_t>(std::clamp<uint64_t>(mean, 1, UINT32_MAX));
}

py::dict Replay(const BlockTrace& trace, uint64_t memory_bytes, double ca, double ck,
                const std::string& kernel, const std::string& ghost_kernel,
                double sample_rate, uint32_t max_readahead_pages,
                uint64_t timeline_accesses, bool progress) {
  ReplayOptions options;
  options.controller.memory_bytes = memory_bytes;
  options.controller.costs = MissCosts{ca, ck};  // initial; measured online
  options.controller.block_disk_bytes = MeanDiskBlockBytes(trace);
  options.controller.sample_rate = sample_rate;
  options.controller.kernel_model = ParseKernelModelKind(ghost_kernel);
  options.controller.max_readahead_pages = max_readahead_pages;
  options.costs = MissCosts{ca, ck};
  options.kernel = ParseKernelModelKind(kernel);
  options.max_readahead_pages = max_readahead_pages;
  options.timeline_accesses = timeline_accesses;
  options.progress = progress;
  ReplayResult result;
  {
    py::gil_scoped_release release;
    result = RunReplay(trace, options);
  }
  py::dict d = py::module_::import("json").attr("loads")(ToJson(result.stats));
  py::list timeline;
  for (const ReplayPoint& p : result.timeline) {
    py::dict t;
    t["end_access"] = p.end_access;
    t["hit_app"] = p.hit_app;
    t["hit_second_tier"] = p.hit_second_tier;
    t["latency"] = p.latency;
    t["ma_bytes"] = p.ma_bytes;
    t["state"] = ControllerStateName(p.state);
    timeline.append(t);
  }
  d["initial_ma_bytes"] = options.controller.initial_ma_bytes;
  d["final_ma_bytes"] = result.final_ma_bytes;
  d["mean_latency"] = result.mean_latency;
  d["block_disk_bytes"] = options.controller.block_disk_bytes;
  d["timeline"] = timeline;
  return d;
}

TraceMrcOptions MrcOptions(const std::string& algorithm, bool bytes, double rate,
                           uint64_t max_keys, uint64_t min_keys, uint32_t k, double k_exponent,
                           uint32_t pool_size, bool with_replacement, double request_rate,
                           uint32_t key_bytes, uint64_t seed) {
  TraceMrcOptions o;
  o.algorithm = ParseMrcAlgorithm(algorithm);
  o.unit = bytes ? CacheUnit::kBytes : CacheUnit::kObjects;
  o.rate = rate;
  o.max_keys = max_keys;
  o.min_keys = min_keys;
  o.k = k;
  o.k_exponent = k_exponent;
  o.pool_size = pool_size;
  o.with_replacement = with_replacement;
  o.request_rate = request_rate;
  o.key_bytes = key_bytes;
  o.seed = seed;
  return o;
}

py::dict CurveToDict(const MissRatioCurve& c) {
  py::dict d;
  d["unit"] = c.unit == CacheUnit::kBytes ? "bytes" : "objects";
  d["sizes"] = c.sizes;
  d["miss_ratios"] = c.miss_ratios;
  if (c.unit == CacheUnit::kBytes) d["byte_miss_ratios"] = c.byte_miss_ratios;
  d["requests"] = c.requests;
  d["sampled_requests"] = c.sampled_requests;
  d["sample_rate"] = c.sample_rate;
  return d;
}

MissRatioCurve CurveFromDict(const py::dict& d) {
  MissRatioCurve c;
  c.unit = d["unit"].cast<std::string>() == "bytes" ? CacheUnit::kBytes : CacheUnit::kObjects;
  c.sizes = d["sizes"].cast<std::vector<uint64_t>>();
  c.miss_ratios = d["miss_ratios"].cast<std::vector<double>>();
  if (d.contains("byte_miss_ratios")) {
    c.byte_miss_ratios = d["byte_miss_ratios"].cast<std::vector<double>>();
  }
  c.requests = d["requests"].cast<uint64_t>();
  c.sampled_requests = d["sampled_requests"].cast<uint64_t>();
  c.sample_rate = d["sample_rate"].cast<double>();
  return c;
}

template <typename T>
py::array_t<T> ToArray(const std::vector<TraceRecord>& records, T TraceRecord::*field) {
  py::array_t<T> out(static_cast<py::ssize_t>(records.size()));
  T* data = out.mutable_data();
  for (size_t i = 0; i < records.size(); i++) data[i] = records[i].*field;
  return out;
}

py::dict PartitionedToDict(const PartitionedRecords& r) {
  py::list parts;
  for (const std::vector<TraceRecord>& part : r.partitions) {
    parts.append(py::make_tuple(ToArray(part, &TraceRecord::key),
                                ToArray(part, &TraceRecord::size),
                                ToArray(part, &TraceRecord::time_us)));
  }
  py::dict d;
  d["parts"] = parts;
  d["records"] = r.records;
  d["skipped"] = r.skipped;
  d["bytes"] = r.bytes;
  return d;
}

void FeedPartition(PartitionMrc& part, const py::array_t<uint64_t>& keys,
                   const py::array_t<uint32_t>& sizes, const py::array_t<uint64_t>& times) {
  const py::ssize_t n = keys.size();
  if (sizes.size() != n || times.size() != n) {
    throw InputError("feed: keys, sizes and times differ in length");
  }
  std::vector<TraceRecord> records(static_cast<size_t>(n));
  auto k = keys.unchecked<1>();
  auto s = sizes.unchecked<1>();
  auto t = times.unchecked<1>();
  for (py::ssize_t i = 0; i < n; i++) records[i] = TraceRecord{k(i), s(i), t(i)};
  py::gil_scoped_release release;
  part.Feed(records.data(), records.size());
}

py::dict Mrc(const std::string& path, const std::string& format, const std::string& columns,
             uint64_t max_records, const std::string& algorithm, bool bytes,
             const std::vector<uint64_t>& sizes, size_t points, double rate, uint64_t max_keys,
             uint64_t min_keys, uint32_t k, double k_exponent, uint32_t pool_size, bool with_replacement,
             double request_rate, uint32_t key_bytes, uint64_t seed, bool progress,
             const std::string& ops) {
  TraceOptions trace = ParseTraceOptions(format, columns, max_records);
  trace.ops = ParseTraceOps(ops);
  TraceMrcOptions o = MrcOptions(algorithm, bytes, rate, max_keys, min_keys, k, k_exponent,
                                 pool_size, with_replacement, request_rate, key_bytes, seed);
  o.sizes = sizes;
  o.points = points;
  TraceMrcResult r;
  {
    py::gil_scoped_release release;
    // One bar per pass, over the file's bytes (records when it is a pipe).
    std::unique_ptr<Progress> bar;
    int bar_pass = 0;
    uint64_t shown = 0;
    r = TraceMrc(path, trace, o, [&](uint64_t done, uint64_t total, int pass, int passes) {
      if (!progress) return;
      if (pass != bar_pass) {
        bar.reset();
        const std::string label = passes > 1 ? "pass " + std::to_string(pass) + "/" +
                                                   std::to_string(passes)
                                             : algorithm;
        bar = std::make_unique<Progress>(label, total, total > 0);
        bar_pass = pass;
        shown = 0;
      }
      bar->Advance(done - shown);
      shown = done;
    });
  }
  py::dict d;
  d["algorithm"] = algorithm;
  d["unit"] = bytes ? "bytes" : "objects";
  d["sizes"] = r.curve.sizes;
  d["miss_ratios"] = r.curve.miss_ratios;
  if (bytes) d["byte_miss_ratios"] = r.curve.byte_miss_ratios;
  d["requests"] = r.curve.requests;
  d["sampled_requests"] = r.curve.sampled_requests;
  d["sample_rate"] = r.curve.sample_rate;
  d["working_set"] = r.working_set;
  d["memory_bytes"] = r.memory_bytes;
  d["seconds"] = r.seconds;
  return d;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "libsymbiosis: cache models and offline studies";
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::set_error(input_error, e.what());
    }
  });

  py::class_<BlockTrace>(m, "BlockTrace")
      .def_property_readonly("num_blocks", [](const BlockTrace& t) { return t.blocks.size(); })
      .def_property_readonly("num_accesses", [](const BlockTrace& t) { return t.accesses.size(); })
      .def_readonly("data_bytes", &BlockTrace::data_bytes)
      .def_readonly("disk_bytes", &BlockTrace::disk_bytes)
      .def_readonly("description", &BlockTrace::description)
      .def("misaligned_fraction", [](const BlockTrace& t) {
        uint64_t n = 0;
        for (const Block& b : t.blocks) n += b.page_count() > (b.disk_size + kPageSize - 1) / kPageSize;
        return t.blocks.empty() ? 0.0 : static_cast<double>(n) / t.blocks.size();
      }, "Fraction of blocks touching more pages than their size needs.");

  m.def("workload_trace", &WorkloadTrace, py::arg("data_bytes"), py::arg("alpha"),
        py::arg("block_bytes"), py::arg("entry_bytes"), py::arg("file_bytes"),
        py::arg("aligned"), py::arg("workload"), py::arg("accesses"), py::arg("seed"),
        "Block accesses of a synthetic workload over a synthetic layout "
        "(accesses=0: 20 per block).");
  m.def("file_trace", &FileTrace, py::arg("path"), py::arg("format"), py::arg("columns"),
        py::arg("max_records"), py::arg("block_bytes"), py::arg("alpha"),
        py::arg("file_bytes"), py::arg("aligned"),
        "Block accesses of a recorded trace; each distinct key is a block.");
  m.def("two_level_study", &TwoLevelStudy, py::arg("trace"), py::arg("memory_bytes"),
        py::arg("ca"), py::arg("ck"), py::arg("points"), py::arg("kernel"),
        py::arg("max_readahead_pages"), py::arg("exclusive"), py::arg("warmup"),
        py::arg("threads"), py::arg("progress"),
        "Sweep M_a from 0 to M; H_a, H_k and L_e at each split.");
  m.def("kernel_models", &KernelModels, py::arg("trace"), py::arg("capacities"),
        py::arg("rate"), py::arg("group_blocks"), py::arg("max_readahead_pages"),
        py::arg("warmup"), py::arg("threads"), py::arg("progress"),
        "Hit-ratio curves of kernel models and sampled ghosts against the full page model.");
  m.def("replay", &Replay, py::arg("trace"), py::arg("memory_bytes"), py::arg("ca"),
        py::arg("ck"), py::arg("kernel"), py::arg("ghost_kernel"), py::arg("sample_rate"),
        py::arg("max_readahead_pages"), py::arg("timeline_accesses"), py::arg("progress"),
        "Run the online Controller over a trace, with the engine's hits and misses "
        "from the simulator's models: its rounds (ToJson of its stats), "
        "final_ma_bytes, mean_latency and a timeline of L_e and M_a.");
  m.def("mrc", &Mrc, py::arg("path"), py::arg("format"), py::arg("columns"),
        py::arg("max_records"), py::arg("algorithm"), py::arg("bytes"), py::arg("sizes"),
        py::arg("points"), py::arg("rate"), py::arg("max_keys"), py::arg("min_keys"), py::arg("k"),
        py::arg("k_exponent"), py::arg("pool_size"), py::arg("with_replacement"),
        py::arg("request_rate"), py::arg("key_bytes"), py::arg("seed"), py::arg("progress"),
        py::arg("ops") = "reads,writes",
        "The miss-ratio curve of a trace file (see trace_mrc.h): a dict with sizes, "
        "miss_ratios (byte_miss_ratios in bytes mode), requests, sampled_requests, "
        "sample_rate, working_set, memory_bytes and seconds.");
  py::class_<PartitionedReader>(m, "PartitionedReader",
                                "A byte range of a trace read in batches split by key "
                                "(trace_partition.h).")
      .def(py::init([](const std::string& path, const std::string& format,
                       const std::string& columns, const std::string& ops, uint64_t start_byte,
                       uint64_t end_byte, uint32_t partitions, bool require_sizes) {
             TraceOptions options = ParseTraceOptions(format, columns, 0);
             options.ops = ParseTraceOps(ops);
             options.start_byte = start_byte;
             options.end_byte = end_byte;
             py::gil_scoped_release release;
             return std::make_unique<PartitionedReader>(path, options, partitions,
                                                        require_sizes);
           }),
           py::arg("path"), py::arg("format"), py::arg("columns"), py::arg("ops"),
           py::arg("start_byte"), py::arg("end_byte"), py::arg("partitions"),
           py::arg("require_sizes"))
      .def("read", [](PartitionedReader& reader, size_t max_records) -> py::object {
        PartitionedRecords r;
        bool more;
        {
          py::gil_scoped_release release;
          more = reader.Read(max_records, &r);
        }
        if (!more) return py::none();
        return PartitionedToDict(r);
      }, py::arg("max_records"),
         "The next batch: a dict of parts (per partition, numpy arrays of keys, sizes and "
         "times), records, skipped and bytes; None at the range's end.");
  m.def("trace_is_compressed", &TraceIsCompressed, py::arg("path"));
  m.def("even_sizes", &EvenSizes, py::arg("working_set"), py::arg("count"));
  m.def("partition_sizes", &PartitionSizes, py::arg("sizes"), py::arg("share"));
  m.def("mrc_simulates", [](const std::string& algorithm) {
    return MrcSimulates(ParseMrcAlgorithm(algorithm));
  }, py::arg("algorithm"), "Whether the method simulates a cache per size (trace_mrc.h).");
  m.def("check_mrc_sizes", [](const std::vector<uint64_t>& sizes,
                              std::optional<uint64_t> working_set, const std::string& algorithm,
                              bool bytes, double rate) {
    TraceMrcOptions o;
    o.algorithm = ParseMrcAlgorithm(algorithm);
    o.unit = bytes ? CacheUnit::kBytes : CacheUnit::kObjects;
    o.rate = rate;
    CheckMrcSizes(o, sizes, working_set);
  }, py::arg("sizes"), py::arg("working_set"), py::arg("algorithm"), py::arg("bytes"),
        py::arg("rate"), "CheckMrcSizes (trace_mrc.h): InputError for bad sizes.");
  m.def("merge_partition_curves", [](const std::vector<uint64_t>& sizes, const py::list& parts) {
    std::vector<PartitionCurve> curves;
    for (const py::handle& h : parts) {
      const py::dict d = h.cast<py::dict>();
      PartitionCurve c;
      c.share = d["share"].cast<double>();
      c.curve = CurveFromDict(d["curve"].cast<py::dict>());
      c.requests = d["requests"].cast<uint64_t>();
      c.requested_bytes = d["requested_bytes"].cast<double>();
      curves.push_back(std::move(c));
    }
    return CurveToDict(MergePartitionCurves(sizes, curves));
  }, py::arg("sizes"), py::arg("parts"),
        "The whole trace's curve at sizes from its partitions' (dicts of share, curve, "
        "requests, requested_bytes).");
  py::class_<PartitionMrc>(m, "PartitionMrc",
                           "One partition's curve builder (trace_partition.h).")
      .def(py::init([](const std::string& algorithm, bool bytes, double rate, uint64_t max_keys,
                       uint64_t min_keys, uint32_t k, double k_exponent, uint32_t pool_size,
                       bool with_replacement, double request_rate, uint32_t key_bytes,
                       uint64_t seed, const std::vector<uint64_t>& sim_sizes) {
             return std::make_unique<PartitionMrc>(
                 MrcOptions(algorithm, bytes, rate, max_keys, min_keys, k, k_exponent, pool_size,
                            with_replacement, request_rate, key_bytes, seed),
                 sim_sizes);
           }),
           py::arg("algorithm"), py::arg("bytes"), py::arg("rate"), py::arg("max_keys"),
           py::arg("min_keys"), py::arg("k"), py::arg("k_exponent"), py::arg("pool_size"),
           py::arg("with_replacement"), py::arg("request_rate"), py::arg("key_bytes"),
           py::arg("seed"), py::arg("sim_sizes"))
      .def("feed", &FeedPartition, py::arg("keys"), py::arg("sizes"), py::arg("times"))
      .def("working_set", &PartitionMrc::WorkingSet)
      .def("curve", [](PartitionMrc& p, const std::vector<uint64_t>& sizes) {
        MissRatioCurve c;
        {
          py::gil_scoped_release release;
          c = p.Curve(sizes);
        }
        return CurveToDict(c);
      }, py::arg("sizes"))
      .def_property_readonly("requests", &PartitionMrc::requests)
      .def_property_readonly("requested_bytes", &PartitionMrc::requested_bytes)
      .def("memory_bytes", &PartitionMrc::MemoryUsage);
  m.def("kernel_model_names", &KernelStudyModels);
  m.def("redis_key_bytes", &RedisKeyBytes, py::arg("key_bytes"), py::arg("value_bytes"),
        "What one key of a string value costs a redis-server 7.0's used_memory.");
  m.def("redis_table_bytes", &RedisTableBytes, py::arg("keys"),
        "A redis-server 7.0's keyspace table for this many keys, in bytes.");
  m.def("parse_bytes", [](const std::string& text, const std::string& what) {
    return ParseBytes(text, what);
  });
  m.def("parse_count", [](const std::string& text, const std::string& what) {
    return ParseCount(text, what);
  });
  m.def("parse_seconds", [](const std::string& text, const std::string& what) {
    return ParseSeconds(text, what);
  });
  m.def("workload_names", &WorkloadNames);
  m.def("check_workload", [](const std::string& spec, uint64_t num_keys, uint32_t entry_bytes) {
    MakeWorkload(spec, num_keys, entry_bytes, 1);
  }, py::arg("spec"), py::arg("num_keys"), py::arg("entry_bytes"),
        "Raises InputError unless `spec` makes a workload over `num_keys` keys.");
  m.def("parse_phases", [](const std::string& text) {
    py::list out;
    for (const Phase& p : ParsePhases(text)) {
      py::dict d;
      d["spec"] = p.spec;
      d["data_bytes"] = p.data_bytes;
      d["requests"] = p.requests;
      out.append(d);
    }
    return out;
  }, py::arg("text"), "The phases of \"spec@size*count;...\" (InputError if bad).");
}
