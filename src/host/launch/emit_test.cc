#include "host/launch/emit.h"

#include <gtest/gtest.h>

namespace tfhost::host::launch {
namespace {

K8sOptions Options(Strategy s, int workers, int ps) {
  K8sOptions o;
  o.name = "mnist";
  o.image = "tensorflow/tensorflow:2.15.0-gpu";
  o.shape = {s, workers, ps, false};
  o.gpus_per_task = 1;
  o.command = {"python3", "train.py"};
  o.env = {{"TF_GPU_ALLOCATOR", "cuda_malloc_async", ""}};
  return o;
}

TEST(EmitTest, TfJobListsReplicaTypesPerStrategy) {
  auto mw = EmitTfJob(Options(Strategy::kMultiWorker, 4, 0));
  ASSERT_TRUE(mw.ok()) << mw.status().ToString();
  EXPECT_NE(mw->find("kind: \"TFJob\""), std::string::npos);
  EXPECT_NE(mw->find("    Worker:\n      replicas: 4\n"), std::string::npos) << *mw;
  EXPECT_EQ(mw->find("Chief:"), std::string::npos);
  EXPECT_NE(mw->find("nvidia.com/gpu: 1"), std::string::npos);
  EXPECT_NE(mw->find("- name: \"tensorflow\""), std::string::npos);
  auto ps = EmitTfJob(Options(Strategy::kParameterServer, 2, 3));
  ASSERT_TRUE(ps.ok());
  EXPECT_NE(ps->find("    Chief:\n      replicas: 1\n"), std::string::npos) << *ps;
  EXPECT_NE(ps->find("    PS:\n      replicas: 3\n"), std::string::npos) << *ps;
}

TEST(EmitTest, IndexedJobsShareAHeadlessServiceAndBuildTfConfigFromTheIndex) {
  auto y = EmitIndexedJobs(Options(Strategy::kMultiWorker, 2, 0));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_NE(y->find("clusterIP: \"None\""), std::string::npos);
  EXPECT_NE(y->find("completionMode: \"Indexed\""), std::string::npos);
  EXPECT_NE(y->find("subdomain: \"mnist\""), std::string::npos);
  EXPECT_NE(y->find(R"(\"worker\":[\"mnist-worker-0.mnist:2222\",\"mnist-worker-1.mnist:2222\"])"), std::string::npos) << *y;
  EXPECT_NE(y->find("JOB_COMPLETION_INDEX"), std::string::npos);
}

TEST(EmitTest, BadNamesAndMissingImageAreRejected) {
  K8sOptions o = Options(Strategy::kMultiWorker, 2, 0);
  o.name = "Bad_Name";
  EXPECT_FALSE(EmitTfJob(o).ok());
  o.name = "ok";
  o.image.clear();
  EXPECT_FALSE(EmitIndexedJobs(o).ok());
}

TEST(EmitTest, YamlQuoteEscapesEverythingThatCouldBreakTheDocument) {
  EXPECT_EQ(YamlQuote("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(YamlQuote("plain: value # not a comment"), "\"plain: value # not a comment\"");
}

TEST(EmitTest, SbatchHasDirectivesAndQuotedSrunLine) {
  SbatchOptions o;
  o.nodes = 2;
  o.tasks_per_node = 4;
  o.gpus_per_node = 4;
  o.parameter_server = true;
  o.launch_arguments = {"--strategy", "ps", "--", "python3", "train.py", "--msg", "it's"};
  auto s = EmitSbatch(o);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->find("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-node=4\n"), std::string::npos) << *s;
  EXPECT_NE(s->find("srun --kill-on-bad-exit=1 --distribution=block --wait=60 \"$TFHOST\" launch --engine slurm "
                    "--strategy ps -- python3 train.py --msg 'it'\\''s'\n"),
            std::string::npos)
      << *s;
  o.job_name = "two words";
  EXPECT_FALSE(EmitSbatch(o).ok());
}

}  // namespace
}  // namespace tfhost::host::launch
