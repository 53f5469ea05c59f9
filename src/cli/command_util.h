// Pieces every tfhost subcommand shares: loading a model from command-line
// options, and reporting errors with the right exit code.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "runtime/model.h"

namespace tfhost::cli {

// "serve,gpu" -> {"serve", "gpu"}; empty items are dropped.
std::vector<std::string> SplitTags(const std::string& tags);

// Loads `path` (any format) with the given tag set and intra-op threads
// (0 = one per hardware thread).
StatusOr<std::unique_ptr<runtime::Model>> LoadModelForCli(const std::string& path, const std::string& tags,
                                                          int intra_op_threads);

// The PATH positional of the commands that run a model (run, bench).
void AddModelPathFlag(FlagParser& flags, std::string* path);

// --signature and --tag, as the commands that run a signature (run, bench)
// take them; the defaults the help names are the values the caller preset.
void AddSignatureAndTagFlags(FlagParser& flags, std::string* signature, std::string* tags);

// Prints "tfhost <command>: <message>" and returns kExitFailure.
int ReportFailure(std::ostream& err, const std::string& command, const Status& status);

// Prints the usage error and a pointer to --help; returns kExitUsage.
int ReportUsage(std::ostream& err, const std::string& command, const std::string& message);

// Parses flags; on error or --help prints what is needed and returns the
// exit code to return (kExitUsage / kExitOk); otherwise returns -1 and the
// command goes on.
int ParseOrExit(FlagParser& flags, const std::vector<std::string>& args, const std::string& command,
                std::ostream& out, std::ostream& err);

// Input-file arguments as the data commands take them: an argument with glob
// characters the shell left alone (quoted, or from a script) expands to its
// matches in sorted order, so every machine of a sharded job sees the same
// list; other arguments stay as given (a missing file is the reader's error,
// naming it). A pattern matching nothing is NotFound naming the pattern.
StatusOr<std::vector<std::string>> ExpandFileArguments(const std::vector<std::string>& args);

// "x:0" -> "x_0", "a/b:1" -> "a_b_1": a tensor name usable as a file name.
std::string FileNameForTensor(const std::string& name);

}  // namespace tfhost::cli
