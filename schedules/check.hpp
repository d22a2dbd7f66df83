#pragma once
// Always-on internal invariant checks (the second kind of error; bad input,
// the first, is schedules/input_error.hpp): a broken invariant prints
// "collcheck: internal error: file:line: condition" and aborts, in Release
// builds too (assert() is compiled out there).
#include <cstdio>
#include <cstdlib>

#define COLLCHECK_CHECK(cond, what)                                                                     \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      std::fprintf(stderr, "collcheck: internal error: %s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, what); \
      std::abort();                                                                                     \
    }                                                                                                   \
  } while (0)
