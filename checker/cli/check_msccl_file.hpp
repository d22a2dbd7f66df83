#pragma once
// check-file on an MSCCL algorithm XML (schedules/formats/msccl_check.hpp):
// one instance per mode the file declares (in place, out of place).
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>

namespace collcheck {

// Checks the MSCCL program in `text` (read from `path`; the parse guarded
// by `max_memory`, 0: none), emits the report (--format, --out, --verbose)
// and returns the exit code.
int check_msccl_xml(const boost::program_options::variables_map& vm, const std::string& path, const std::string& text,
                    uint64_t max_memory, const std::string& cmdline);

}  // namespace collcheck
