// `tfhost demo-models DIR`: writes the demo SavedModels
// (loaders/savedmodel/demo_models.h) as TF Serving base paths DIR/<name>/1/.
#include "cli/cli.h"
#include "cli/command_util.h"
#include "loaders/savedmodel/demo_models.h"

namespace tfhost::cli {

int DemoModelsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string dir;
  FlagParser flags("tfhost demo-models DIR",
                   "Writes small SavedModels with fixed weights as TF Serving base paths DIR/<name>/1/:\n"
                   "half_plus_two, mlp and cnn. Earlier copies under DIR are replaced.");
  flags.AddPositional("DIR", &dir, "folder to write the models into (created if missing)");
  if (int code = ParseOrExit(flags, args, "demo-models", out, err); code >= 0) return code;
  auto written = loaders::WriteDemoModels(dir);
  if (!written.ok()) return ReportFailure(err, "demo-models", written.status());
  auto names = loaders::DemoModelNames();
  for (size_t i = 0; i < written->size(); ++i) {
    out << (*written)[i] << "\n    " << loaders::DemoModelDescription(names[i]) << "\n";
  }
  out << "Try: tfhost inspect " << (*written)[0] << "\n"
      << "     tfhost run " << (*written)[0] << " --input 'x=[[1.0],[2.0]]'\n";
  return kExitOk;
}

}  // namespace tfhost::cli
