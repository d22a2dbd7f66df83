// MSCCL algorithm XML parser and structural validation (see msccl_xml.hpp).
#include "schedules/formats/msccl_xml.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string_view>

#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck::msccl {

const char* to_string(Buf b) {
  switch (b) {
    case Buf::input: return "i";
    case Buf::output: return "o";
    case Buf::scratch: return "s";
  }
  return "?";
}

const char* to_string(OpType t) {
  switch (t) {
    case OpType::send: return "s";
    case OpType::recv: return "r";
    case OpType::recv_reduce_copy: return "rrc";
    case OpType::recv_copy_send: return "rcs";
    case OpType::recv_reduce_send: return "rrs";
    case OpType::recv_reduce_copy_send: return "rrcs";
    case OpType::copy: return "cpy";
    case OpType::reduce: return "re";
    case OpType::nop: return "nop";
  }
  return "?";
}

bool sends(OpType t) {
  return t == OpType::send || t == OpType::recv_copy_send || t == OpType::recv_reduce_send ||
         t == OpType::recv_reduce_copy_send;
}
bool receives(OpType t) {
  return t == OpType::recv || t == OpType::recv_reduce_copy || t == OpType::recv_copy_send ||
         t == OpType::recv_reduce_send || t == OpType::recv_reduce_copy_send;
}
bool reads_src(OpType t) {
  return t == OpType::send || t == OpType::recv_reduce_copy || t == OpType::recv_reduce_send ||
         t == OpType::recv_reduce_copy_send || t == OpType::copy || t == OpType::reduce;
}
bool writes_dst(OpType t) {
  return t == OpType::recv || t == OpType::recv_reduce_copy || t == OpType::recv_copy_send ||
         t == OpType::recv_reduce_copy_send || t == OpType::copy || t == OpType::reduce;
}
bool reduces(OpType t) {
  return t == OpType::recv_reduce_copy || t == OpType::recv_reduce_send || t == OpType::recv_reduce_copy_send ||
         t == OpType::reduce;
}

const char* to_string(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::allgather: return "allgather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::alltoall: return "alltoall";
    case Collective::custom: return "custom";
  }
  return "?";
}

size_t Program::num_steps() const {
  size_t n = 0;
  for (const Gpu& g : gpus)
    for (const ThreadBlock& tb : g.tbs) n += tb.steps.size();
  return n;
}

std::string to_xml(const Program& p) {
  auto attr = [](const std::string& v) {
    std::string e;
    for (char ch : v) e += ch == '&' ? "&amp;" : ch == '<' ? "&lt;" : ch == '"' ? "&quot;" : std::string(1, ch);
    return e;
  };
  std::string o = "<algo name=\"" + attr(p.name) + "\" proto=\"" + attr(p.proto) + "\" nchannels=\"" + std::to_string(p.nchannels) +
                  "\" nchunksperloop=\"" + std::to_string(p.nchunksperloop) + "\" ngpus=\"" + std::to_string(p.ngpus) +
                  "\" coll=\"" + to_string(p.coll) + "\" inplace=\"" + (p.inplace ? "1" : "0") + "\" outofplace=\"" +
                  (p.outofplace ? "1" : "0") + "\">\n";
  for (const Gpu& g : p.gpus) {
    o += "  <gpu id=\"" + std::to_string(g.id) + "\" i_chunks=\"" + std::to_string(g.i_chunks) + "\" o_chunks=\"" +
         std::to_string(g.o_chunks) + "\" s_chunks=\"" + std::to_string(g.s_chunks) + "\">\n";
    for (const ThreadBlock& tb : g.tbs) {
      o += "    <tb id=\"" + std::to_string(tb.id) + "\" send=\"" + std::to_string(tb.send) + "\" recv=\"" +
           std::to_string(tb.recv) + "\" chan=\"" + std::to_string(tb.chan) + "\">\n";
      for (const Step& st : tb.steps)
        o += "      <step s=\"" + std::to_string(st.s) + "\" type=\"" + to_string(st.type) + "\" srcbuf=\"" +
             to_string(st.srcbuf) + "\" srcoff=\"" + std::to_string(st.srcoff) + "\" dstbuf=\"" + to_string(st.dstbuf) +
             "\" dstoff=\"" + std::to_string(st.dstoff) + "\" cnt=\"" + std::to_string(st.cnt) + "\" depid=\"" +
             std::to_string(st.depid) + "\" deps=\"" + std::to_string(st.deps) + "\" hasdep=\"" +
             (st.hasdep ? "1" : "0") + "\"/>\n";
      o += "    </tb>\n";
    }
    o += "  </gpu>\n";
  }
  return o + "</algo>\n";
}

std::string step_name(int gpu, int tb, int s) {
  return "gpu " + std::to_string(gpu) + " tb " + std::to_string(tb) + " step " + std::to_string(s);
}

namespace {

constexpr int kMaxGpus = 4096;
constexpr int64_t kMaxChunks = int64_t{1} << 20;
constexpr size_t kMaxSteps = size_t{1} << 20;

// Byte offset -> 1-based line, for pugixml's offsets: the newlines before
// every block of kBlock bytes, and a count within the block (a file of
// newlines costs 1/256 of its size here, not 8 bytes per line).
class LineIndex {
 public:
  static constexpr size_t kBlock = 1024;
  explicit LineIndex(const std::string& text) : text_(text) {
    uint32_t n = 0;
    for (size_t b = 0; b < text.size(); b += kBlock) {
      before_.push_back(n);
      n += static_cast<uint32_t>(std::count(text.begin() + static_cast<ptrdiff_t>(b),
                                            text.begin() + static_cast<ptrdiff_t>(std::min(b + kBlock, text.size())), '\n'));
    }
    before_.push_back(n);
  }
  int line(ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const size_t o = std::min(static_cast<size_t>(offset), text_.size()), b = o / kBlock;
    return static_cast<int>(before_[b] + std::count(text_.begin() + static_cast<ptrdiff_t>(b * kBlock),
                                                    text_.begin() + static_cast<ptrdiff_t>(o), '\n') + 1);
  }
  uint64_t bytes() const { return before_.capacity() * sizeof(uint32_t); }

 private:
  const std::string& text_;
  std::vector<uint32_t> before_;
};

struct Ctx {
  const std::string& path;
  const LineIndex& lines;
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InputError(path + ":" + std::to_string(line) + ": " + what);
  }
  int line_of(const pugi::xml_node& n) const { return lines.line(n.offset_debug()); }
};

int64_t int_attr(const Ctx& c, const pugi::xml_node& n, const char* name, int64_t lo, int64_t hi,
                 const std::string& where) {
  const pugi::xml_attribute a = n.attribute(name);
  const int line = c.line_of(n);
  if (!a) c.fail(line, where + ": missing attribute '" + name + "' (expected an integer in " + std::to_string(lo) +
                           ".." + std::to_string(hi) + ")");
  std::string_view v = a.value();
  int64_t x = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size())
    c.fail(line, where + ": attribute " + name + "=\"" + std::string(v) + "\" is not an integer");
  if (x < lo || x > hi)
    c.fail(line, where + ": attribute " + name + "=" + std::to_string(x) + " is outside " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return x;
}

Buf buf_attr(const Ctx& c, const pugi::xml_node& n, const char* name, const std::string& where) {
  const pugi::xml_attribute a = n.attribute(name);
  if (!a) c.fail(c.line_of(n), where + ": missing attribute '" + name + "' (expected i, o or s)");
  const std::string v = a.value();
  if (v == "i") return Buf::input;
  if (v == "o") return Buf::output;
  if (v == "s") return Buf::scratch;
  c.fail(c.line_of(n), where + ": attribute " + name + "=\"" + v + "\" is not a buffer (expected i, o or s)");
}

OpType type_attr(const Ctx& c, const pugi::xml_node& n, const std::string& where) {
  const pugi::xml_attribute a = n.attribute("type");
  if (!a) c.fail(c.line_of(n), where + ": missing attribute 'type'");
  static const std::map<std::string, OpType> kTypes = {
      {"s", OpType::send},        {"r", OpType::recv},
      {"rrc", OpType::recv_reduce_copy}, {"rcs", OpType::recv_copy_send},
      {"rrs", OpType::recv_reduce_send}, {"rrcs", OpType::recv_reduce_copy_send},
      {"cpy", OpType::copy},      {"re", OpType::reduce},
      {"nop", OpType::nop}};
  auto it = kTypes.find(a.value());
  if (it == kTypes.end())
    c.fail(c.line_of(n), where + ": unknown step type \"" + std::string(a.value()) +
                             "\" (expected s, r, rrc, rcs, rrs, rrcs, cpy, re or nop)");
  return it->second;
}

Collective coll_attr(const Ctx& c, const pugi::xml_node& n) {
  const pugi::xml_attribute a = n.attribute("coll");
  if (!a)
    c.fail(c.line_of(n),
           "<algo>: missing attribute 'coll' (expected allreduce, allgather, reduce_scatter, alltoall or custom)");
  const std::string v = a.value();
  if (v == "allreduce") return Collective::allreduce;
  if (v == "allgather") return Collective::allgather;
  if (v == "reduce_scatter" || v == "reducescatter") return Collective::reduce_scatter;
  if (v == "alltoall") return Collective::alltoall;
  if (v == "custom") return Collective::custom;
  c.fail(c.line_of(n), "<algo>: coll=\"" + v +
                           "\" is not a collective collcheck can check (expected allreduce, allgather, reduce_scatter, "
                           "alltoall or custom)");
}

void only_children(const Ctx& c, const pugi::xml_node& n, const char* child, const std::string& where) {
  for (const pugi::xml_node& k : n.children()) {
    if (k.type() == pugi::node_comment || k.type() == pugi::node_pi || k.type() == pugi::node_declaration) continue;
    if (k.type() == pugi::node_element && std::string_view(k.name()) == child) continue;
    if (k.type() == pugi::node_pcdata || k.type() == pugi::node_cdata) {
      std::string_view v = k.value();
      if (v.find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
      c.fail(c.line_of(k), where + ": unexpected text inside <" + n.name() + "> (expected <" + child + "> elements)");
    }
    c.fail(c.line_of(k), where + ": unexpected <" + std::string(k.name()) + "> inside <" + n.name() + "> (expected <" +
                             child + ">)");
  }
}

// The size the collective needs of each buffer (msccl-tools' collectives.py):
// returns {input, output}; in-place buffers alias (resolve()), so a program
// also run out of place needs the out-of-place sizes, which cover both.
std::pair<int64_t, int64_t> needed_sizes(const Program& p) {
  const int64_t C = p.chunk_factor, n = p.ngpus;
  const bool aliased = !p.outofplace;
  switch (p.coll) {
    case Collective::allreduce: return {C, aliased ? 0 : C};
    case Collective::allgather: return {aliased ? 0 : C, n * C};
    case Collective::reduce_scatter: return {n * C, aliased ? 0 : C};
    case Collective::alltoall: return {n * C, aliased ? 0 : n * C};
    case Collective::custom: return {0, 0};  // the file is the only statement of its sizes
  }
  return {0, 0};
}

}  // namespace

namespace {

// The end of the DOCTYPE declaration starting at `i` ("<!DOCTYPE"): past its
// '>', skipping quoted literals, comments and the internal subset [...] (whose
// declarations hold '>' of their own); npos if it does not end in `text`.
size_t doctype_end(const std::string& text, size_t i) {
  int depth = 0;  // inside [...]
  for (i += 9; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = text.find(c, i + 1);
      if (i == std::string::npos) return i;
    } else if (text.compare(i, 4, "<!--") == 0) {
      i = text.find("-->", i + 4);
      if (i == std::string::npos) return i;
      i += 2;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if (c == '>' && depth <= 0) {
      return i + 1;
    }
  }
  return std::string::npos;
}

}  // namespace

std::string xml_root_element(const std::string& text) {
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
  };
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  // The prolog: the XML declaration and other processing instructions,
  // comments and a DOCTYPE may come before the root element.
  for (;;) {
    skip_ws();
    size_t e = std::string::npos;
    if (text.compare(i, 2, "<?") == 0) {
      e = text.find("?>", i);
      if (e != std::string::npos) e += 2;
    } else if (text.compare(i, 4, "<!--") == 0) {
      e = text.find("-->", i);
      if (e != std::string::npos) e += 3;
    } else if (text.compare(i, 9, "<!DOCTYPE") == 0) {
      e = doctype_end(text, i);
    } else {
      break;
    }
    if (e == std::string::npos) return "";
    i = e;
  }
  if (i >= text.size() || text[i] != '<') return "";
  // The name ends at white space, '>' or '/'; one running to the end of the
  // text is cut off (check-file reads a head of the file), not a name.
  const size_t end = text.find_first_of(" \t\r\n/>", i + 1);
  if (end == std::string::npos || end == i + 1) return "";
  return text.substr(i + 1, end - i - 1);
}

bool looks_like_msccl(const std::string& text) { return xml_root_element(text) == "algo"; }

std::string nccl_topology_kind(const std::string& root) {
  if (root == "system") return "an NCCL topology file";
  if (root == "graphs") return "an NCCL topology graph file";
  return "";
}

namespace {

// pugixml keeps an attribute from its first occurrence and ignores a repeat
// (coll="allreduce" coll="allgather" read as allreduce); the schedule reader
// refuses duplicate JSON keys, and so does this: every element of the
// document, in document order (a walker: no recursion on deep nesting).
void reject_duplicate_attributes(const Ctx& c, pugi::xml_document& doc) {
  struct Walker : pugi::xml_tree_walker {
    const Ctx& c;
    std::vector<std::string_view> names;
    explicit Walker(const Ctx& ctx) : c(ctx) {}
    bool for_each(pugi::xml_node& n) override {
      if (n.type() != pugi::node_element || !n.first_attribute() || !n.first_attribute().next_attribute()) return true;
      names.clear();
      for (const pugi::xml_attribute& a : n.attributes()) names.push_back(a.name());
      std::sort(names.begin(), names.end());
      const auto dup = std::adjacent_find(names.begin(), names.end());
      if (dup != names.end())
        c.fail(c.line_of(n), "<" + std::string(n.name()) + ">: attribute '" + std::string(*dup) +
                                 "' appears twice (an attribute may appear once per element)");
      return true;
    }
  } walker(c);
  doc.traverse(walker);
}

// The parse's memory before pugixml allocates it: its copy of the text, one
// node per '<' (elements, comments, declarations) and one attribute per '='
// at most, and the line index; exact sizes of pugixml's structures (64-bit,
// compact mode off) and its pages' overhead are within the bound.
uint64_t parse_estimate(const std::string& text, const LineIndex& lines) {
  const uint64_t nodes = static_cast<uint64_t>(std::count(text.begin(), text.end(), '<'));
  const uint64_t attrs = static_cast<uint64_t>(std::count(text.begin(), text.end(), '='));
  return text.size() + 8 * sizeof(void*) * nodes + 5 * sizeof(void*) * attrs + lines.bytes();
}

Program parse_with(const std::string& text, const std::string& path, const LineIndex& lines) {
  const Ctx c{path, lines};
  pugi::xml_document doc;
  const pugi::xml_parse_result res = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (res.status == pugi::status_out_of_memory) throw std::bad_alloc();
  if (!res) c.fail(lines.line(res.offset), std::string("malformed XML: ") + res.description());
  // Non-UTF-8 bytes: pugixml passes them through; reject them here.
  {
    size_t i = 0;
    while (i < text.size()) {
      const unsigned char b = static_cast<unsigned char>(text[i]);
      size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
      bool ok = len > 0 && i + len <= text.size();
      for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
      if (!ok) c.fail(lines.line(static_cast<ptrdiff_t>(i)), "byte " + std::to_string(b) + " is not valid UTF-8");
      i += len;
    }
  }
  reject_duplicate_attributes(c, doc);
  const pugi::xml_node algo = doc.document_element();
  if (std::string_view(algo.name()) != "algo") {
    const std::string kind = nccl_topology_kind(algo.name());
    c.fail(c.line_of(algo), "the root element is <" + std::string(algo.name()) + ">, expected <algo> (MSCCL XML)" +
                                (kind.empty() ? "" : ": this is " + kind + ", not an algorithm"));
  }
  for (const pugi::xml_node& k : doc.children())
    if (k.type() == pugi::node_element && k != algo)
      c.fail(c.line_of(k), "a second root element <" + std::string(k.name()) + "> after </algo>");

  Program p;
  p.path = path;
  p.name = algo.attribute("name").value();
  p.proto = algo.attribute("proto").value();
  p.coll = coll_attr(c, algo);
  p.ngpus = static_cast<int>(int_attr(c, algo, "ngpus", 1, kMaxGpus, "<algo>"));
  p.nchunksperloop = int_attr(c, algo, "nchunksperloop", 1, kMaxChunks, "<algo>");
  if (algo.attribute("nchannels")) p.nchannels = static_cast<int>(int_attr(c, algo, "nchannels", 0, 1 << 16, "<algo>"));
  if (algo.attribute("inplace")) p.inplace = int_attr(c, algo, "inplace", 0, 1, "<algo>") == 1;
  p.outofplace = algo.attribute("outofplace") ? int_attr(c, algo, "outofplace", 0, 1, "<algo>") == 1 : !p.inplace;
  if (!p.inplace && !p.outofplace)
    c.fail(c.line_of(algo), "<algo>: inplace=\"0\" outofplace=\"0\": the program declares neither way of running it "
                            "(the runtime never selects it)");
  if (p.coll == Collective::allreduce || p.coll == Collective::custom) {
    p.chunk_factor = p.nchunksperloop;
  } else {
    if (p.nchunksperloop % p.ngpus != 0)
      c.fail(c.line_of(algo), "<algo>: nchunksperloop=" + std::to_string(p.nchunksperloop) + " is not a multiple of ngpus=" +
                                  std::to_string(p.ngpus) + " (a " + to_string(p.coll) + " has ngpus chunks per loop)");
    p.chunk_factor = p.nchunksperloop / p.ngpus;
  }
  only_children(c, algo, "gpu", "<algo>");
  const auto [need_in, need_out] = needed_sizes(p);

  p.gpus.resize(p.ngpus);
  std::vector<bool> seen_gpu(p.ngpus, false);
  size_t total_steps = 0;
  int gpu_count = 0;
  for (const pugi::xml_node& gn : algo.children("gpu")) {
    ++gpu_count;
    const int gid = static_cast<int>(int_attr(c, gn, "id", 0, p.ngpus - 1, "<gpu>"));
    const std::string gw = "gpu " + std::to_string(gid);
    if (seen_gpu[gid]) c.fail(c.line_of(gn), gw + " appears twice");
    seen_gpu[gid] = true;
    Gpu& g = p.gpus[gid];
    g.id = gid;
    g.line = c.line_of(gn);
    g.i_chunks = int_attr(c, gn, "i_chunks", 0, kMaxChunks, gw);
    g.o_chunks = int_attr(c, gn, "o_chunks", 0, kMaxChunks, gw);
    g.s_chunks = int_attr(c, gn, "s_chunks", 0, kMaxChunks, gw);
    if (g.i_chunks < need_in || g.o_chunks < need_out)
      c.fail(g.line, gw + ": i_chunks=" + std::to_string(g.i_chunks) + " o_chunks=" + std::to_string(g.o_chunks) +
                         ", but the " + (p.outofplace ? "" : "in-place ") + to_string(p.coll) + " of " +
                         std::to_string(p.ngpus) + " gpus with " + std::to_string(p.chunk_factor) +
                         " chunk(s) per rank needs at least i_chunks=" + std::to_string(need_in) +
                         " o_chunks=" + std::to_string(need_out));
    only_children(c, gn, "tb", gw);
    std::vector<const pugi::xml_node*> by_id;
    std::vector<pugi::xml_node> tbn(gn.children("tb").begin(), gn.children("tb").end());
    g.tbs.resize(tbn.size());
    std::vector<bool> seen_tb(tbn.size(), false);
    for (const pugi::xml_node& tn : tbn) {
      const int tid = static_cast<int>(int_attr(c, tn, "id", 0, static_cast<int64_t>(tbn.size()) - 1,
                                                gw + " <tb> (ids are 0.." + std::to_string(tbn.size() - 1) + ")"));
      const std::string tw = gw + " tb " + std::to_string(tid);
      if (seen_tb[tid]) c.fail(c.line_of(tn), tw + " appears twice");
      seen_tb[tid] = true;
      ThreadBlock& tb = g.tbs[tid];
      tb.id = tid;
      tb.line = c.line_of(tn);
      tb.send = static_cast<int>(int_attr(c, tn, "send", -1, p.ngpus - 1, tw));
      tb.recv = static_cast<int>(int_attr(c, tn, "recv", -1, p.ngpus - 1, tw));
      tb.chan = static_cast<int>(int_attr(c, tn, "chan", 0, 1 << 16, tw));
      if (tb.send == gid || tb.recv == gid) c.fail(tb.line, tw + ": a threadblock cannot send to or receive from its own gpu");
      only_children(c, tn, "step", tw);
      for (const pugi::xml_node& sn : tn.children("step")) {
        Step st;
        st.line = c.line_of(sn);
        const int expect_s = static_cast<int>(tb.steps.size());
        const std::string sw0 = tw + " <step> #" + std::to_string(expect_s);
        st.s = static_cast<int>(int_attr(c, sn, "s", 0, static_cast<int64_t>(kMaxSteps), sw0));
        const std::string sw = step_name(gid, tid, st.s);
        if (st.s != expect_s)
          c.fail(st.line, sw + ": steps must be numbered 0, 1, 2, ... in order; expected s=" + std::to_string(expect_s));
        st.type = type_attr(c, sn, sw);
        st.srcbuf = buf_attr(c, sn, "srcbuf", sw);
        st.dstbuf = buf_attr(c, sn, "dstbuf", sw);
        st.srcoff = int_attr(c, sn, "srcoff", -1, kMaxChunks, sw);
        st.dstoff = int_attr(c, sn, "dstoff", -1, kMaxChunks, sw);
        st.cnt = int_attr(c, sn, "cnt", st.type == OpType::nop ? 0 : 1, kMaxChunks, sw);
        st.depid = static_cast<int>(int_attr(c, sn, "depid", -1, static_cast<int64_t>(tbn.size()) - 1, sw));
        st.deps = static_cast<int>(int_attr(c, sn, "deps", -1, static_cast<int64_t>(kMaxSteps), sw));
        st.hasdep = int_attr(c, sn, "hasdep", 0, 1, sw) == 1;
        if ((st.depid < 0) != (st.deps < 0))
          c.fail(st.line, sw + ": depid=" + std::to_string(st.depid) + " deps=" + std::to_string(st.deps) +
                              ": both must be -1 (no dependency) or both name a step");
        if (sends(st.type) && tb.send < 0)
          c.fail(st.line, sw + ": type " + to_string(st.type) + " sends, but " + tw + " has send=\"-1\"");
        if (receives(st.type) && tb.recv < 0)
          c.fail(st.line, sw + ": type " + to_string(st.type) + " receives, but " + tw + " has recv=\"-1\"");
        auto check_ref = [&](const char* which, Buf b, int64_t off) {
          const int64_t size = b == Buf::input ? g.i_chunks : b == Buf::output ? g.o_chunks : g.s_chunks;
          if (off < 0 || off + st.cnt > size)
            c.fail(st.line, sw + ": " + which + " " + to_string(b) + "[" + std::to_string(off) + ".." +
                                std::to_string(off + st.cnt) + ") is outside gpu " + std::to_string(gid) + "'s " +
                                to_string(b) + " buffer of " + std::to_string(size) + " chunks");
        };
        if (reads_src(st.type)) check_ref("source", st.srcbuf, st.srcoff);
        if (writes_dst(st.type)) check_ref("destination", st.dstbuf, st.dstoff);
        tb.steps.push_back(st);
        if (++total_steps > kMaxSteps) c.fail(st.line, "more than 2^20 steps; not a program collcheck checks");
      }
    }
  }
  if (gpu_count != p.ngpus)
    c.fail(c.line_of(algo), "<algo ngpus=\"" + std::to_string(p.ngpus) + "\"> but " + std::to_string(gpu_count) +
                                " <gpu> element(s)");
  // Dependencies name existing steps (depid is a tb id on the same gpu).
  for (const Gpu& g : p.gpus)
    for (const ThreadBlock& tb : g.tbs)
      for (const Step& st : tb.steps)
        if (st.depid >= 0 && st.deps >= static_cast<int>(g.tbs[st.depid].steps.size()))
          c.fail(st.line, step_name(g.id, tb.id, st.s) + ": depends on " + step_name(g.id, st.depid, st.deps) +
                              ", which does not exist (tb " + std::to_string(st.depid) + " has " +
                              std::to_string(g.tbs[st.depid].steps.size()) + " steps)");
  return p;
}

}  // namespace

Program parse_program(const std::string& text, const std::string& path, uint64_t max_memory) {
  const LineIndex lines(text);
  const uint64_t estimate = text.size() + parse_estimate(text, lines);  // the text itself, and the parse
  if (max_memory && estimate > max_memory)
    throw refused_while_reading(path, "its text and document tree", estimate, max_memory);
  try {
    return parse_with(text, path, lines);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_while_reading(path, "its text and document tree", estimate);
  }
}

}  // namespace collcheck::msccl
