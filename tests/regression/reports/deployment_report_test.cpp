// The HTML deployment report in a real browser: headless Chromium (Debian's
// `chromium`, installed by scripts/common.sh) renders the pages collcheck
// writes for a failing sweep (Swing's paper-listing1, which the paper's
// Listing 1 gets wrong for even p not a power of two; an expected refutation),
// every Swing variant (the deployable ones hold: a green verdict despite the
// refuted paper readings), a passing one (TRA for every radix at P = 16), an
// MSCCL file with an unmatched send and Träff's table bounds (with their
// witnesses); the test takes screenshots (decoded here: size, many colours,
// the verdict's red or green present), dumps the DOM Chromium built and
// checks the content is there (verdict banner and table rows, runs of holding
// instances in one row, the counterexample SVG with the offending transfer,
// the charts' SVG elements, the coverage list), and that the page references
// no external resource.
// Skipped (GTEST_SKIP) only when no chromium binary is installed. Chromium
// runs as root only with --no-sandbox, which is passed always (the pages are
// local files the test wrote).
#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "schedules/registry.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

using json = nlohmann::json;

std::string chromium() {
  if (const char* env = std::getenv("COLLCHECK_CHROMIUM")) return env;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

// Runs chromium headless on a local file; returns stdout.
std::string browse(const std::string& flags, const std::string& html) {
  const std::string profile = temp_path("chromium_profile");
  std::filesystem::create_directories(profile);
  const std::string cmd = "timeout 120 " + chromium() +
                          " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
                          " --hide-scrollbars --user-data-dir=" + profile + " " + flags + " file://" + html +
                          " 2>/dev/null";
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

// A decoded PNG (8-bit RGB or RGBA, non-interlaced, as Chromium writes them).
struct Image {
  uint32_t width = 0, height = 0;
  std::vector<std::array<uint8_t, 3>> pixels;
  std::string error;
};

uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) | (uint32_t(uint8_t(s[at + 2])) << 8) |
         uint32_t(uint8_t(s[at + 3]));
}

Image decode_png(const std::string& png) {
  Image img;
  if (png.size() < 33 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return img.error = "not a PNG", img;
  std::string idat;
  int color = -1, depth = 0, interlace = 0;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + len > png.size()) return img.error = "truncated chunk", img;
    if (type == "IHDR") {
      img.width = be32(png, at + 8);
      img.height = be32(png, at + 12);
      depth = uint8_t(png[at + 16]);
      color = uint8_t(png[at + 17]);
      interlace = uint8_t(png[at + 20]);
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, len);
    }
    at += 12 + len;
  }
  if (depth != 8 || (color != 2 && color != 6) || interlace != 0) return img.error = "unexpected PNG format", img;
  const size_t bpp = color == 2 ? 3 : 4, stride = img.width * bpp;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_len != raw.size())
    return img.error = "bad zlib stream", img;
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  img.pixels.reserve(size_t{img.width} * img.height);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* line = &raw[y * (stride + 1) + 1];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 0: pred = 0; break;
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default: return img.error = "bad filter", img;
      }
      cur[i] = static_cast<uint8_t>(line[i] + pred);
    }
    for (uint32_t x = 0; x < img.width; ++x) img.pixels.push_back({cur[x * bpp], cur[x * bpp + 1], cur[x * bpp + 2]});
    std::swap(prev, cur);
  }
  return img;
}

size_t distinct_colours(const Image& img) {
  std::set<uint32_t> c;
  for (const auto& p : img.pixels) c.insert((uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2]);
  return c.size();
}

// Pixels within `tol` of the page's colour (r, g, b) (the style sheet's
// #cf222e violated red, #1a7f37 holds green).
size_t pixels_near(const Image& img, int r, int g, int b, int tol = 12) {
  size_t n = 0;
  for (const auto& p : img.pixels) n += std::abs(p[0] - r) <= tol && std::abs(p[1] - g) <= tol && std::abs(p[2] - b) <= tol;
  return n;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Every URL-like reference other than the SVG namespace and in-page #ids.
std::vector<std::string> external_references(const std::string& html) {
  std::vector<std::string> out;
  static const std::regex kUrl(R"((https?:|ftp:|file:|data:)?//[A-Za-z0-9.-]+[^\s"'<>)]*|url\(\s*['"]?[^#'")]|@import|<script|<link|<iframe|<img|\bsrc=|\bhref=\s*["'](?!#))",
                               std::regex::icase);
  for (std::sregex_iterator it(html.begin(), html.end(), kUrl), end; it != end; ++it) {
    const std::string m = it->str();
    if (m == "http://www.w3.org/2000/svg") continue;
    out.push_back(m);
  }
  return out;
}

// The offline check itself must catch what it is meant to catch.
TEST(DeploymentReportHelpers, ExternalReferencesAreFound) {
  EXPECT_EQ(external_references("<svg xmlns=\"http://www.w3.org/2000/svg\"><line marker-end=\"url(#arrow0)\"/></svg>"),
            std::vector<std::string>{});
  for (const char* bad : {"<img src=\"x.png\">", "<link rel=\"stylesheet\" href=\"a.css\">",
                          "<script>1</script>", "body{background:url(http://e.com/a.png)}", "@import 'x.css';",
                          "<a href=\"https://example.com/\">x</a>", "see //cdn.example.com/lib.js"})
    EXPECT_FALSE(external_references(bad).empty()) << bad;
}

TEST(DeploymentReportHelpers, PngDecoderRejectsGarbage) {
  EXPECT_EQ(decode_png("").error, "not a PNG");
  EXPECT_EQ(decode_png(std::string("\x89PNG\r\n\x1a\n") + std::string(40, '\0')).error, "unexpected PNG format");
}

class DeploymentReport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (scripts/common.sh installs Debian's chromium)";
  }
  // Writes the report; returns its path.
  std::string report(const std::string& name, const std::string& args, int want_code) {
    const std::string path = temp_path(name + ".html");
    Outcome o = run(args + " --format html --out " + path);
    EXPECT_EQ(o.code, want_code) << args << "\n" << o.err;
    const std::string html = test::read_file(path);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(external_references(html), std::vector<std::string>{}) << "the page must open offline";
    return path;
  }
  Image screenshot(const std::string& html, uint32_t w, uint32_t h) {
    const std::string png = temp_path(std::filesystem::path(html).stem().string() + ".png");
    std::filesystem::remove(png);
    browse("--screenshot=" + png + " --window-size=" + std::to_string(w) + "," + std::to_string(h), html);
    const std::string bytes = test::read_file(png);
    EXPECT_GT(bytes.size(), 20000u) << "screenshot " << png << " missing or trivially small";
    Image img = decode_png(bytes);
    EXPECT_EQ(img.error, "");
    EXPECT_EQ(img.width, w);
    EXPECT_EQ(img.height, h);
    return img;
  }
};

TEST_F(DeploymentReport, FailingSweepShowsVerdictsCounterexampleDiagramAndCoverage) {
  // Listing 1 at p = 2..8, odd p skipped by the variant's restriction ("p even").
  const std::string html =
      report("failing", "verify --algo swing --variant paper-listing1 --p 2..8 --skip-restricted --quiet", 1);
  const std::string dom = browse("--dump-dom", html);
  ASSERT_FALSE(dom.empty()) << "chromium --dump-dom produced nothing";
  // Listing 1 is a paper reading the registry declares refuted: no deployable
  // variant was checked, and its refutation is expected, not "do not deploy".
  EXPECT_NE(dom.find("<div class=\"banner skipped\" data-verdict=\"no-deployable-variant\">"), std::string::npos);
  EXPECT_NE(dom.find("no deployable variant checked</strong>; 1 expected refutation of a paper reading: "
                     "swing/paper-listing1 (p=6)"),
            std::string::npos);
  // The heading says what the banner says (not "violated" above a grey verdict).
  EXPECT_NE(dom.find("<h1>collcheck verify report: <span class=\"skipped\">no deployable variant checked</span></h1>"),
            std::string::npos);
  EXPECT_EQ(dom.find("do not deploy"), std::string::npos);
  EXPECT_NE(dom.find("<h2>Expected refutations of paper readings</h2>"), std::string::npos);
  // Verdict rows: p = 6 and p = 8 on their own, the holding p = 2, 4 (one run:
  // the skipped p = 3 between them does not break it) and the skipped p = 3..7:2.
  EXPECT_EQ(count(dom, "<tr class=\"instance\">"), 2u);
  EXPECT_EQ(count(dom, "<tr class=\"instances\">"), 2u);
  EXPECT_NE(dom.find("<code>swing/paper-listing1</code> p=6</td>"), std::string::npos);
  EXPECT_NE(dom.find("<code>swing/paper-listing1</code> p=2, 4 (2 instances)</td>"), std::string::npos);
  EXPECT_NE(dom.find("<code>swing/paper-listing1</code> p=3..7:2 (3 instances)</td>"), std::string::npos);
  // The counterexample diagram with the offending transfer highlighted.
  EXPECT_GE(count(dom, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cx-diagram\""), 1u);
  EXPECT_GE(count(dom, "<g class=\"transfer offending\">"), 1u);
  EXPECT_NE(dom.find("(offending transfer)"), std::string::npos);
  // Charts: violating instances per property, steps and volume against p.
  EXPECT_NE(dom.find("aria-label=\"violating instances per property\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"chart line\" width"), std::string::npos);
  EXPECT_NE(dom.find("swing/paper-listing1: volume (max blocks a rank sends), measured vs claimed"), std::string::npos);
  // Coverage: which p were checked, which skipped and why.
  const size_t cov = dom.find("<ul class=\"coverage\">");
  ASSERT_NE(cov, std::string::npos);
  const std::string coverage = dom.substr(cov, dom.find("</ul>", cov) - cov);
  EXPECT_NE(coverage.find("checked p=2..8:2 (4 instances)"), std::string::npos) << coverage;
  EXPECT_NE(coverage.find("skipped p=3..7:2: p must be even"), std::string::npos) << coverage;

  const Image img = screenshot(html, 1280, 2400);
  EXPECT_GT(distinct_colours(img), 50u);
  EXPECT_GT(pixels_near(img, 0xcf, 0x22, 0x2e), 500u) << "the violated red is on the page";
}

// Every Swing variant: the deployable ones hold, only the paper readings the
// registry declares refuted fail. The banner is green and says so; a 1..64
// sweep of a holding variant is one verdict row.
TEST_F(DeploymentReport, ExpectedRefutationsDoNotCryWolf) {
  const std::string html =
      report("paper_readings", "verify --algo swing --variant all --p 1..64 --skip-restricted --quiet", 1);
  const std::string dom = browse("--dump-dom", html);
  ASSERT_FALSE(dom.empty());
  EXPECT_NE(dom.find("<div class=\"banner holds\" data-verdict=\"deploy\">"), std::string::npos);
  // Every refuted Swing reading fails somewhere in 1..64 (tests/support/paper_rules.hpp pins where).
  const AlgorithmInfo* swing = find_algorithm("swing");
  ASSERT_NE(swing, nullptr);
  size_t refuted = 0;
  for (const auto& v : swing->variants) refuted += v.expected_to_hold || v.takes("dims") ? 0 : 1;  // the ring readings
  EXPECT_NE(dom.find("holds for every deployable variant</strong>; " + std::to_string(refuted) +
                     " expected refutations of paper readings: "),
            std::string::npos);
  // One voice: the title and the heading say it too, in green; "violated"
  // (the result, which counts the expected refutations) only in the run table.
  EXPECT_NE(dom.find("<title>collcheck verify report: holds for every deployable variant</title>"), std::string::npos);
  EXPECT_NE(dom.find("<h1>collcheck verify report: <span class=\"holds\">holds for every deployable variant</span></h1>"),
            std::string::npos);
  EXPECT_NE(dom.find("<tr><th>result</th><td>violated (the expected refutations of paper readings are violations)"),
            std::string::npos);
  EXPECT_EQ(dom.find("do not deploy"), std::string::npos);
  EXPECT_EQ(dom.find("<h2>Counterexamples</h2>"), std::string::npos);
  EXPECT_NE(dom.find("<h2>Expected refutations of paper readings</h2>"), std::string::npos);
  // The default holds at every p: one group row; in the instance table a
  // shared row, unless the table is past its row limit and lists only what
  // does not hold (every reading's violated p has a row of its own).
  if (dom.find("not listed here (the table below counts every instance)") != std::string::npos)
    EXPECT_NE(dom.find("<code>swing/bandwidth</code></td><td class=\"holds\">64 holds</td>"), std::string::npos);
  else
    EXPECT_NE(dom.find("<tr class=\"instances\"><td><code>swing/bandwidth</code> p=1..64 (64 instances)</td>"),
              std::string::npos);
  EXPECT_EQ(dom.find("<code>swing/bandwidth</code> p=7</td>"), std::string::npos);
  // variants x 64 p instances; the violated ones (all in paper readings)
  // keep a row each, the holding and skipped runs share a few.
  EXPECT_LT(count(dom, "<tr class=\"instance"), swing->variants.size() * 64 / 2);

  const Image img = screenshot(html, 1280, 800);
  EXPECT_GT(pixels_near(img, 0x1a, 0x7f, 0x37), 200u) << "the banner's holds green is on the page";
}

TEST_F(DeploymentReport, PassingSweepShowsHistogramAndRadixCharts) {
  const std::string html = report("passing", "verify --algo tra --p 16 --radix all --quiet", 0);
  const std::string dom = browse("--dump-dom", html);
  ASSERT_FALSE(dom.empty());
  EXPECT_NE(dom.find("<div class=\"banner holds\" data-verdict=\"deploy\">"), std::string::npos);
  EXPECT_EQ(count(dom, "<tr class=\"instance\">"), 15u);  // r = 2..16: other options, rows of their own
  EXPECT_EQ(dom.find("class=\"cx-diagram\""), std::string::npos) << "nothing is violated";
  EXPECT_EQ(dom.find("class=\"offending"), std::string::npos);
  EXPECT_NE(dom.find("class=\"chart histogram\""), std::string::npos);
  EXPECT_NE(dom.find("tra/tra p=16: K rounds and D blocks against the radix"), std::string::npos);
  // K and D: one marker per radix and statistic the JSON report of the same
  // sweep carries (measured K and D always; claimed ones where a proposition
  // applies, e.g. no claimed K at r = P).
  size_t points = 0;
  const json j = json::parse(run("verify --algo tra --p 16 --radix all --quiet --format json").out);
  for (const json& i : j.at("instances"))
    for (const json& v : i.at("verdicts"))
      if (v.at("property") == "tra-formulas")
        for (const char* k : {"measured_K", "claimed_K", "measured_D", "claimed_D"}) points += v.at("stats").contains(k);
  EXPECT_GE(points, 2u * 15u);
  const size_t kd = dom.find("aria-label=\"tra/tra p=16: K rounds and D blocks against the radix\"");
  ASSERT_NE(kd, std::string::npos);
  EXPECT_EQ(count(dom.substr(kd, dom.find("</svg>", kd) - kd), "<circle "), points);
  EXPECT_NE(dom.find("checked p=16 (15 instances)"), std::string::npos);

  const Image img = screenshot(html, 1280, 2000);
  EXPECT_GT(distinct_colours(img), 50u);
  EXPECT_GT(pixels_near(img, 0x1a, 0x7f, 0x37), 200u) << "the holds green is on the page";
  EXPECT_EQ(pixels_near(img, 0xcf, 0x22, 0x2e, 4), 0u) << "no violated red on a passing page";
}

TEST_F(DeploymentReport, MscclFileCounterexampleNamesStepAndDrawsTheTransfer) {
  const std::string file = std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/broken_unmatched_send.xml";
  const std::string html = report("msccl", "check-file " + file, 1);
  const std::string dom = browse("--dump-dom", html);
  ASSERT_FALSE(dom.empty());
  EXPECT_NE(dom.find("gpu 1 tb 2 step 0 (line 28, s): sends message 1 on gpu 1 -&gt; gpu 3 channel 0"), std::string::npos);
  EXPECT_GE(count(dom, "<g class=\"transfer offending\">"), 1u);
  EXPECT_NE(dom.find("rank 1 → rank 3"), std::string::npos);
}

TEST_F(DeploymentReport, TraffBoundsHistogramsAreCharted) {
  const std::string html =
      report("traff", "verify --algo traff --p 2..40 --properties traff-conditions,traff-bounds --quiet", 0);
  const std::string dom = browse("--dump-dom", html);
  ASSERT_FALSE(dom.empty());
  EXPECT_NE(dom.find("aria-label=\"traff/broadcast traff-bounds violations_histogram\""), std::string::npos);
  EXPECT_NE(dom.find("aria-label=\"traff/broadcast traff-bounds recursive_calls_histogram\""), std::string::npos);
  // The witnesses: the sweep's first ranks with send-schedule violations and
  // their rounds (p = 3's rank 1 in round 1), and the extremal (p, rank) pairs.
  EXPECT_NE(dom.find("witnesses_violations: p=3 rank 1: 1 violation (round 1); "), std::string::npos);
  EXPECT_NE(dom.find("witnesses_max_violations: "), std::string::npos);
  EXPECT_NE(dom.find("witnesses_max_recursion_excess: "), std::string::npos);
}

}  // namespace
}  // namespace collcheck::test
