#include "runtime/blackbox/payloads.hpp"

#include "runtime/blackbox/power_sums.hpp"
#include "runtime/blackbox/splitmix.hpp"

#include <algorithm>
#include <cmath>

namespace collcheck::runtime::blackbox {

namespace {

const std::vector<std::pair<Coll, const char*>>& coll_names() {
  static const std::vector<std::pair<Coll, const char*>> n = {
      {Coll::allreduce, "allreduce"}, {Coll::reduce, "reduce"},
      {Coll::reduce_scatter_block, "reduce-scatter-block"}, {Coll::reduce_scatter, "reduce-scatter"},
      {Coll::allgather, "allgather"}, {Coll::bcast, "bcast"}, {Coll::alltoall, "alltoall"},
      {Coll::allgatherv, "allgatherv"}, {Coll::alltoallv, "alltoallv"}};
  return n;
}

const std::vector<std::pair<Payload, const char*>>& payload_names() {
  static const std::vector<std::pair<Payload, const char*>> n = {{Payload::one_hot, "one-hot"},
                                                                  {Payload::counters, "counters"},
                                                                  {Payload::counters_op, "counters-op"},
                                                                  {Payload::tagged_counters, "tagged-counters"},
                                                                  {Payload::noncommutative, "noncommutative"},
                                                                  {Payload::ordered, "ordered"},
                                                                  {Payload::power_sums, "power-sums"},
                                                                  {Payload::source_tagged, "source-tagged"}};
  return n;
}

// The tag stride S of source-tagged: every rank's send buffer fits below it.
uint64_t tag_stride(Coll c, uint64_t p, uint64_t count) {
  if (c == Coll::allgatherv) return count + 2;
  if (c == Coll::alltoallv) return p * (count + 1);
  return layout(c, Payload::source_tagged, p, count, 0).send;
}

// Rank r's matrix for element j (row-major), entries in [0, 65521).
void matrix(uint64_t seed, uint64_t r, uint64_t j, int64_t* m) {
  uint64_t h = mix(seed ^ mix(r * 0x100000001b3ULL ^ mix(j)));
  for (int i = 0; i < 4; ++i) {
    h = mix(h + static_cast<uint64_t>(i));
    m[i] = static_cast<int64_t>(h % kMatrixPrime);
  }
}

// The first element of rank me's run of the vector in a reduce-scatter.
uint64_t scatter_offset(uint64_t p, uint64_t count, int me) {
  const uint64_t q = count / p, rem = count % p, r = static_cast<uint64_t>(me);
  return r * q + std::min(r, rem);
}

std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  if (v == kSentinel) return "the sentinel (untouched)";
  if (std::floor(v) == v && std::abs(v) < 9.0e15) return std::to_string(static_cast<int64_t>(v));
  return std::to_string(v);
}

std::string mat(const int64_t* m) {
  return "[[" + std::to_string(m[0]) + "," + std::to_string(m[1]) + "],[" + std::to_string(m[2]) + "," +
         std::to_string(m[3]) + "]]";
}

}  // namespace

uint64_t reduced_index(const RunSpec& r, int me, uint64_t i) {
  switch (r.coll) {
    case Coll::reduce_scatter_block: return static_cast<uint64_t>(me) * r.count + i;
    case Coll::reduce_scatter: return scatter_offset(r.p, r.count, me) + i;
    default: return i;
  }
}

const char* to_string(Coll c) {
  for (const auto& [k, n] : coll_names())
    if (k == c) return n;
  return "?";
}

std::optional<Coll> coll_from_string(const std::string& s) {
  for (const auto& [k, n] : coll_names())
    if (s == n) return k;
  return std::nullopt;
}

const std::vector<Coll>& all_colls() {
  static const std::vector<Coll> all = [] {
    std::vector<Coll> v;
    for (const auto& [k, n] : coll_names()) v.push_back(k);
    return v;
  }();
  return all;
}

bool reduces(Coll c) {
  return c == Coll::allreduce || c == Coll::reduce || c == Coll::reduce_scatter_block || c == Coll::reduce_scatter;
}

const char* to_string(Payload p) {
  for (const auto& [k, n] : payload_names())
    if (k == p) return n;
  return "?";
}

std::optional<Payload> payload_from_string(const std::string& s) {
  for (const auto& [k, n] : payload_names())
    if (s == n) return k;
  return std::nullopt;
}

std::vector<Payload> payloads_for(Coll c) {
  if (reduces(c))
    return {Payload::one_hot,        Payload::counters, Payload::counters_op, Payload::tagged_counters,
            Payload::noncommutative, Payload::ordered, Payload::power_sums};
  return {Payload::source_tagged};
}

int runs(Payload pl, uint64_t p) { return pl == Payload::one_hot ? static_cast<int>(p) : 1; }

Layout layout(Coll c, Payload pl, uint64_t p, uint64_t count, int me) {
  Layout l;
  l.width = pl == Payload::counters || pl == Payload::counters_op ? p
            : pl == Payload::tagged_counters                      ? p + 1
            : pl == Payload::noncommutative                       ? 4
            : pl == Payload::ordered                              ? 2 * p + 1
            : pl == Payload::power_sums                           ? power_sums::kValues
                                                                  : 1;
  switch (c) {
    case Coll::allreduce:
    case Coll::reduce:
    case Coll::bcast: l.send = l.recv = count; break;
    case Coll::reduce_scatter_block: l.send = p * count, l.recv = count; break;
    case Coll::reduce_scatter:
      l.send = count;
      for (uint64_t i = 0; i < p; ++i) l.recvcounts.push_back(static_cast<int>(count / p + (i < count % p)));
      l.recv = static_cast<uint64_t>(l.recvcounts[static_cast<size_t>(me)]);
      break;
    case Coll::allgather: l.send = count, l.recv = p * count; break;
    case Coll::alltoall: l.send = l.recv = p * count; break;
    case Coll::allgatherv:
      l.send = allgatherv_count(count, static_cast<uint64_t>(me));
      for (uint64_t s = 0; s < p; ++s) {
        l.displs.push_back(static_cast<int>(l.recv));
        l.recvcounts.push_back(static_cast<int>(allgatherv_count(count, s)));
        l.recv += allgatherv_count(count, s);
      }
      break;
    case Coll::alltoallv:
      for (uint64_t q = 0; q < p; ++q) {
        const uint64_t out = alltoallv_count(count, static_cast<uint64_t>(me), q);
        const uint64_t in = alltoallv_count(count, q, static_cast<uint64_t>(me));
        l.sdispls.push_back(static_cast<int>(l.send));
        l.sendcounts.push_back(static_cast<int>(out));
        l.displs.push_back(static_cast<int>(l.recv));
        l.recvcounts.push_back(static_cast<int>(in));
        l.send += out, l.recv += in;
      }
      break;
  }
  return l;
}

uint64_t allgatherv_count(uint64_t count, uint64_t s) { return s % 4 == 1 ? 0 : count + s % 3; }

uint64_t alltoallv_count(uint64_t count, uint64_t s, uint64_t d) {
  return (s + 2 * d) % 3 == 0 ? 0 : count + (2 * s + d) % 3;  // zero iff s = d mod 3
}

std::optional<std::string> representable(const RunSpec& r) {
  if (r.payload != Payload::source_tagged || r.dtype == DType::int64) return std::nullopt;
  if (r.dtype == DType::int32) {
    const double top = static_cast<double>(r.p) * static_cast<double>(tag_stride(r.coll, r.p, r.count));
    if (top <= 2147483647.0) return std::nullopt;
    return "the source-tagged payload needs p * elements = " + num(top) + " distinct tags; int32 holds them only up to " +
           "2147483647 (use --dtype int64 or a smaller count)";
  }
  const double top = static_cast<double>(r.p) * static_cast<double>(tag_stride(r.coll, r.p, r.count));
  const double limit = r.dtype == DType::float32 ? 16777216.0 : 9007199254740992.0;
  if (top <= limit) return std::nullopt;
  return std::string("the source-tagged payload needs p * elements = ") + num(top) + " exact values; " +
         to_string(r.dtype) + " holds integers exactly only up to " + num(limit) + " (use --dtype int64 or a smaller count)";
}

std::vector<double> send_values(const RunSpec& r, int me) {
  const Layout l = layout(r.coll, r.payload, r.p, r.count, me);
  std::vector<double> v(l.send * l.width, 0.0);
  switch (r.payload) {
    case Payload::one_hot:
      std::fill(v.begin(), v.end(), me == r.run ? 1.0 : 0.0);
      break;
    case Payload::counters:
    case Payload::counters_op:
      for (uint64_t e = 0; e < l.send; ++e) v[e * l.width + static_cast<uint64_t>(me)] = 1.0;
      break;
    case Payload::tagged_counters:
      for (uint64_t e = 0; e < l.send; ++e) {
        v[e * l.width + static_cast<uint64_t>(me)] = 1.0;
        v[e * l.width + r.p] = static_cast<double>(e + 1);
      }
      break;
    case Payload::noncommutative:
      for (uint64_t e = 0; e < l.send; ++e) {
        int64_t m[4];
        matrix(r.seed, static_cast<uint64_t>(me), e, m);
        for (int i = 0; i < 4; ++i) v[e * 4 + static_cast<uint64_t>(i)] = static_cast<double>(m[i]);
      }
      break;
    case Payload::ordered:
      for (uint64_t e = 0; e < l.send; ++e) {
        v[e * l.width] = 1.0;
        v[e * l.width + 1] = static_cast<double>(me);
      }
      break;
    case Payload::power_sums: {
      const power_sums::Weights w(r.seed, r.p);
      uint64_t x[power_sums::kValues];
      for (uint64_t e = 0; e < l.send; ++e) {
        power_sums::contribution(w, static_cast<uint64_t>(me), e, x);
        for (int k = 0; k < power_sums::kValues; ++k) v[e * l.width + static_cast<uint64_t>(k)] = static_cast<double>(x[k]);
      }
      break;
    }
    case Payload::source_tagged:
      if (r.coll == Coll::bcast && me != r.root) {
        std::fill(v.begin(), v.end(), integral(r.dtype) ? kSentinel : std::nan(""));
        break;
      }
      for (uint64_t j = 0; j < l.send; ++j)
        v[j] = static_cast<double>(static_cast<uint64_t>(me) * tag_stride(r.coll, r.p, r.count) + j);
      break;
  }
  return v;
}

std::vector<std::optional<double>> expected_values(const RunSpec& r, int me) {
  const Layout l = layout(r.coll, r.payload, r.p, r.count, me);
  std::vector<std::optional<double>> v(l.recv * l.width);
  if (r.coll == Coll::reduce && me != r.root) return v;  // unspecified
  const uint64_t S = tag_stride(r.coll, r.p, r.count);
  std::optional<power_sums::Weights> weights;
  if (r.payload == Payload::power_sums) weights.emplace(r.seed, r.p);
  for (uint64_t i = 0; i < l.recv; ++i) {
    switch (r.payload) {
      case Payload::one_hot: v[i] = 1.0; break;
      case Payload::power_sums: {
        uint64_t x[power_sums::kValues];
        power_sums::expected(*weights, reduced_index(r, me, i), x);
        for (int k = 0; k < power_sums::kValues; ++k) v[i * l.width + static_cast<uint64_t>(k)] = static_cast<double>(x[k]);
        break;
      }
      case Payload::counters:
      case Payload::counters_op:
        for (uint64_t k = 0; k < l.width; ++k) v[i * l.width + k] = 1.0;
        break;
      case Payload::tagged_counters:
        for (uint64_t k = 0; k < r.p; ++k) v[i * l.width + k] = 1.0;
        v[i * l.width + r.p] = static_cast<double>((reduced_index(r, me, i) + 1) * r.p);
        break;
      case Payload::noncommutative: {
        const uint64_t j = reduced_index(r, me, i);
        int64_t acc[4] = {1, 0, 0, 1}, m[4];
        for (uint64_t q = r.p; q-- > 0;) {  // acc = M_q acc, from the last rank down: M_0 .. M_{p-1}
          matrix(r.seed, q, j, m);
          matrix_product(m, acc, 1);
        }
        for (int k = 0; k < 4; ++k) v[i * 4 + static_cast<uint64_t>(k)] = static_cast<double>(acc[k]);
        break;
      }
      case Payload::ordered:
        v[i * l.width] = static_cast<double>(r.p);
        for (uint64_t k = 0; k < 2 * r.p; ++k) v[i * l.width + 1 + k] = k < r.p ? static_cast<double>(k) : 0.0;
        break;
      case Payload::source_tagged: {
        uint64_t src = 0, j = i;
        if (r.coll == Coll::bcast) src = static_cast<uint64_t>(r.root);
        if (r.coll == Coll::allgather) src = i / r.count, j = i % r.count;
        if (r.coll == Coll::alltoall) src = i / r.count, j = static_cast<uint64_t>(me) * r.count + i % r.count;
        if (r.coll == Coll::allgatherv || r.coll == Coll::alltoallv) {  // the source whose run holds i
          src = 0;
          while (src + 1 < r.p && static_cast<uint64_t>(l.displs[src + 1]) <= i) ++src;
          j = i - static_cast<uint64_t>(l.displs[src]);
          if (r.coll == Coll::alltoallv)  // where rank src's block for me starts in its send buffer
            j += static_cast<uint64_t>(layout(r.coll, r.payload, r.p, r.count, static_cast<int>(src)).sdispls[static_cast<size_t>(me)]);
        }
        v[i] = static_cast<double>(src * S + j);
        break;
      }
    }
  }
  return v;
}

void matrix_product(const int64_t* in, int64_t* inout, uint64_t n) {
  for (uint64_t e = 0; e < n; ++e) {
    const int64_t* a = in + 4 * e;
    int64_t* b = inout + 4 * e;
    const int64_t c0 = (a[0] * b[0] + a[1] * b[2]) % kMatrixPrime, c1 = (a[0] * b[1] + a[1] * b[3]) % kMatrixPrime;
    const int64_t c2 = (a[2] * b[0] + a[3] * b[2]) % kMatrixPrime, c3 = (a[2] * b[1] + a[3] * b[3]) % kMatrixPrime;
    b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
  }
}

void concatenate(const int64_t* in, int64_t* inout, uint64_t n, uint64_t width) {
  const int64_t cap = static_cast<int64_t>(width) - 1;  // 2p ranks
  std::vector<int64_t> joined(width);
  for (uint64_t e = 0; e < n; ++e) {
    const int64_t* a = in + width * e;
    int64_t* b = inout + width * e;
    const int64_t la = std::clamp<int64_t>(a[0], 0, cap + 1), lb = std::clamp<int64_t>(b[0], 0, cap + 1);
    if (la > cap || lb > cap || la + lb > cap) {  // saturated: the ranks no longer fit
      b[0] = cap + 1;
      continue;
    }
    std::copy(a + 1, a + 1 + la, joined.begin());
    std::copy(b + 1, b + 1 + lb, joined.begin() + la);
    b[0] = la + lb;
    std::copy(joined.begin(), joined.begin() + la + lb, b + 1);
  }
}

namespace {

// A wrong power-sums element in words: decoded to ranks and multiplicities,
// or why not.
std::string power_sums_defect(const RunSpec& r, int me, uint64_t i, const double* got) {
  const std::string tag = " (power-sums)";
  if (std::all_of(got, got + power_sums::kValues, [](double v) { return v == kSentinel; }))
    return "holds the sentinel (untouched)" + tag;
  uint64_t g[power_sums::kValues];
  for (int k = 0; k < power_sums::kValues; ++k) {
    if (!(got[k] >= 0 && got[k] < static_cast<double>(power_sums::kQ)) || std::floor(got[k]) != got[k])
      return "holds " + num(got[k]) + ", no sum of contributions (outside 0 .. 2^53 - 112)" + tag;
    g[k] = static_cast<uint64_t>(got[k]);
  }
  const auto wrong = power_sums::decode(power_sums::Weights(r.seed, r.p), reduced_index(r, me, i), g);
  if (!wrong || wrong->empty())
    return "more than " + std::to_string(power_sums::kDecodable) + " contributions wrong, or another element's "
           "contribution summed here: counters-op (p counters per element) or one-hot names them" + tag;
  std::string out;
  for (const power_sums::WrongContribution& w : *wrong) {
    const std::string who = "rank " + std::to_string(w.rank) + "'s contribution";
    out += (out.empty() ? "" : "; ") + who + (w.times == 0 ? std::string(" lost") : " counted " + std::to_string(w.times) + " times");
  }
  return out + tag;
}

}  // namespace

std::optional<std::string> judge(const RunSpec& r, int me, const std::vector<double>& got) {
  const Layout l = layout(r.coll, r.payload, r.p, r.count, me);
  const std::vector<std::optional<double>> want = expected_values(r, me);
  const std::string at = "rank " + std::to_string(me) + ", ";
  if (got.size() != want.size())
    return at + "result has " + std::to_string(got.size()) + " values, expected " + std::to_string(want.size());
  const uint64_t S = tag_stride(r.coll, r.p, r.count);
  for (uint64_t i = 0; i < l.recv; ++i) {
    bool ok = true;
    for (uint64_t k = 0; k < l.width; ++k) {
      const auto& w = want[i * l.width + k];
      if (w && !(got[i * l.width + k] == *w)) ok = false;
    }
    if (ok) continue;
    const std::string el = at + "element " + std::to_string(i) + ": ";
    const double g = got[i * l.width];
    switch (r.payload) {
      case Payload::one_hot: {
        const std::string who = "rank " + std::to_string(r.run) + "'s contribution";
        const std::string run = " (one-hot run " + std::to_string(r.run) + ")";
        if (g == 0) return el + who + " lost" + run;
        if (g >= 2 && std::floor(g) == g) return el + who + " counted " + num(g) + " times" + run;
        return el + "holds " + num(g) + ", expected 1" + run;
      }
      case Payload::counters:
      case Payload::counters_op:
      case Payload::tagged_counters:
        for (uint64_t k = 0; k < std::min(l.width, r.p); ++k) {
          const double c = got[i * l.width + k];
          if (c == 1) continue;
          const std::string who = "rank " + std::to_string(k) + "'s contribution";
          const std::string tag = std::string(" (") + to_string(r.payload) + ")";
          if (c == 0) return el + who + " lost" + tag;
          if (c >= 2 && std::floor(c) == c) return el + who + " counted " + num(c) + " times" + tag;
          return el + "counter " + std::to_string(k) + " holds " + num(c) + ", expected 1" + tag;
        }
        if (r.payload == Payload::tagged_counters) {  // every counter right: the tag is not
          const double t = got[i * l.width + r.p], w = *want[i * l.width + r.p];
          const double p = static_cast<double>(r.p);
          const std::string which = std::fmod(t, p) == 0 && t >= p
                                        ? "the sum of element " + num(t / p - 1) + "'s contributions"
                                        : "no element's sum (tag " + num(t) + ")";
          return el + "holds " + which + ", expected element " + num(w / p - 1) + "'s (tagged-counters)";
        }
        break;
      case Payload::noncommutative: {
        int64_t gm[4], wm[4], rev[4] = {1, 0, 0, 1}, m[4];
        for (int k = 0; k < 4; ++k) {
          gm[k] = static_cast<int64_t>(got[i * 4 + static_cast<uint64_t>(k)]);
          wm[k] = static_cast<int64_t>(*want[i * 4 + static_cast<uint64_t>(k)]);
        }
        const uint64_t j = reduced_index(r, me, i);
        for (uint64_t q = 0; q < r.p; ++q) {  // rev = M_{p-1} .. M_0
          matrix(r.seed, q, j, m);
          matrix_product(m, rev, 1);
        }
        if (std::equal(gm, gm + 4, rev) && !std::equal(wm, wm + 4, rev))
          return el + "operands combined in reverse rank order (the result is M_" + std::to_string(r.p - 1) +
                 " .. M_0, MPI requires M_0 .. M_" + std::to_string(r.p - 1) + ") (noncommutative)";
        return el + "not the rank-order product M_0 .. M_" + std::to_string(r.p - 1) + ": got " + mat(gm) +
               ", expected " + mat(wm) + " (noncommutative)";
      }
      case Payload::ordered: {
        const uint64_t len = g < 0 ? 0 : static_cast<uint64_t>(g);
        if (len > 2 * r.p) return el + "more than " + std::to_string(2 * r.p) + " operands combined (ordered)";
        std::string order;
        std::vector<int> seen(r.p, 0);
        for (uint64_t k = 0; k < len; ++k) {
          const double q = got[i * l.width + 1 + k];
          order += (order.empty() ? "" : " ") + num(q);
          if (q >= 0 && q < static_cast<double>(r.p)) ++seen[static_cast<uint64_t>(q)];
        }
        std::string why;
        for (uint64_t q = 0; q < r.p; ++q)
          if (seen[q] != 1) why += std::string(why.empty() ? "" : ", ") + "rank " + std::to_string(q) +
                                   (seen[q] == 0 ? " missing" : " " + std::to_string(seen[q]) + " times");
        return el + "operands combined as " + (order.empty() ? "(none)" : order) + ", expected 0 .. " +
               std::to_string(r.p - 1) + " in rank order" + (why.empty() ? "" : " (" + why + ")") + " (ordered)";
      }
      case Payload::power_sums: return el + power_sums_defect(r, me, i, got.data() + i * l.width);
      case Payload::source_tagged: {
        const double w = *want[i];
        const auto who = [&](double v) {
          if (std::isnan(v) || v == kSentinel || v < 0 || std::floor(v) != v || v >= static_cast<double>(r.p * S))
            return num(v);
          const uint64_t t = static_cast<uint64_t>(v);
          return "rank " + std::to_string(t / S) + "'s element " + std::to_string(t % S);
        };
        return el + "holds " + who(g) + ", expected " + who(w) + " (source-tagged)";
      }
    }
    return el + "holds " + num(g) + ", expected " + num(*want[i * l.width]);
  }
  return std::nullopt;
}

}  // namespace collcheck::runtime::blackbox
