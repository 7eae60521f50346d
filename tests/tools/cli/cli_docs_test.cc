// The examples of docs/cli.md, run as written. Every ```sh block of the manual is a piece of one
// shell session, in order: lines starting with "$ " are commands (a line ending in "\" continues
// on the next; a here-document runs to its terminator), and the lines after a command are its
// output, stdout and stderr together. The session runs in a fresh directory with the built
// `partkv` first on PATH and no $PARTKV_STORE, so the store is ./partkv-data.
//
// Output is compared line by line after masking what differs from run to run: Timestamps,
// creation times, ETags (the Timestamp of the write) and continuation tokens. In an
// expected line, "..." matches anything (used for timings).

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

struct Example {
  int line = 0;  // in docs/cli.md
  std::string command;
  std::vector<std::string> expected;
};

std::vector<Example> ReadExamples(const std::string& path) {
  std::ifstream in(path);
  std::vector<Example> examples;
  std::string line;
  int number = 0;
  bool in_block = false;
  std::string heredoc_end;  // while inside a here-document
  bool continued = false;   // the last command line ended in '\'
  static const std::regex kHeredoc(R"(<<-?\s*'?([A-Za-z_]+)'?)");
  while (std::getline(in, line)) {
    ++number;
    if (!in_block) {
      in_block = line == "```sh";
      continue;
    }
    if (line == "```" && heredoc_end.empty()) {
      in_block = false;
      continue;
    }
    if (!heredoc_end.empty() || continued) {
      examples.back().command += "\n" + line;
      if (!heredoc_end.empty() && line == heredoc_end) heredoc_end.clear();
      continued = heredoc_end.empty() && !line.empty() && line.back() == '\\';
      continue;
    }
    if (line.rfind("$ ", 0) == 0) {
      examples.push_back(Example{number, line.substr(2), {}});
      std::smatch m;
      if (std::regex_search(line, m, kHeredoc)) heredoc_end = m[1];
      continued = heredoc_end.empty() && line.back() == '\\';
      continue;
    }
    if (examples.empty()) {
      ADD_FAILURE() << "docs/cli.md:" << number << ": output before any command";
      continue;
    }
    examples.back().expected.push_back(line);
  }
  return examples;
}

std::string Masked(std::string s) {
  static const std::regex kTimestamp(R"re("Timestamp":"[0-9T:.Z-]+")re");
  static const std::regex kCreated(R"re("created":"[0-9T:.Z-]+")re");
  static const std::regex kToken(R"re("continuation":"[A-Za-z0-9_-]+")re");
  // An ETag is the Timestamp of the write (docs/format.md "ETags").
  static const std::regex kEtag(R"re(W/\\?"datetime'[0-9T%A:.Z-]+'\\?")re");
  s = std::regex_replace(s, kTimestamp, "\"Timestamp\":\"<time>\"");
  s = std::regex_replace(s, kCreated, "\"created\":\"<time>\"");
  s = std::regex_replace(s, kToken, "\"continuation\":\"<token>\"");
  s = std::regex_replace(s, kEtag, "<etag>");
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

bool LineMatches(const std::string& expected, const std::string& actual) {
  std::string e = Masked(expected), a = Masked(actual);
  if (e.find("...") == std::string::npos) return e == a;
  std::string pattern;
  for (size_t i = 0; i < e.size();) {
    if (e.compare(i, 3, "...") == 0) {
      pattern += ".*";
      i += 3;
      continue;
    }
    if (std::string("\\^$.|?*+()[]{}").find(e[i]) != std::string::npos) pattern += '\\';
    pattern += e[i++];
  }
  return std::regex_match(a, std::regex(pattern));
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

const std::string kManual = std::string(PARTKV_SOURCE_DIR) + "/docs/cli.md";

TEST(CliDocsTest, EveryExampleInTheManualRunsAsShown) {
  std::vector<Example> examples = ReadExamples(kManual);
  ASSERT_GT(examples.size(), 20u);
  TempDir dir;
  std::string script = "set +e\n";
  for (size_t i = 0; i < examples.size(); ++i) {
    script +=
        "printf '\\n@@@ %d\\n' " + std::to_string(i) + "\n{ " + examples[i].command + "\n} 2>&1\n";
  }
  std::string path = dir.Sub("session.sh");
  std::ofstream(path) << script;
  std::string bin = CliRunner::BinaryPath();
  std::string bin_dir = bin.substr(0, bin.rfind('/'));
  std::string wrapper = "cd '" + dir.path() + "' && unset PARTKV_STORE && PATH='" + bin_dir +
                        "':\"$PATH\" COLUMNS=80 sh '" + path + "' > '" + dir.Sub("out") + "' 2>&1";
  ASSERT_EQ(std::system(wrapper.c_str()), 0);
  std::ifstream in(dir.Sub("out"));
  std::stringstream all;
  all << in.rdbuf();
  std::string output = all.str();

  for (size_t i = 0; i < examples.size(); ++i) {
    std::string begin = "@@@ " + std::to_string(i) + "\n";
    std::string end = "\n@@@ " + std::to_string(i + 1) + "\n";
    size_t from = output.find(begin);
    ASSERT_NE(from, std::string::npos) << "command " << i << " never ran";
    from += begin.size();
    size_t to = i + 1 < examples.size() ? output.find(end, from) : output.size();
    std::vector<std::string> actual = Lines(output.substr(from, to - from));
    const Example& ex = examples[i];
    bool same = actual.size() == ex.expected.size();
    for (size_t k = 0; same && k < actual.size(); ++k)
      same = LineMatches(ex.expected[k], actual[k]);
    if (!same) {
      std::string want, got;
      for (const auto& l : ex.expected) want += "  " + l + "\n";
      for (const auto& l : actual) got += "  " + l + "\n";
      ADD_FAILURE() << "docs/cli.md:" << ex.line << ": $ " << ex.command << "\nexpected:\n"
                    << want << "actual:\n"
                    << got;
    }
  }
}

TEST(CliDocsTest, TheManualShowsEveryCommand) {
  std::vector<Example> examples = ReadExamples(kManual);
  for (const char* command : {"table create", "table list", "table drop", "insert", "upsert",
                              "replace", "merge", "delete", "get", "batch", "query", "query-shards",
                              "export", "import", "copy", "stats", "analyze"}) {
    std::regex used("(^|[\\s|(])partkv( --store \\S+)? " + std::string(command) + "( |$)");
    bool shown = false;
    for (const Example& ex : examples) shown = shown || std::regex_search(ex.command, used);
    EXPECT_TRUE(shown) << "no example of partkv " << command;
  }
  // And every exit status.
  std::ifstream in(kManual);
  std::stringstream text;
  text << in.rdbuf();
  for (int status = 0; status <= 8; ++status) {
    EXPECT_NE(text.str().find("| " + std::to_string(status) + " |"), std::string::npos) << status;
  }
}

}  // namespace
}  // namespace partkv::testing
