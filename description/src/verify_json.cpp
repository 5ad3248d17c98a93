// The parts of a description file about checking a kernel's outputs that
// stand on their own: a tolerance, a reduced comparison (verify.reduce) and
// the baselines memtune provides (description_fields.hpp).
#include "description_fields.hpp"

namespace memtune::description_detail {

Tolerance read_tolerance(const FieldReader& r, const nlohmann::ordered_json& j, const std::string& path) {
  const auto& t = r.fields(j, path, {"abs", "rel"});
  Tolerance out{0.0, 0.0};
  if (t.contains("abs")) out.abs = r.number(t.at("abs"), path + ".abs");
  if (t.contains("rel")) out.rel = r.number(t.at("rel"), path + ".rel");
  return out;
}

ReducedOutput read_reduced(const FieldReader& r, const nlohmann::ordered_json& j, const std::string& path) {
  r.fields(j, path, {"buffer", "op", "count", "tolerance"});
  ReducedOutput out;
  out.buffer = r.string(r.required(j, "buffer", path), path + ".buffer");
  const std::string op = r.string(r.required(j, "op", path), path + ".op");
  if (op == "sum") out.op = ReducedOutput::Op::sum;
  else if (op == "min") out.op = ReducedOutput::Op::min;
  else if (op == "max") out.op = ReducedOutput::Op::max;
  else if (op == "count") out.op = ReducedOutput::Op::count;
  else r.fail(path + ".op", "'" + op + "' is not a reduction (sum, min, max, count)");
  out.count = r.expr(r.required(j, "count", path), path + ".count");
  if (j.contains("tolerance")) out.tolerance = read_tolerance(r, j.at("tolerance"), path + ".tolerance");
  return out;
}

// "baselines": {"cublas": {"call": "cublas_sgemv", "buffers": {...}, "values": {...}}}
std::map<std::string, LibraryBaseline> read_baselines(const FieldReader& r, const nlohmann::ordered_json& section) {
  std::map<std::string, LibraryBaseline> baselines;
  for (const auto& [name, spec] : r.object(section, "baselines").items()) {
    const std::string path = "baselines." + name;
    const auto& b = r.fields(spec, path, {"call", "buffers", "values"});
    LibraryBaseline baseline;
    baseline.call = r.string(r.required(b, "call", path), path + ".call");
    if (b.contains("buffers"))
      for (const auto& [operand, buffer] : r.object(b.at("buffers"), path + ".buffers").items())
        baseline.buffers[operand] = r.string(buffer, path + ".buffers." + operand);
    if (b.contains("values"))
      for (const auto& [operand, value] : r.object(b.at("values"), path + ".values").items())
        baseline.values.insert_or_assign(operand, r.expr(value, path + ".values." + operand));
    baselines[name] = std::move(baseline);
  }
  return baselines;
}

} // namespace memtune::description_detail
