#include "host/launch/emit.h"

#include <gtest/gtest.h>

#include "base/test_status.h"

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
  TFHOST_EXPECT_ERROR(EmitTfJob(o), StatusCode::kInvalidArgument,
                      "--name 'Bad_Name' must be a DNS label for Kubernetes: lower-case letters, digits and '-', "
                      "starting with a letter, at most 40 characters");
  o.name = "ok";
  o.image.clear();
  TFHOST_EXPECT_ERROR(EmitIndexedJobs(o), StatusCode::kInvalidArgument,
                      "--emit k8s needs --image (the container image with TensorFlow and your script)");
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
  // The script says how tfhost gets onto the nodes it runs on.
  EXPECT_NE(s->find("# tfhost must run on every node: unpack its release tarball (make dist)"), std::string::npos)
      << *s;
  EXPECT_NE(s->find("srun --kill-on-bad-exit=1 --distribution=block --wait=60 \"$TFHOST\" launch --engine slurm "
                    "--strategy ps -- python3 train.py --msg 'it'\\''s'\n"),
            std::string::npos)
      << *s;
  o.job_name = "two words";
  TFHOST_EXPECT_ERROR(EmitSbatch(o), StatusCode::kInvalidArgument,
                      "--name, --time and --partition cannot contain spaces or newlines");
}

ClusterShape Workers(int n) {
  ClusterShape s;
  s.workers = n;
  return s;
}

TEST(SbatchTasksPerNodeTest, DerivedLayoutThatDoesNotDivideSaysWhatWasDerivedAndTheNearestFits) {
  auto r = SbatchTasksPerNode(Workers(3), /*workers_given=*/true, 2, 0);
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "--workers 3 over --nodes 2: --tasks-per-node was not given, so 2 was derived as ceil(3 tasks / "
                      "2 nodes), and 3 TensorFlow tasks cannot be");
  EXPECT_EQ(r.status().message(),
            "--workers 3 over --nodes 2: --tasks-per-node was not given, so 2 was derived as ceil(3 tasks / 2 nodes), "
            "and 3 TensorFlow tasks cannot be split evenly over 2 x 2 = 4 srun tasks (each srun task runs an equal "
            "share). Nearest layouts that fit: --workers 2 or 4, or --nodes 1 or 3");
}

TEST(SbatchTasksPerNodeTest, GivenTasksPerNodeIsNamedAsGivenAndGetsItsOwnSuggestion) {
  auto r = SbatchTasksPerNode(Workers(6), true, 2, 2);
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "--workers 6 over --nodes 2 x --tasks-per-node 2: 6 TensorFlow tasks cannot be split evenly over "
                      "2 x 2 = 4 srun tasks (each srun task runs");
  EXPECT_EQ(r.status().message(),
            "--workers 6 over --nodes 2 x --tasks-per-node 2: 6 TensorFlow tasks cannot be split evenly over "
            "2 x 2 = 4 srun tasks (each srun task runs an equal share). Nearest layouts that fit: --workers 4 or 8, "
            "--nodes 1 or 3, or --tasks-per-node 1 or 3");
}

TEST(SbatchTasksPerNodeTest, ChiefPsAndDefaultWorkersAreCountedAndSaid) {
  ClusterShape s;
  s.strategy = Strategy::kParameterServer;
  s.workers = 2;
  s.ps = 1;
  auto r = SbatchTasksPerNode(s, /*workers_given=*/false, 3, 0);  // 4 tasks over 3 nodes
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "4 tasks (--workers 2 (the default), 1 chief, --ps 1) over --nodes 3: --tasks-per-node was not "
                      "given, so 2 was derived as ceil(4 tasks / 3");
  EXPECT_EQ(r.status().message(),
            "4 tasks (--workers 2 (the default), 1 chief, --ps 1) over --nodes 3: --tasks-per-node was not given, so "
            "2 was derived as ceil(4 tasks / 3 nodes), and 4 TensorFlow tasks cannot be split evenly over 3 x 2 = 6 "
            "srun tasks (each srun task runs an equal share). Nearest layouts that fit: --workers 1 or 4, or --nodes 2 "
            "or 4");
}

TEST(SbatchTasksPerNodeTest, LayoutsThatDivideReturnTheTasksPerNode) {
  EXPECT_EQ(*SbatchTasksPerNode(Workers(4), true, 2, 0), 2);
  EXPECT_EQ(*SbatchTasksPerNode(Workers(4), true, 2, 1), 1);  // 2 TensorFlow tasks per srun task
  EXPECT_EQ(*SbatchTasksPerNode(Workers(3), true, 1, 0), 3);
  EXPECT_EQ(SbatchTasksPerNode(Workers(3), true, 0, 0).status().message(), "--nodes must be at least 1, got 0");
}

}  // namespace
}  // namespace tfhost::host::launch
