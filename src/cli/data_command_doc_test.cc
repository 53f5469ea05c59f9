// docs/data.md shows what `tfhost data` prints; this test keeps it true. Every
// fenced block of the doc whose lines start "$ tfhost data ..." is run, in
// doc order, in one scratch folder holding the inputs the doc names:
//   fixtures/         the shared fixtures (TFHOST_FIXTURES)
//   data.csv          fixtures/data/tfx_chicago_taxi/external_csv/data.csv
//   tract_float.json  {"dropoff_census_tract": "float"}
//   bad.tfrecord      records "one", "two", "three"; a data byte of "two" damaged
// and what follows each command in the block (up to the next "$ " line) must
// be its output (stdout, then stderr) line for line. A line "..." in the doc
// stands for one or more lines left out; nothing else is masked, since the
// samples use fixed inputs and print no timings or temporary paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/test_fixtures.h"
#include "cli/cli.h"
#include "data/tfrecord_writer.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

struct Sample {
  int doc_line = 0;                    // 1-based line of the "$ " command
  std::string command;                 // without "$ "
  std::vector<std::string> expected;   // the lines after it
};

std::string DocPath() {
  // ctest sets TFHOST_SOURCE_DIR; run by hand, the test finds the doc next to
  // its own source.
  if (const char* src = std::getenv("TFHOST_SOURCE_DIR"); src && *src) return std::string(src) + "/docs/data.md";
  return (fs::path(__FILE__).parent_path() / "../../docs/data.md").lexically_normal().string();
}

std::vector<Sample> ParseSamples(const std::string& text) {
  std::vector<Sample> samples;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool in_fence = false, sample_block = false;
  size_t indent = 0;  // of the fence: blocks inside list items are indented
  while (std::getline(in, line)) {
    ++number;
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, 3, "```") == 0) {
      in_fence = !in_fence;
      indent = first;
      sample_block = false;
      continue;
    }
    if (!in_fence) continue;
    line.erase(0, std::min(indent, line.find_first_not_of(' ') == std::string::npos ? line.size()
                                                                                    : line.find_first_not_of(' ')));
    if (line.rfind("$ tfhost data ", 0) == 0) {
      samples.push_back({number, line.substr(2), {}});
      sample_block = true;
    } else if (sample_block) {
      samples.back().expected.push_back(line);
    }
  }
  return samples;
}

// Words of a doc command line: blanks separate, '...' and "..." quote, and
// '#' at the start of a word begins a comment. No other shell syntax: the
// samples are run in-process, not by a shell.
std::vector<std::string> Words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool have_word = false;
  char quote = 0;
  for (char c : command) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word.push_back(c);
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      have_word = true;
    } else if (c == ' ' || c == '\t') {
      if (have_word) words.push_back(word);
      word.clear();
      have_word = false;
    } else if (c == '#' && !have_word) {
      break;
    } else {
      word.push_back(c);
      have_word = true;
    }
  }
  if (have_word) words.push_back(word);
  return words;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Whether `actual` is `expected` with each "..." line standing for one or
// more lines.
bool Matches(const std::vector<std::string>& expected, size_t e, const std::vector<std::string>& actual, size_t a) {
  if (e == expected.size()) return a == actual.size();
  if (expected[e] == "...") {
    for (size_t skip = a + 1; skip <= actual.size(); ++skip) {
      if (Matches(expected, e + 1, actual, skip)) return true;
    }
    return false;
  }
  return a < actual.size() && expected[e] == actual[a] && Matches(expected, e + 1, actual, a + 1);
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Runs the samples with the scratch folder as the working directory, and
// puts the previous one back afterwards.
class ScratchCwd {
 public:
  ScratchCwd() {
    std::string templ = (fs::temp_directory_path() / "data_command_doc_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
    previous_ = fs::current_path();
    fs::current_path(path_);
  }
  ~ScratchCwd() {
    fs::current_path(previous_);
    fs::remove_all(path_);
  }

 private:
  std::string path_;
  fs::path previous_;
};

TEST(DataCommandDocTest, EverySampleInDataMdIsWhatTheCommandPrints) {
  std::string csv = testing::FixturePath("data/tfx_chicago_taxi/external_csv/data.csv");
  TFHOST_REQUIRE_FIXTURE(csv);
  std::ifstream doc_file(DocPath(), std::ios::binary);
  ASSERT_TRUE(doc_file) << "cannot read " << DocPath() << " (set TFHOST_SOURCE_DIR to the repository)";
  std::string doc((std::istreambuf_iterator<char>(doc_file)), {});
  std::vector<Sample> samples = ParseSamples(doc);

  // The doc must keep a sample of each command whose output it describes;
  // dropping one would otherwise pass silently.
  for (const char* sub : {"inspect", "verify", "convert"}) {
    bool seen = false;
    for (const auto& s : samples) seen = seen || s.command.rfind(std::string("tfhost data ") + sub + " ", 0) == 0;
    EXPECT_TRUE(seen) << "docs/data.md has no \"$ tfhost data " << sub << " ...\" sample";
  }

  // Relative fixture paths mean the current folder, which is about to change.
  fs::path fixtures = fs::absolute(testing::FixturesDir()), csv_path = fs::absolute(csv);
  ScratchCwd scratch;
  fs::create_directory_symlink(fixtures, "fixtures");
  fs::create_symlink(csv_path, "data.csv");
  std::ofstream("tract_float.json") << "{\"dropoff_census_tract\": \"float\"}\n";
  ASSERT_TRUE(data::WriteTFRecordFile("bad.tfrecord", {"one", "two", "three"}).ok());
  {
    std::fstream f("bad.tfrecord", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(19 + 12 + 1);  // record 1 starts at 19; its data after a 12-byte header
    f.put('X');
  }

  for (const Sample& s : samples) {
    std::vector<std::string> args = Words(s.command);
    ASSERT_GE(args.size(), 2u);
    args.erase(args.begin());  // "tfhost"
    std::ostringstream out, err;
    RunCli(args, out, err);
    std::vector<std::string> actual = Lines(out.str() + err.str());
    EXPECT_TRUE(Matches(s.expected, 0, actual, 0))
        << "docs/data.md:" << s.doc_line << ": the sample output of\n  $ " << s.command
        << "\nis stale. The doc shows:\n"
        << Join(s.expected) << "The command prints:\n"
        << Join(actual);
  }
}

TEST(DataCommandDocTest, SamplesAreFoundInIndentedBlocksAndElisionIsTheOnlyLooseMatch) {
  std::vector<std::string> actual = {"a", "b", "c", "d"};
  EXPECT_TRUE(Matches({"a", "...", "d"}, 0, actual, 0));
  EXPECT_TRUE(Matches({"a", "b", "c", "d"}, 0, actual, 0));
  EXPECT_TRUE(Matches({"...", "d"}, 0, actual, 0));
  EXPECT_FALSE(Matches({"a", "...", "b", "c", "d"}, 0, actual, 0));  // "..." is at least one line
  EXPECT_FALSE(Matches({"a", "b", "c"}, 0, actual, 0));              // missing lines are a mismatch
  EXPECT_FALSE(Matches({"a", "b", "c", "d "}, 0, actual, 0));        // so is whitespace
  std::vector<Sample> samples = ParseSamples(
      "```\n$ tfhost data a\nout\n```\ntext\n* item:\n\n  ```\n  $ tfhost data b\n    indented out\n  ```\n");
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].command, "tfhost data a");
  EXPECT_EQ(samples[0].expected, (std::vector<std::string>{"out"}));
  EXPECT_EQ(samples[1].command, "tfhost data b");
  EXPECT_EQ(samples[1].doc_line, 9);
  EXPECT_EQ(samples[1].expected, (std::vector<std::string>{"  indented out"}));
  EXPECT_EQ(Words("tfhost data inspect 'out/a b-*' \"x y\" # comment"),
            (std::vector<std::string>{"tfhost", "data", "inspect", "out/a b-*", "x y"}));
}

}  // namespace
}  // namespace tfhost::cli
