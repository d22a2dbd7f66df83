// check-file on MSCCL algorithm XML (see check_msccl_file.hpp).
#include "checker/cli/check_msccl_file.hpp"

#include <algorithm>
#include <chrono>

#include "checker/cli/cli_support.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "schedules/formats/msccl_check.hpp"

namespace collcheck {
namespace {

// collcheck's name of the program's collective ("custom" has none).
std::string collective_name(msccl::Collective c) {
  switch (c) {
    case msccl::Collective::allreduce: return to_string(Collective::allreduce);
    case msccl::Collective::allgather: return to_string(Collective::allgather);
    case msccl::Collective::reduce_scatter: return to_string(Collective::reduce_scatter);
    case msccl::Collective::alltoall: return to_string(Collective::alltoall);
    case msccl::Collective::custom: return "custom";
  }
  return "custom";
}

// One mode's verdicts as an instance: variant "msccl-in-place" or
// "msccl-out-of-place", so the report names the mode of every verdict.
InstanceResult instance(const std::string& path, const msccl::Program& prog, msccl::CheckResult cr) {
  InstanceResult res;
  res.algorithm = "file:" + path;
  res.variant = std::string("msccl-") + msccl::to_string(cr.mode);
  res.collective = collective_name(prog.coll);
  res.p = static_cast<uint64_t>(prog.ngpus);
  res.verdicts = std::move(cr.verdicts);
  res.stats = std::move(cr.stats);
  res.status = combined_status(res.verdicts);
  return res;
}

std::vector<std::string> notes(const msccl::Program& prog) {
  std::vector<std::string> n;
  n.push_back("MSCCL XML '" + prog.name + "' (" + std::to_string(prog.chunk_factor) +
              " chunk(s) per rank): FIFO matching per (gpu, peer, channel), happens-before (tb order, "
              "depid/deps, messages) with races, and contribution multisets against the collective; unbounded "
              "connection buffers, no protocol or timing model; step = the step's s in its threadblock");
  std::string modes;
  for (msccl::Mode m : msccl::modes(prog)) modes += std::string(modes.empty() ? "" : " and ") + msccl::to_string(m);
  n.push_back("checked " + modes + " (<algo inplace=\"" + (prog.inplace ? "1" : "0") + "\" outofplace=\"" +
              (prog.outofplace ? "1" : "0") + "\">), each mode its own instance");
  if (prog.coll == msccl::Collective::custom)
    n.push_back("coll=custom: exactly-once and postcondition not judged: coll=custom has no postcondition (the file "
                "does not say what the outputs hold); matching and causality checked with every input chunk holding "
                "data at the start and no buffer aliasing in place");
  return n;
}

// Why a property is unknown (the text report lists it without the reason),
// but for custom's "not judged", which notes() states once.
void unknown_notes(const msccl::CheckResult& cr, std::vector<std::string>& out) {
  for (const Verdict& v : cr.verdicts) {
    auto why = v.stats.find("reason_unknown");
    if (v.status == Status::unknown && why != v.stats.end() && v.property != "exactly-once" &&
        v.property != "postcondition")
      out.push_back(std::string(msccl::to_string(cr.mode)) + " " + v.property + " unknown: " + why->second);
  }
}

}  // namespace

int check_msccl_xml(const boost::program_options::variables_map& vm, const std::string& path, const std::string& text,
                    uint64_t max_memory, const std::string& cmdline) {
  const msccl::Program prog = msccl::parse_program(text, path, max_memory);
  auto start = std::chrono::steady_clock::now();
  Report r;
  r.kind = "check-file";
  r.tool_version = COLLCHECK_VERSION;
  r.command = cmdline;
  r.mode = "msccl simulation (multiplicity)";
  msccl::Limits limits;  // the race check's clocks within --max-memory too
  if (max_memory > 0) limits.max_clock_bytes = std::min(limits.max_clock_bytes, max_memory);
  r.notes = notes(prog);
  for (msccl::CheckResult& cr : msccl::check_modes(prog, limits)) {
    unknown_notes(cr, r.notes);
    r.instances.push_back(instance(path, prog, std::move(cr)));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
  return exit_code(r);
}

}  // namespace collcheck
