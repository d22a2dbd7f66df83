// The SMPI build of collcheck-mpi is a shared object that SimGrid's smpimain
// loads; run by itself it would jump to nowhere (a segfault). An interpreter
// and an entry point make it a program that says how to run it instead.
// (dlopen ignores both: smpimain loads it as before.)
#include <unistd.h>

#if defined(__x86_64__) && defined(__linux__)
extern "C" const char collcheck_interp[] __attribute__((section(".interp"), used)) = "/lib64/ld-linux-x86-64.so.2";

extern "C" [[noreturn]] __attribute__((force_align_arg_pointer)) void collcheck_smpi_direct_run() {
  static const char line[] =
      "collcheck-mpi: error: this collcheck-mpi is built for SimGrid's SMPI: run it with scripts/smpi -np P "
      "[COLLCHECK-MPI-ARGS...]\n";
  (void)!write(2, line, sizeof line - 1);
  _exit(2);
}
#endif
