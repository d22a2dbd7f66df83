#include "runtime/blackbox/library_mpi.hpp"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "runtime/smpi/smpi_job.hpp"

namespace collcheck::runtime::blackbox {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The DT_NEEDED entries of a 64-bit little-endian ELF file (empty when it is
// not one, or when its dynamic section does not read). Reads the headers,
// the dynamic segment and the string table only: every simulated rank of an
// SMPI job asks this of the same library.
std::vector<std::string> needed_libraries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  auto read = [&](uint64_t offset, uint64_t bytes, void* to) {
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char*>(to), static_cast<std::streamsize>(bytes));
    return static_cast<bool>(in);
  };
  Elf64_Ehdr eh{};
  if (!read(0, sizeof eh, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096)
    return {};
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read(eh.e_phoff, ph.size() * sizeof(Elf64_Phdr), ph.data())) return {};
  auto file_offset = [&](uint64_t vaddr) -> std::optional<uint64_t> {
    for (const Elf64_Phdr& p : ph)
      if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz) return vaddr - p.p_vaddr + p.p_offset;
    return std::nullopt;
  };
  std::vector<Elf64_Dyn> dyn;
  for (const Elf64_Phdr& p : ph)
    if (p.p_type == PT_DYNAMIC && p.p_filesz < (1u << 20)) {
      dyn.resize(p.p_filesz / sizeof(Elf64_Dyn));
      if (!read(p.p_offset, dyn.size() * sizeof(Elf64_Dyn), dyn.data())) return {};
    }
  std::optional<uint64_t> strtab;
  uint64_t strsz = 0;
  for (const Elf64_Dyn& d : dyn) {
    if (d.d_tag == DT_STRTAB) strtab = file_offset(d.d_un.d_ptr);
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
  }
  if (!strtab || strsz == 0 || strsz > (1u << 24)) return {};
  std::vector<char> str(strsz + 1, '\0');
  if (!read(*strtab, strsz, str.data())) return {};
  std::vector<std::string> out;
  for (const Elf64_Dyn& d : dyn) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED && d.d_un.d_val < strsz) out.emplace_back(str.data() + d.d_un.d_val);
  }
  return out;
}

}  // namespace

std::string mpi_family(const std::string& name) {
  if (starts_with(name, "libsimgrid.so")) return "SMPI";
  // Debian's MPICH also ships libmpi.so.12; Open MPI's is libmpi.so.40.
  if (starts_with(name, "libmpich") || starts_with(name, "libmpi.so.12")) return "MPICH";
  if (starts_with(name, "libmpi.so") || starts_with(name, "libmpi_cxx.so") || starts_with(name, "libmpi_mpifh.so"))
    return "Open MPI";
  return "";
}

std::string running_mpi_family() {
  if (smpi::kUnderSmpi) return "SMPI";
  Dl_info info{};
  void* f = dlsym(RTLD_DEFAULT, "MPI_Init");
  if (!f || !dladdr(f, &info) || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  return mpi_family(path.substr(path.rfind('/') + 1));
}

std::optional<std::string> foreign_mpi(const std::string& path) {
  const std::string mine = running_mpi_family();
  if (mine.empty()) return std::nullopt;
  for (const std::string& needed : needed_libraries(path)) {
    const std::string theirs = mpi_family(needed);
    if (theirs.empty() || theirs == mine) continue;
    const std::string rebuild = mine == "SMPI" ? "rebuild it with smpicc -shared -fPIC (or smpicxx)"
                                               : "rebuild it with this MPI's mpicc -shared -fPIC";
    return "the --function library '" + path + "' was built against " + theirs + " (it needs " + needed +
           "), and this job runs on " + mine + ": " + rebuild;
  }
  return std::nullopt;
}

}  // namespace collcheck::runtime::blackbox
