// oneDNN's OpenMP threads spin while they wait for work (libgomp's default
// when OMP_WAIT_POLICY is unset). On a host whose CPUs are shared — a serving
// box with other processes, a CI runner, a container with a CPU quota — two
// spinning threads starve the ones doing work: nsfw_mobilenet_v2 at batch 8
// on two threads took 420 ms instead of 59 ms on the 2-vCPU build machine.
// libgomp reads the policy once, when it is loaded, before main() runs, so
// the binary re-executes itself once with OMP_WAIT_POLICY=passive, and then
// removes the variable again so that processes tfhost starts (launch tasks,
// TensorFlow jobs) see the user's own environment. An OMP_WAIT_POLICY the
// user set is left alone.
#pragma once

namespace tfhost::cli {

// Returns only when no re-execution is needed or it failed (then tfhost runs
// with libgomp's default policy).
void UsePassiveOpenMpWaitPolicy(char** argv);

}  // namespace tfhost::cli
