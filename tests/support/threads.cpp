// threads.cpp -- how a piece of code split its work over this process's
// threads: the CPU time each thread ran while it executed (see
// course_test::thread_cpu_seconds in course_test.hpp); and this test program
// run again in a child process with settings the OpenMP runtime reads only
// at start-up (course_test::run_self).
#include <dirent.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "course_test.hpp"

namespace {

// Nanoseconds each thread of this process has run so far (schedstat's first field).
std::map<long, double> run_times() {
  std::map<long, double> t;
  DIR *d = opendir("/proc/self/task");
  if (!d) return t;
  while (const dirent *e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string path = std::string("/proc/self/task/") + e->d_name + "/schedstat";
    if (FILE *f = std::fopen(path.c_str(), "r")) {
      unsigned long long ns = 0;
      if (std::fscanf(f, "%llu", &ns) == 1) t[std::strtol(e->d_name, nullptr, 10)] = static_cast<double>(ns) * 1e-9;
      std::fclose(f);
    }
  }
  closedir(d);
  return t;
}

}  // namespace

std::vector<double> course_test::thread_cpu_seconds(const std::function<void()> &call) {
  const auto before = run_times();
  call();
  const auto after = run_times();
  std::vector<double> s;
  for (const auto &[tid, t] : after) {
    const auto b = before.find(tid);
    s.push_back(t - (b == before.end() ? 0.0 : b->second));
  }
  std::sort(s.rbegin(), s.rend());
  return s;
}

std::string course_test::describe_thread_split(const std::vector<double> &seconds) {
  double total = 0;
  for (double x : seconds) total += x;
  int shown = 0;
  std::string parts;
  for (double x : seconds)
    if (total > 0 && x >= 0.01 * total && shown < 8) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.0f %%", 100 * x / total);
      parts += buf;
      ++shown;
    }
  char head[96];
  std::snprintf(head, sizeof head, "%.3g s of CPU time on %d thread%s:", total, shown, shown == 1 ? "" : "s");
  return head + parts;
}

// ---- running one test again in a child process ------------------------------

extern char **environ;

course_test::ChildRun course_test::run_self(const std::string &test_name, const std::vector<std::string> &env) {
  ChildRun r;
  std::vector<std::string> envs;
  for (char **e = environ; *e; ++e) envs.emplace_back(*e);
  for (const auto &e : env) envs.push_back(e);
  std::vector<char *> envp;
  for (auto &e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", name = test_name;
  char *argv[] = {self.data(), name.data(), nullptr};
  int out[2];
  if (pipe(out) != 0) {
    r.output = "cannot create a pipe";
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    r.output = std::string("cannot start ") + self + ": " + std::strerror(rc);
    return r;
  }
  char buf[4096];
  ssize_t got;
  while ((got = read(out[0], buf, sizeof buf)) > 0) r.output.append(buf, static_cast<std::size_t>(got));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.started = true;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

int course_test::run_command(const std::string &cmd, std::string &out) {
  FILE *pipe = popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  return pclose(pipe);
}

const char *course_test::host_device_flags() {
#if defined(__x86_64__)
  return "-fopenmp-targets=x86_64-unknown-linux-gnu";
#elif defined(__aarch64__)
  return "-fopenmp-targets=aarch64-unknown-linux-gnu";
#else
  return "";
#endif
}

const char *course_test::nvptx_device_flags() {
  return "-fopenmp-targets=" COURSE_NVPTX_TRIPLE " --offload-arch=" COURSE_NVPTX_CHECK_ARCH " " COURSE_NVPTX_CHECK_FLAGS;
}

std::string course_test::course_clang() {
  for (const std::string &c : {"clang++-" + std::to_string(__clang_major__), std::string("clang++")})
    if (std::system(("command -v " + c + " > /dev/null 2>&1").c_str()) == 0) return c;
  return "";
}
