#include "checker/sweep/sweep.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "properties/family_property.hpp"
#include "properties/catalog.hpp"
#include "properties/plan/decision_plan.hpp"
#include "reports/summary.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

std::vector<SweepTarget> resolve_targets(const std::string& algo, const std::string& variant, bool torus) {
  std::vector<SweepTarget> out;
  std::vector<const AlgorithmInfo*> algos;
  if (algo == "all") {
    for (const auto& a : registry()) algos.push_back(&a);
  } else {
    const AlgorithmInfo* a = find_algorithm(algo);
    if (!a) {
      std::string names;
      for (const auto& x : registry()) names += (names.empty() ? "" : ", ") + x.name;
      throw InputError("unknown algorithm " + quote_input(algo) + " (known: " + names + ", all)");
    }
    algos.push_back(a);
  }
  for (const AlgorithmInfo* a : algos) {
    // --algo all leaves out the torus algorithms: they need --dims, which no other algorithm takes.
    if (algos.size() > 1 && a->default_variant().takes("dims")) continue;
    // The variants --dims selects (or, without it, leaves out); all of them
    // if none would remain.
    std::vector<const VariantInfo*> shaped;
    for (const auto& v : a->variants)
      if (v.takes("dims") == torus) shaped.push_back(&v);
    if (shaped.empty())
      for (const auto& v : a->variants) shaped.push_back(&v);
    if (variant.empty() || variant == "default") {
      out.push_back({a, shaped.front()});
    } else if (variant == "all") {
      for (const VariantInfo* v : shaped) out.push_back({a, v});
    } else {
      const VariantInfo* v = a->find_variant(variant);
      if (!v) {
        if (algos.size() > 1) continue;  // --algo all --variant latency: those that have it
        std::string names;
        for (const auto& x : a->variants) names += (names.empty() ? "" : ", ") + x.name;
        throw InputError("unknown variant " + quote_input(variant) + " of " + a->name + " (known: " + names + ", all)");
      }
      out.push_back({a, v});
    }
  }
  if (out.empty()) throw InputError("no algorithm has a variant named " + quote_input(variant));
  return out;
}

std::vector<std::string> split_name_list(const std::string& option, const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw InputError("--" + option + ": empty item in " + quote_input(text) + " (a comma list of names)");
    out.push_back(std::move(item));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<SweepTarget> resolve_target_list(const std::string& algos, const std::string& variants, bool torus) {
  const std::vector<std::string> as = split_name_list("algo", algos), vs = split_name_list("variant", variants);
  for (const std::string& a : as)
    if (a != "all" && !find_algorithm(a)) resolve_targets(a, "default", torus);  // throws: unknown algorithm
  std::vector<SweepTarget> out;
  for (const std::string& v : vs) {
    bool found = false;
    for (const std::string& a : as) {
      // With several algorithms, one that lacks a named variant is passed over (as --algo all does).
      const AlgorithmInfo* info = find_algorithm(a);
      if (as.size() > 1 && info && v != "default" && v != "all" && !info->find_variant(v)) continue;
      std::vector<SweepTarget> ts;
      try {
        ts = resolve_targets(a, v, torus);
      } catch (const InputError&) {
        if (as.size() == 1) throw;  // the single algorithm's own message (unknown variant, known ones listed)
        continue;                   // --algo all,... without that variant
      }
      found = true;
      for (SweepTarget& t : ts)
        if (std::none_of(out.begin(), out.end(), [&](const SweepTarget& o) {
              return o.algorithm == t.algorithm && o.variant == t.variant;
            }))
          out.push_back(std::move(t));
    }
    if (!found)
      throw InputError("no algorithm of --algo " + quote_input(algos) + " has a variant named " + quote_input(v));
  }
  return out;
}

void check_property_selection(const SweepRequest& req) {
  for (const std::string& name : req.check.properties) {
    const auto& cat = property_catalog();
    auto it = std::find_if(cat.begin(), cat.end(), [&](const PropertyInfo& i) { return i.name == name; });
    if (it == cat.end()) {
      std::string names;
      for (const auto& i : cat) names += (names.empty() ? "" : ", ") + i.name;
      throw InputError("unknown property " + quote_input(name) + " (known: " + names + ")");
    }
    if (it->generic) continue;
    bool applies = false;
    for (const auto& t : req.targets) {
      const auto& own = t.variant->family_properties;
      applies = applies || std::find(own.begin(), own.end(), name) != own.end();
    }
    if (!applies) throw InputError("property " + quote_input(name) + " applies to none of the requested algorithms");
  }
}

std::vector<uint32_t> SweepTarget::radices(uint64_t p) const {
  if (!shapes.empty()) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < shapes.size(); ++i) {
      uint64_t prod = 1;
      for (uint32_t x : shapes[i]) prod *= x;
      if (prod == p) out.push_back(static_cast<uint32_t>(i + 1));
    }
    if (out.empty()) out.push_back(0);
    return out;
  }
  // p = 1 has no radix 2 <= r <= p: its one instance uses the variant's default.
  if (!all_radices || p < 2) return {0};
  std::vector<uint32_t> out;
  for (uint64_t r = 2; r <= p; ++r) out.push_back(static_cast<uint32_t>(r));
  return out;
}

void check_request_size(const std::vector<SweepTarget>& targets, const std::vector<uint64_t>& ps) {
  uint64_t n = 0;  // counted, nothing built (--radix all reaches 2^44)
  for (const auto& t : targets)
    for (uint64_t p : ps) n += t.shapes.empty() ? (t.all_radices && p >= 2 ? p - 1 : 1) : t.radices(p).size();
  if (n > kMaxSweepInstances)
    throw InputError("the request has " + std::to_string(n) + " instances, more than " + kMaxSweepInstancesText +
                     "; split the sweep");
}

std::string restriction_refusal(const SweepTarget& t, uint64_t p, const InstanceParams& ip, const std::string& why) {
  const std::string label = ip.label();
  return t.algorithm->name + "/" + t.variant->name + ": p = " + std::to_string(p) +
         (label.empty() ? "" : " (" + label + ")") + " is outside its restriction: " + why +
         " (use --skip-restricted to skip such instances)";
}

void check_restrictions(const SweepRequest& req) {
  check_property_selection(req);
  check_request_size(req.targets, req.ps);
  for (const auto& t : req.targets)
    for (uint64_t p : req.ps)
      for (uint32_t r : t.radices(p)) {
        const InstanceParams ip = t.params(p, r);
        if (auto why = t.variant->violates(ip)) {
          if (req.skip_restricted) continue;
          throw InputError(restriction_refusal(t, p, ip, *why));
        }
        if (p <= 4096 || !runs_engine(req.check)) continue;  // small ones fit; large ones are built to learn nblocks
        // The limits grow with nblocks: if the most blocks pass, any count does,
        // and nothing is built (fingerprint mode with interval state at every large p).
        if (!infeasible(p, UINT64_MAX, req.check)) continue;
        auto s = t.variant->make(ip);
        if (auto why = infeasible(*s, req.check))
          throw InputError(t.algorithm->name + "/" + t.variant->name + ": " + *why);
      }
}

InstanceResult instance_header(const SweepTarget& t, uint64_t p, uint32_t radix) {
  InstanceResult res;
  res.algorithm = t.algorithm->name;
  res.variant = t.variant->name;
  res.collective = to_string(t.algorithm->collective);
  res.p = p;
  res.params = t.params(p, radix).label();
  if (auto why = t.variant->violates(t.params(p, radix))) {
    res.status = Status::skipped;
    res.skip_reason = *why;
  }
  return res;
}

InstanceResult check_instance(const SweepTarget& t, uint64_t p, const CheckOptions& o, uint32_t radix) {
  auto start = std::chrono::steady_clock::now();
  InstanceResult res = instance_header(t, p, radix);
  if (res.status == Status::skipped) return res;
  InstanceParams ip = t.params(p, radix);
  // The variant's family properties that run (properties/family_property.hpp).
  const FamilyPlan plan = plan_family_properties(*t.variant, ip, o);
  // The memory guard (--max-memory), before anything large is allocated:
  // the family properties here, the generic ones in check_schedule.
  auto refuse = [&](const std::string& why) {
    res.status = Status::skipped;
    res.skip_reason = why;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  if (const auto [need, name] = family_memory(plan, *t.variant, ip); o.max_memory && need > o.max_memory)
    return refuse(refusal({need, name + " state"}, o.max_memory));
  if (runs_engine(o)) {
    auto schedule = t.variant->make(ip);
    Claim claim = t.variant->claim(ip);
    InstanceCheck ic = check_schedule(*schedule, &claim, plan.hook, o);
    if (ic.refused) return refuse(ic.refused->reason);
    for (Verdict& v : ic.verdicts)
      if (o.selected(v.property)) res.verdicts.push_back(std::move(v));
    res.stats = std::move(ic.stats);
    res.stats["mode"] = ic.mode;
    if (ic.decided_by) res.decided_by = ic.decided_by->method;
    for (const Declined& d : ic.declined) res.declined_methods |= method_bit(d.method);
  }
  std::vector<std::string> after;
  for (const FamilyProperty* fp : plan.checks) after.push_back(fp->name);
  for (Verdict& v : check_family_properties(after, *t.variant, ip)) res.verdicts.push_back(std::move(v));
  if (res.verdicts.empty()) {
    res.status = Status::skipped;
    res.skip_reason = "none of the selected properties applies";
  } else {
    res.status = combined_status(res.verdicts);
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

namespace {

// Progress with ETA on stderr, printed only once a sweep has run for 2 s.
class Progress {
 public:
  Progress(bool enabled, double total_work) : enabled_(enabled), total_(total_work) {
    if (enabled_) thread_ = std::thread([this] { loop(); });
  }
  ~Progress() {
    if (!enabled_) return;
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (printed_) std::fprintf(stderr, "\n");
  }
  void add(double work) {
    double cur = done_.load();
    while (!done_.compare_exchange_weak(cur, cur + work)) {
    }
    finished_++;
  }
  void set_instances(size_t n) { instances_ = n; }

 private:
  void loop() {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lk(m_);
    while (!cv_.wait_for(lk, std::chrono::seconds(2), [this] { return stop_; })) {
      double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      double frac = total_ > 0 ? done_.load() / total_ : 0;
      double eta = frac > 0 ? el / frac - el : 0;
      std::fprintf(stderr, "\rcollcheck: %zu/%zu instances, %5.1f%% of the work, %.0f s elapsed, ETA %.0f s   ",
                   finished_.load(), instances_, 100 * frac, el, eta);
      std::fflush(stderr);
      printed_ = true;
    }
  }
  bool enabled_;
  double total_;
  std::atomic<double> done_{0};
  std::atomic<size_t> finished_{0};
  size_t instances_ = 0;
  bool stop_ = false;
  bool printed_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace

void make_lean(InstanceResult& r) {
  if (r.status != Status::holds) return;
  for (Verdict& v : r.verdicts) {
    v.stats.clear();
    v.property.shrink_to_fit();
  }
  r.verdicts.shrink_to_fit();
  std::map<std::string, std::string> kept;
  for (const char* k : {"method", "mode"})
    if (auto it = r.stats.find(k); it != r.stats.end()) kept.emplace(k, std::move(it->second));
  r.stats = std::move(kept);
}

std::vector<SweepJob> sweep_jobs(const SweepRequest& req) {
  std::vector<SweepJob> jobs;
  for (size_t t = 0; t < req.targets.size(); ++t)
    for (uint64_t p : req.ps)
      for (uint32_t r : req.targets[t].radices(p)) jobs.push_back({t, p, r});
  return jobs;
}

Report run_sweep(const SweepRequest& req) {
  check_restrictions(req);
  auto start = std::chrono::steady_clock::now();
  using Job = SweepJob;
  const std::vector<Job> jobs = sweep_jobs(req);
  // The progress' work per instance: p^2 (rank-by-rank state), or p where
  // the grouped quotient or a fold composition over it takes the target's
  // instances (asked once per target and parity of p, at the largest p).
  std::vector<std::array<bool, 2>> linear(req.targets.size(), {false, false});
  if (runs_engine(req.check))
    for (size_t t = 0; t < req.targets.size(); ++t)
      for (int parity : {0, 1}) {
        auto it = std::find_if(req.ps.rbegin(), req.ps.rend(), [&](uint64_t p) { return p % 2 == uint64_t(parity); });
        if (it == req.ps.rend()) continue;
        const InstanceParams ip = req.targets[t].params(*it, 0);
        if (req.targets[t].variant->violates(ip) || !req.targets[t].shapes.empty()) continue;
        try {
          linear[t][parity] =
              builds_on_grouped_quotient(planned_method(*req.targets[t].variant->make(ip), req.check).method);
        } catch (const std::exception&) {
        }
      }
  auto work_of = [&](const Job& j) {
    const double p = static_cast<double>(j.p);
    return (linear[j.target][j.p % 2] ? 64 * p : p * p) + 1000.0;
  };
  // Larger instances first keeps both cores busy to the end; results land in
  // fixed slots (a shard's `order` holds only its own jobs).
  std::vector<size_t> order;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!req.run_here || req.run_here(i)) order.push_back(i);
  double total = 0;
  for (size_t i : order) total += work_of(jobs[i]);
  std::vector<InstanceResult> slots(jobs.size());
  const bool lean = jobs.size() > kLeanAbove;
  {
    Progress progress(req.progress, total);
    progress.set_instances(order.size());
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].p > jobs[b].p; });
    run_with_threads(req.threads, [&] {
      tbb::parallel_for(size_t{0}, order.size(), [&](size_t k) {
        const Job& j = jobs[order[k]];
        std::optional<InstanceResult> stored;
        if (req.reuse) stored = req.reuse(order[k], instance_header(req.targets[j.target], j.p, j.radix));
        if (stored) {
          slots[order[k]] = std::move(*stored);
        } else {
          slots[order[k]] = check_instance(req.targets[j.target], j.p, req.check, j.radix);
          if (req.on_finished) req.on_finished(order[k], slots[order[k]]);
          if (lean) make_lean(slots[order[k]]);
        }
        progress.add(work_of(j));
      });
    });
  }
  Report r;
  r.kind = "verify";
  r.seed = req.check.seed;
  r.mode = std::string(to_string(req.check.exactness));
  if (req.check.exactness == Exactness::automatic)
    r.mode += " (exact for p <= " + std::to_string(req.check.exact_max_p) + ", fingerprint above)";
  r.instances = std::move(slots);
  if (!req.check.trace_root_causes && !req.run_here) trace_shown_root_causes(r, req);
  VariantNames targets;  // not from r.instances: a shard holds only its own results
  for (const auto& t : req.targets) targets.push_back({t.algorithm->name, t.variant->name});
  add_registry_expectations(r, targets, true);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void trace_shown_root_causes(Report& r, const SweepRequest& req) {
  // Grouping the instances costs about what rendering them does: only when
  // some counterexample could be traced (a holding sweep has none).
  const bool any = std::any_of(r.instances.begin(), r.instances.end(), [](const InstanceResult& i) {
    return std::any_of(i.verdicts.begin(), i.verdicts.end(),
                       [](const Verdict& v) { return v.counterexample && !v.counterexample->root_cause; });
  });
  if (!any) return;
  const std::vector<SweepJob> jobs = sweep_jobs(req);
  if (jobs.size() != r.instances.size()) return;  // not this request's report
  std::map<size_t, std::vector<Verdict*>> shown;   // by instance
  for (const reports_detail::Group& g : reports_detail::group_instances(r))
    for (const reports_detail::PropertySummary& ps : g.properties) {
      if (!ps.minimal || !ps.minimal_instance) continue;
      const auto k = static_cast<size_t>(ps.minimal_instance - r.instances.data());
      for (Verdict& v : r.instances[k].verdicts)
        if (v.property == ps.property && v.counterexample && !v.counterexample->root_cause &&
            !(*v.counterexample < *ps.minimal) && !(*ps.minimal < *v.counterexample))
          shown[k].push_back(&v);
    }
  std::vector<std::pair<size_t, std::vector<Verdict*>>> work(shown.begin(), shown.end());
  run_with_threads(req.threads, [&] {
    tbb::parallel_for(size_t{0}, work.size(), [&](size_t w) {
      const SweepJob& j = jobs[work[w].first];
      const SweepTarget& t = req.targets[j.target];
      explain_final_values(*t.variant->make(t.params(j.p, j.radix)), work[w].second);
    });
  });
}

void add_registry_expectations(Report& r, const VariantNames& variants, bool notes) {
  for (const auto& [algorithm, variant] : variants) {
    const AlgorithmInfo* a = find_algorithm(algorithm);
    const VariantInfo* v = a ? a->find_variant(variant) : nullptr;
    if (!v || v->expected_to_hold || !r.expected_refutations.insert({algorithm, variant}).second) continue;
    if (notes)
      r.notes.push_back(a->name + "/" + v->name + " is a paper rule (as printed, or as collcheck reads it: see " +
                        "`collcheck list`) that collcheck refutes: " + v->known_failure);
  }
}

VariantNames variants_of(const std::vector<InstanceResult>& instances) {
  VariantNames out;
  for (const InstanceResult& i : instances) out.push_back({i.algorithm, i.variant});
  return out;
}

void run_with_threads(int threads, const std::function<void()>& f) {
  if (threads <= 0) return f();
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads));
  tbb::task_arena arena(threads);
  arena.execute(f);
}

bool refused_by_memory_guard(const InstanceResult& i) {
  return i.status == Status::skipped && is_refusal(i.skip_reason);
}

int exit_code(const Report& r) {
  // An instance the memory guard refused was not decided: exit 3 (unknown)
  // unless a property is violated elsewhere, never 0 or 77.
  const Status s = r.status();
  if (s != Status::violated && std::any_of(r.instances.begin(), r.instances.end(), refused_by_memory_guard)) return 3;
  switch (s) {
    case Status::holds: return 0;
    case Status::violated: return 1;
    case Status::unknown: return 3;
    case Status::skipped: return 77;
  }
  return 3;
}

}  // namespace collcheck
