#pragma once
// glibc's malloc check for the black box. A function that overruns a
// temporary it allocated corrupts the heap without a fault; plain glibc
// notices late or never (a chunk freed into the thread cache is not
// checked). With libc_malloc_debug.so.0 preloaded and MALLOC_CHECK_=3, every
// chunk carries a check byte past its end that free() and realloc() verify,
// and every allocation checks the top chunk: the overrun aborts inside the
// call (the crash line names it) or in the heap check right after it.
//
// A black-box run of collcheck-mpi therefore starts itself once more,
// before MPI_Init, with both set (an exec keeps the process and its
// launcher's environment; the library goes after anything preloaded
// already). COLLCHECK_MPI_HEAP_CHECK=none turns this off. Under
// AddressSanitizer or valgrind, which check the heap better, their malloc
// answers first and the report names it instead.
// Not a proof of a clean heap either way: an overrun that writes the check
// byte's own value, or that lands in a chunk nobody frees, stays unseen.
#include <string>

namespace collcheck::runtime::blackbox {

// Before MPI_Init: when argv asks for a black-box run (--native, --function)
// and the check is not in force, exec this program again with it; returns
// when it is in force, turned off, unavailable, or the exec failed.
void reexec_with_heap_check(char** argv);

// The heap check in force in this process, in words for the report
// ("glibc's malloc check (MALLOC_CHECK_=3)" or why none).
std::string heap_check_words();

}  // namespace collcheck::runtime::blackbox
