#pragma once
// Exact-multiplicity payloads for collectives run as black boxes:
// an MPI library's own MPI_Allreduce, MPI_Reduce, ... or a user's function
// with the same signature. The inputs are built so that the result itself
// proves exactly-once, and names the defect: the (element, rank) pair whose
// contribution was lost or counted twice, the source whose block landed in
// the wrong place, the operands combined out of rank order. No MPI here
// (runtime/blackbox/blackbox_run.hpp calls the collective); everything is
// unit-tested without mpirun (tests/unit/runtime/payloads_test.cpp).
//
// Geometry (the caller's `count`, as the collective's count argument):
//   allreduce             send count, receive count; every rank gets every element
//   reduce                the same, the root only
//   reduce-scatter-block  send p*count; rank r gets elements [r count, (r+1) count)
//   reduce-scatter        send count; recvcounts[i] = count/p + (i < count % p),
//                         rank r gets its run of the vector (count not a multiple of p)
//   allgather             send count; receive p*count: slot s is rank s's
//   bcast                 count from the root
//   alltoall              send p*count (block d for rank d); receive p*count:
//                         block s from rank s
//   allgatherv            rank s sends vcount(s) = 0 if s % 4 == 1, else
//                         count + s % 3; everyone receives every rank's run,
//                         packed in rank order (displs: prefix sums)
//   alltoallv             rank s sends c(s, d) = 0 if s = d mod 3, else
//                         count + (2s + d) % 3 to rank d; blocks packed in rank
//                         order on both sides (so zero counts, uneven counts and
//                         asymmetric ones all occur from p = 2)
//
// Payloads (which a verdict rests on is printed with it):
//   one-hot          reductions, the caller's count and datatype kept: p runs;
//                    in run k rank k gives 1 in every element, every other
//                    rank 0, MPI_SUM. Every result element must be exactly 1: 0
//                    is rank k's contribution lost there, 2 counted twice.
//                    Exact in int64, float and double (sums of at most p ones).
//   counters         reductions, one run, each element p int64 counters (the
//                    MPI count becomes count * p of MPI_INT64_T, MPI_SUM): rank r
//                    puts 1 in counter r. Every counter must be 1. It changes the
//                    call's shape (counts are multiples of p, which hides
//                    remainder bugs): one-hot is the one that keeps it.
//   counters-op      the same counters as one derived datatype per element
//                    (MPI_Type_contiguous(p, MPI_INT64_T)) under a user-defined
//                    commutative sum: the caller's count kept, exact
//                    multiplicity in one call (a library may route user
//                    operators to other algorithms than MPI_SUM).
//   tagged-counters  counters-op plus one more int64 per element, the
//                    element's index + 1 (in the send buffer, as the schedule
//                    format numbers blocks) at every rank: reduced, it holds
//                    (index + 1) x the number of contributions, so any
//                    partial result, in any buffer, names its element. It is
//                    the payload message traces decode (runtime/trace/); as a
//                    final check it also catches an element reduced into the
//                    wrong place.
//   noncommutative   reductions, one run, each element a 2x2 matrix mod 65521
//                    (MPI_Type_contiguous(4, MPI_INT64_T)) under a user-defined
//                    non-commutative product: the result must be the product in
//                    rank order M_0 M_1 .. M_{p-1} (MPI 4.0 Sec. 6.9.5); the
//                    reversed product is named when that is what came out.
//   ordered          reductions, one run, each element a list of ranks
//                    (MPI_Type_contiguous(2p + 1, MPI_INT64_T): its length,
//                    then up to 2p ranks) under a user-defined concatenation
//                    (associative, not commutative): rank r gives [r], and the
//                    result must be [0, 1, .., p-1]. A wrong result is the
//                    exact order the operands were combined in, every rank's
//                    ("combined as 1 0 2"; a rank twice, one missing); more
//                    than 2p operands saturate ("more than 2p operands").
//   power-sums       reductions, one run, each element the powers w^1 .. w^8
//                    of a weight per (rank, element) mod Q = 2^53 - 111
//                    (MPI_Type_contiguous(8, MPI_INT64_T)) under a user-defined
//                    commutative sum mod Q: O(count) memory at any p. Exact for
//                    up to 8 wrong contributions per element, a fingerprint
//                    beyond (runtime/blackbox/power_sums.hpp); a wrong result
//                    with up to 4 wrong contributions is decoded to ranks and
//                    multiplicities.
//   source-tagged    data movement (allgather, bcast, alltoall): element j of
//                    rank s's send buffer is tag(s, j) = s * S + j (S: the send
//                    buffer's elements), so a wrong result names whose element
//                    it holds (v-variants: S = the largest send buffer, so
//                    tags stay unique). int64 always; double below 2^53,
//                    float below 2^24 (refused otherwise: representable()).
// Before the call every receive buffer holds a sentinel (int64 -7777777777,
// floating NaN); a result still holding it is "untouched".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/inputs.hpp"

namespace collcheck::runtime::blackbox {

enum class Coll { allreduce, reduce, reduce_scatter_block, reduce_scatter, allgather, bcast, alltoall, allgatherv, alltoallv };
const char* to_string(Coll c);  // "allreduce", "reduce-scatter-block", ...
std::optional<Coll> coll_from_string(const std::string& s);
const std::vector<Coll>& all_colls();
bool reduces(Coll c);

enum class Payload { one_hot, counters, counters_op, tagged_counters, noncommutative, ordered, power_sums, source_tagged };
const char* to_string(Payload p);  // "one-hot", "counters", "counters-op", "tagged-counters", ...
std::optional<Payload> payload_from_string(const std::string& s);
// The payloads that apply to a collective (reductions: one-hot, counters, counters-op,
// tagged-counters, noncommutative; data movement: source-tagged).
std::vector<Payload> payloads_for(Coll c);

// One run of a payload on `p` ranks: what rank `me` sends, what it must end
// with. Values are doubles holding integers (exact for every dtype used),
// one per MPI element of the payload's datatype component: `width` values
// per logical element (1; p for counters and counters-op; p + 1 for
// tagged-counters; 4 for matrices).
struct Layout {
  uint64_t send = 0, recv = 0;  // logical elements in the send / receive buffer
  uint64_t width = 1;           // int64 components per logical element
  std::vector<int> recvcounts;  // reduce-scatter, allgatherv, alltoallv
  std::vector<int> displs;      // allgatherv, alltoallv: where each source's run starts in the receive buffer
  std::vector<int> sendcounts, sdispls;  // alltoallv
};
// The v-variants' counts: what rank s sends (allgatherv) / sends to d (alltoallv).
uint64_t allgatherv_count(uint64_t count, uint64_t s);
uint64_t alltoallv_count(uint64_t count, uint64_t s, uint64_t d);
Layout layout(Coll c, Payload pl, uint64_t p, uint64_t count, int me);

struct RunSpec {
  Coll coll = Coll::allreduce;
  Payload payload = Payload::one_hot;
  uint64_t p = 1, count = 1;
  int root = 0;
  int run = 0;  // one-hot: the contributing rank k
  uint64_t seed = 1;
  DType dtype = DType::int64;  // one-hot and source-tagged; counters and matrices are int64
};
// Runs a payload needs: p for one-hot, 1 otherwise.
int runs(Payload pl, uint64_t p);

// Rank me's send buffer, as values (layout(..).send * width of them).
std::vector<double> send_values(const RunSpec& r, int me);
// What rank me's receive buffer must hold afterwards (nullopt per value:
// not specified, e.g. a non-root after a reduce).
std::vector<std::optional<double>> expected_values(const RunSpec& r, int me);
// The first defect of rank me's result, described ("element 7: rank 1's
// contribution counted 2 times (one-hot run 1)"); nullopt if it is right.
std::optional<std::string> judge(const RunSpec& r, int me, const std::vector<double>& got);

inline constexpr double kSentinel = -7777777777.0;  // integer receive buffers before the call (as values)
inline constexpr int32_t kSentinel32 = -777777777;  // kSentinel as an int32 buffer holds it
inline constexpr int64_t kMatrixPrime = 65521;
// The non-commutative operator on 2x2 matrices (row-major, 4 values each):
// inout[i] = in[i] x inout[i] mod 65521, as MPI_User_function is called
// (in holds the lower ranks' operand).
void matrix_product(const int64_t* in, int64_t* inout, uint64_t n);
// The ordered payload's operator on n lists of `width` = 2p + 1 values:
// inout[i] = in[i] ++ inout[i] (in holds the lower ranks' operand), the
// length saturating at 2p + 1 ("more than 2p operands").
void concatenate(const int64_t* in, int64_t* inout, uint64_t n, uint64_t width);
// The send-buffer index (the schedule format's block) of the i-th element
// rank me receives in a reduction (reduce-scatter: its part of the vector).
uint64_t reduced_index(const RunSpec& r, int me, uint64_t i);
// Whether a float dtype represents every value of the run exactly.
std::optional<std::string> representable(const RunSpec& r);

}  // namespace collcheck::runtime::blackbox
