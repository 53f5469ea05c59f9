// A small command-line flag parser for tfhost's subcommands: `--flag=value`
// and `--flag value`, boolean `--flag`, repeated flags, positional arguments,
// `--` ending flags, and `--help`. Unknown flags are errors that suggest the
// closest known flag. Each subcommand declares its flags on one FlagParser,
// which also renders the subcommand's help text.
//
// Thread-safety: none; a parser is used once, on one thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::cli {

// Process exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and failed
inline constexpr int kExitUsage = 2;    // bad command line

class FlagParser {
 public:
  // `usage` is the synopsis line ("tfhost run PATH [flags]"); `summary` a
  // sentence or two under it.
  FlagParser(std::string usage, std::string summary) : usage_(std::move(usage)), summary_(std::move(summary)) {}

  // Registers flags. `name` is without dashes; `value_name` appears in the
  // help ("--threads N"). Pointers must outlive Parse().
  void AddString(const std::string& name, std::string* out, const std::string& value_name,
                 const std::string& help);
  // As AddString, for a flag whose absence differs from every value, the
  // empty one included: `out` stays nullopt unless the flag is given.
  void AddOptionalString(const std::string& name, std::optional<std::string>* out, const std::string& value_name,
                         const std::string& help);
  void AddInt(const std::string& name, int* out, const std::string& value_name, const std::string& help);
  void AddBool(const std::string& name, bool* out, const std::string& help);
  // May be given many times; each occurrence appends.
  void AddRepeated(const std::string& name, std::vector<std::string>* out, const std::string& value_name,
                   const std::string& help);
  // Positional arguments in order; `required` ones must be present.
  void AddPositional(const std::string& name, std::string* out, const std::string& help, bool required = true);

  // Parses `args` (the arguments after the subcommand name). Returns an
  // InvalidArgument error on unknown flags, missing values, bad integers,
  // missing or extra positionals. `--help`/`-h` sets help_requested() and
  // stops parsing successfully.
  Status Parse(const std::vector<std::string>& args);
  bool help_requested() const { return help_requested_; }

  // True for a registered flag that takes a value (string, int, repeated):
  // `--name VALUE` consumes the next argument; a bool never does.
  bool TakesValue(const std::string& name) const;

  // Synopsis, summary, then one line per positional and flag.
  std::string Help() const;

 private:
  enum class Kind { kString, kOptionalString, kInt, kBool, kRepeated };
  struct Flag {
    std::string name;
    Kind kind;
    void* out;
    std::string value_name;
    std::string help;
  };
  struct Positional {
    std::string name;
    std::string* out;
    std::string help;
    bool required;
  };
  const Flag* Find(const std::string& name) const;
  Status Assign(const Flag& flag, const std::string& value);
  std::string Suggest(const std::string& name) const;

  std::string usage_;
  std::string summary_;
  std::vector<Flag> flags_;
  std::vector<Positional> positionals_;
  bool help_requested_ = false;
};

// Levenshtein distance, for "did you mean" suggestions.
int EditDistance(const std::string& a, const std::string& b);

// Splits "1,8,32" into integers; each must be in [min, max]. `flag` names the
// flag in errors.
StatusOr<std::vector<int>> ParseIntList(const std::string& text, const std::string& flag, int min, int max);

}  // namespace tfhost::cli
