// The "model" section of a description file (model_spec.hpp,
// docs/kernel-description.md `model`): the accesses the analytical model
// replays, read strictly like the rest of the file (description_fields.hpp).
#include <memtune/description/model_spec.hpp>

#include "description_fields.hpp"

namespace memtune::description_detail {

using nlohmann::ordered_json;

namespace {

// The fields a global and a shared access share: name, "access": "load" |
// "store", index, vector, iterations, "if".
template <class Access> void read_access(const FieldReader& r, const ordered_json& j, const std::string& path, Access& a) {
  a.name = j.contains("name") ? r.string(j.at("name"), path + ".name") : path;
  const std::string access = r.string(r.required(j, "access", path), path + ".access");
  if (access == "load") a.kind = model::AccessKind::load;
  else if (access == "store") a.kind = model::AccessKind::store;
  else r.fail(path + ".access", "'" + access + "' is not an access (load, store; an atomic is written as a store)");
  a.index = r.expr(r.required(j, "index", path), path + ".index");
  if (j.contains("vector")) a.vector = r.expr(j.at("vector"), path + ".vector");
  if (j.contains("iterations")) a.iterations = r.expr(j.at("iterations"), path + ".iterations");
  if (j.contains("if")) a.active = r.expr(j.at("if"), path + ".if");
}

} // namespace

ModelSpec read_model_section(const FieldReader& r, const ordered_json& j) {
  r.fields(j, "model", {"locals", "global", "shared", "loads_in_flight", "compute_per_thread", "barrier", "bank_bytes"});
  ModelSpec m;
  if (j.contains("locals"))
    for (const auto& [name, value] : r.object(j.at("locals"), "model.locals").items())
      m.locals.emplace_back(name, r.expr(value, "model.locals." + name));
  if (j.contains("global")) {
    const auto& list = r.array(j.at("global"), "model.global");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "model.global[" + std::to_string(i) + "]";
      r.fields(list[i], path, {"name", "buffer", "access", "index", "vector", "iterations", "if", "cache"});
      GlobalAccessSpec g;
      g.buffer = r.string(r.required(list[i], "buffer", path), path + ".buffer");
      read_access(r, list[i], path, g);
      if (list[i].contains("cache")) {
        const std::string cache = r.string(list[i].at("cache"), path + ".cache");
        if (cache == "default") g.path = GlobalPath::standard;
        else if (cache == "read_only") g.path = GlobalPath::read_only;
        else if (cache == "l2_only") g.path = GlobalPath::l2_only;
        else r.fail(path + ".cache", "'" + cache + "' is not a load path (default, read_only: __ldg, l2_only: __ldcg)");
        if (g.kind != model::AccessKind::load) r.fail(path + ".cache", "only a load chooses its cache");
      }
      m.global.push_back(std::move(g));
    }
  }
  if (j.contains("shared")) {
    const auto& list = r.array(j.at("shared"), "model.shared");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "model.shared[" + std::to_string(i) + "]";
      r.fields(list[i], path, {"name", "access", "index", "element_bytes", "vector", "iterations", "if"});
      SharedAccessSpec s;
      read_access(r, list[i], path, s);
      if (list[i].contains("element_bytes")) s.element_bytes = r.expr(list[i].at("element_bytes"), path + ".element_bytes");
      m.shared.push_back(std::move(s));
    }
  }
  if (m.global.empty() && m.shared.empty()) r.fail("model", "no access: list the kernel's global (and shared) accesses");
  if (j.contains("loads_in_flight")) m.loads_in_flight = r.expr(j.at("loads_in_flight"), "model.loads_in_flight");
  if (j.contains("compute_per_thread")) m.compute_per_thread = r.expr(j.at("compute_per_thread"), "model.compute_per_thread");
  if (j.contains("barrier")) {
    const auto& b = j.at("barrier");
    m.barrier = b.is_boolean() ? search::Expr(b.get<bool>() ? 1 : 0) : r.expr(b, "model.barrier");
  }
  if (j.contains("bank_bytes")) m.bank_bytes = r.expr(j.at("bank_bytes"), "model.bank_bytes");
  return m;
}

} // namespace memtune::description_detail
