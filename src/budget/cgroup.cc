#include "symbiosis/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <vector>

namespace symbiosis {
namespace {

std::string ErrnoText(int error) { return std::strerror(error); }

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

std::vector<std::string_view> SplitOn(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    size_t end = text.find(separator);
    parts.push_back(text.substr(0, end));
    if (end == std::string_view::npos) return parts;
    text.remove_prefix(end + 1);
  }
}

std::string_view TrimNewline(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  return text;
}

// A decimal count of at most 19 digits (no overflow), or nullopt.
std::optional<uint64_t> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

bool Contains(const std::vector<std::string_view>& list,
              std::string_view item) {
  for (std::string_view entry : list) {
    if (entry == item) return true;
  }
  return false;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out.push_back(static_cast<char>((field[i + 1] - '0') * 64 +
                                      (field[i + 2] - '0') * 8 +
                                      (field[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(field[i]);
    }
  }
  return out;
}

struct Mount {
  std::string root;  // the hierarchy's directory shown at mount_point
  std::string mount_point;
};

// Finds the mount of the v1 hierarchy carrying `memory`, or of cgroup2.
std::optional<Mount> FindMount(std::string_view mountinfo,
                               CgroupVersion version) {
  for (std::string_view line : SplitLines(mountinfo)) {
    std::vector<std::string_view> fields = SplitOn(line, ' ');
    size_t dash = 0;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    // id parent dev root mount_point options [optional...] - type source super
    if (dash < 6 || dash + 3 >= fields.size()) continue;
    std::string_view fstype = fields[dash + 1];
    bool match = version == CgroupVersion::kV2
                     ? fstype == "cgroup2"
                     : fstype == "cgroup" &&
                           Contains(SplitOn(fields[dash + 3], ','), "memory");
    if (match) return Mount{Unescape(fields[3]), Unescape(fields[4])};
  }
  return std::nullopt;
}

// The directory of cgroup `path` (as /proc/self/cgroup names it) under
// `mount`, or nullopt if the mount does not show it.
std::optional<std::string> DirUnder(const Mount& mount,
                                    std::string_view path) {
  std::string_view root = mount.root;
  if (root != "/") {
    if (path.substr(0, root.size()) != root ||
        (path.size() > root.size() && path[root.size()] != '/')) {
      return std::nullopt;
    }
    path.remove_prefix(root.size());
  }
  std::string dir = mount.mount_point;
  if (!path.empty() && path != "/") dir += std::string(path);
  return dir;
}

std::string ReadFileOrThrow(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw CgroupError("cannot read " + path + ": " + ErrnoText(errno) +
                      "; check that the cgroup still exists");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Writes `value` with a single write(2), as cgroup files require.
// Returns 0 or the errno.
int WriteValue(const std::string& path, const std::string& value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t written = write(fd, value.data(), value.size());
  int error = written < 0 ? errno : 0;
  close(fd);
  return error;
}

void WriteOrThrow(const std::string& path, const std::string& value,
                  const std::string& what_to_do) {
  if (int error = WriteValue(path, value)) {
    throw CgroupError("cannot write '" + value + "' to " + path + ": " +
                      ErrnoText(error) + "; " + what_to_do);
  }
}

const char kNeedRoot[] =
    "run as root or in a cgroup delegated to this user";

uint64_t StatValue(const std::map<std::string, uint64_t>& stat,
                   const std::string& name) {
  auto it = stat.find(name);
  return it == stat.end() ? 0 : it->second;
}

}  // namespace

std::optional<MemoryCgroup> FindMemoryCgroup(std::string_view proc_cgroup,
                                             std::string_view mountinfo) {
  // Lines are "hierarchy-id:controller,list:path"; the path may hold ':'.
  std::optional<std::string> v1_path, v2_path;
  for (std::string_view line : SplitLines(proc_cgroup)) {
    size_t first = line.find(':');
    size_t second = line.find(':', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) {
      continue;
    }
    std::string_view controllers = line.substr(first + 1, second - first - 1);
    std::string path(line.substr(second + 1));
    if (line.substr(0, first) == "0" && controllers.empty()) {
      v2_path = path;
    } else if (Contains(SplitOn(controllers, ','), "memory")) {
      v1_path = path;
    }
  }
  // A controller is bound to one hierarchy: a v1 memory line wins.
  if (v1_path) {
    if (auto mount = FindMount(mountinfo, CgroupVersion::kV1)) {
      if (auto dir = DirUnder(*mount, *v1_path)) {
        return MemoryCgroup{CgroupVersion::kV1, *dir};
      }
    }
    return std::nullopt;
  }
  if (v2_path) {
    if (auto mount = FindMount(mountinfo, CgroupVersion::kV2)) {
      if (auto dir = DirUnder(*mount, *v2_path)) {
        return MemoryCgroup{CgroupVersion::kV2, *dir};
      }
    }
  }
  return std::nullopt;
}

MemoryCgroup DetectMemoryCgroup() {
  std::optional<MemoryCgroup> cgroup =
      FindMemoryCgroup(ReadFileOrThrow("/proc/self/cgroup"),
                       ReadFileOrThrow("/proc/self/mountinfo"));
  if (!cgroup) {
    throw CgroupError(
        "no mounted cgroup hierarchy carries the memory controller for this "
        "process; mount cgroup2 (or the v1 memory controller) on "
        "/sys/fs/cgroup");
  }
  if (cgroup->version == CgroupVersion::kV2) {
    std::string text = ReadFileOrThrow(cgroup->dir + "/cgroup.controllers");
    if (text.ends_with('\n')) text.pop_back();
    if (!Contains(SplitOn(text, ' '), "memory")) {
      throw CgroupError("the memory controller is not available in " +
                        cgroup->dir +
                        " (cgroup.controllers); enable it in the parent's "
                        "cgroup.subtree_control or run in another cgroup");
    }
  }
  return *cgroup;
}

std::optional<uint64_t> ParseMemoryLimit(std::string_view text) {
  text = TrimNewline(text);
  if (text == "max") return std::nullopt;
  std::optional<uint64_t> value = ParseNumber(text);
  if (!value) {
    throw CgroupError("bad memory limit '" + std::string(text) +
                      "'; expected a byte count or 'max'");
  }
  // v1 spells "no limit" as PAGE_COUNTER_MAX pages, just under 2^63.
  if (*value >= (uint64_t{1} << 62)) return std::nullopt;
  return value;
}

std::map<std::string, uint64_t> ParseMemoryStat(std::string_view text) {
  std::map<std::string, uint64_t> stat;
  for (std::string_view line : SplitLines(text)) {
    size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    if (auto value = ParseNumber(line.substr(space + 1))) {
      stat[std::string(line.substr(0, space))] = *value;
    }
  }
  return stat;
}

std::optional<uint64_t> ReadMemoryLimit(const MemoryCgroup& cgroup) {
  if (cgroup.version == CgroupVersion::kV1) {
    // v1 already folds the ancestors' limits into this stat.
    auto stat = ParseMemoryStat(ReadFileOrThrow(cgroup.dir + "/memory.stat"));
    auto it = stat.find("hierarchical_memory_limit");
    if (it != stat.end()) {
      return ParseMemoryLimit(std::to_string(it->second));
    }
    return ParseMemoryLimit(
        ReadFileOrThrow(cgroup.dir + "/memory.limit_in_bytes"));
  }
  // v2: walk up while memory.max exists (the root has none).
  std::optional<uint64_t> limit;
  for (std::string dir = cgroup.dir; Exists(dir + "/memory.max");
       dir = dir.substr(0, dir.rfind('/'))) {
    std::optional<uint64_t> own =
        ParseMemoryLimit(ReadFileOrThrow(dir + "/memory.max"));
    if (own && (!limit || *own < *limit)) limit = own;
  }
  return limit;
}

CgroupMemoryUsage ReadMemoryUsage(const MemoryCgroup& cgroup) {
  bool v1 = cgroup.version == CgroupVersion::kV1;
  auto stat = ParseMemoryStat(ReadFileOrThrow(cgroup.dir + "/memory.stat"));
  std::string usage = ReadFileOrThrow(
      cgroup.dir + (v1 ? "/memory.usage_in_bytes" : "/memory.current"));
  CgroupMemoryUsage result;
  result.usage = ParseNumber(TrimNewline(usage)).value_or(0);
  result.file = StatValue(stat, v1 ? "total_cache" : "file");
  result.anon = StatValue(stat, v1 ? "total_rss" : "anon");
  result.active_file = StatValue(stat, v1 ? "total_active_file" : "active_file");
  result.inactive_file =
      StatValue(stat, v1 ? "total_inactive_file" : "inactive_file");
  return result;
}

int RemoveOrphanedChildCgroups(const MemoryCgroup& parent, const std::string& prefix) {
  std::error_code error;
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(parent.dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::optional<uint64_t> pid = ParseNumber(std::string_view(name).substr(prefix.size()));
    if (!pid || *pid == 0 || *pid > static_cast<uint64_t>(INT32_MAX)) continue;
    if (kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    if (parent.version == CgroupVersion::kV1) {
      WriteValue(entry.path().string() + "/memory.force_empty", "0");
    }
    if (rmdir(entry.path().c_str()) == 0) removed++;
  }
  return removed;
}

// ChildCgroup

std::unique_ptr<ChildCgroup> ChildCgroup::Create(const MemoryCgroup& parent,
                                                 const std::string& name,
                                                 uint64_t limit_bytes) {
  bool v1 = parent.version == CgroupVersion::kV1;
  if (!v1) {
    // No internal processes: a v2 cgroup with processes of its own cannot
    // distribute a controller to children (unless it is the root).
    std::string subtree = ReadFileOrThrow(parent.dir + "/cgroup.subtree_control");
    if (subtree.find("memory") == std::string::npos) {
      int error = WriteValue(parent.dir + "/cgroup.subtree_control", "+memory");
      if (error == EBUSY) {
        throw CgroupError(
            "cannot enable the memory controller for children of " +
            parent.dir +
            ": it has processes of its own (cgroup v2 'no internal "
            "processes' rule); move this process into a leaf cgroup first");
      }
      if (error != 0) {
        throw CgroupError("cannot write '+memory' to " + parent.dir +
                          "/cgroup.subtree_control: " + ErrnoText(error) +
                          "; " + kNeedRoot);
      }
    }
  }
  MemoryCgroup child{parent.version, parent.dir + "/" + name};
  if (mkdir(child.dir.c_str(), 0755) != 0) {
    throw CgroupError("cannot create a memory cgroup " + child.dir + ": " +
                      ErrnoText(errno) + "; " + kNeedRoot);
  }
  // From here the destructor removes the directory, also on error.
  std::unique_ptr<ChildCgroup> result(
      new ChildCgroup(parent, child, limit_bytes));
  std::string limit = std::to_string(limit_bytes);
  if (v1) {
    WriteOrThrow(child.dir + "/memory.limit_in_bytes", limit, kNeedRoot);
    // memsw counts memory + swap: equal to the limit means no swap.
    if (Exists(child.dir + "/memory.memsw.limit_in_bytes")) {
      WriteOrThrow(child.dir + "/memory.memsw.limit_in_bytes", limit,
                   kNeedRoot);
    }
    WriteOrThrow(child.dir + "/memory.swappiness", "0", kNeedRoot);
  } else {
    WriteOrThrow(child.dir + "/memory.max", limit, kNeedRoot);
    if (Exists(child.dir + "/memory.swap.max")) {
      WriteOrThrow(child.dir + "/memory.swap.max", "0", kNeedRoot);
    }
  }
  return result;
}

ChildCgroup::ChildCgroup(MemoryCgroup parent, MemoryCgroup cgroup,
                         uint64_t limit_bytes)
    : parent_(std::move(parent)),
      cgroup_(std::move(cgroup)),
      limit_bytes_(limit_bytes) {}

ChildCgroup::~ChildCgroup() {
  std::ifstream procs(cgroup_.dir + "/cgroup.procs");
  std::string pid;
  while (procs >> pid) WriteValue(parent_.dir + "/cgroup.procs", pid);
  if (cgroup_.version == CgroupVersion::kV1) {
    WriteValue(cgroup_.dir + "/memory.force_empty", "0");
  }
  // A just-reaped process may hold the cgroup busy for a moment.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (rmdir(cgroup_.dir.c_str()) == 0 || errno != EBUSY) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::fprintf(stderr, "warning: could not remove cgroup %s: %s; rmdir it\n",
               cgroup_.dir.c_str(), ErrnoText(errno).c_str());
}

void ChildCgroup::AddProcess(pid_t pid) {
  WriteOrThrow(cgroup_.dir + "/cgroup.procs", std::to_string(pid), kNeedRoot);
}

// InterruptGuard

namespace {

constexpr int kGuardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
volatile sig_atomic_t g_received_signal = 0;
struct sigaction g_old_actions[std::size(kGuardedSignals)];

void RecordSignal(int signal) { g_received_signal = signal; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_received_signal = 0;
  struct sigaction action = {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < std::size(kGuardedSignals); ++i) {
    sigaction(kGuardedSignals[i], &action, &g_old_actions[i]);
  }
}

InterruptGuard::~InterruptGuard() {
  for (size_t i = 0; i < std::size(kGuardedSignals); ++i) {
    sigaction(kGuardedSignals[i], &g_old_actions[i], nullptr);
  }
}

int InterruptGuard::received() { return g_received_signal; }

// RunInChildCgroup
//
// The child must not run a single instruction of `body` before it is in
// the cgroup, or its first charges would land in the parent's cgroup. It
// blocks on a pipe until the parent has written its pid to cgroup.procs.

int RunInChildCgroup(ChildCgroup& cgroup, const std::function<int()>& body,
                     const std::function<void()>& poll, int poll_ms) {
  int go[2];
  if (pipe2(go, O_CLOEXEC) != 0) {
    throw CgroupError("cannot create a pipe: " + ErrnoText(errno));
  }
  std::fflush(nullptr);  // or the child would print buffered output again
  pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    close(go[0]);
    close(go[1]);
    throw CgroupError("cannot fork: " + ErrnoText(error));
  }
  if (pid == 0) {
    for (const int guarded : kGuardedSignals) signal(guarded, SIG_DFL);
    close(go[1]);
    char byte;
    ssize_t got;
    do {
      got = read(go[0], &byte, 1);
    } while (got < 0 && errno == EINTR);
    int status = 125;  // the parent gave up before releasing us
    if (got == 1) {
      try {
        status = body();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        status = 1;
      }
    }
    std::fflush(nullptr);
    _exit(status);
  }
  close(go[0]);
  auto reap = [pid](int options) -> std::optional<int> {
    int status = 0;
    pid_t done = waitpid(pid, &status, options);
    if (done != pid) return std::nullopt;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  };
  try {
    cgroup.AddProcess(pid);
    if (write(go[1], "g", 1) != 1) {
      throw CgroupError("cannot start the child: " + ErrnoText(errno));
    }
    close(go[1]);
    go[1] = -1;
    for (;;) {
      for (int waited = 0; waited < poll_ms; waited += 5) {
        if (auto status = reap(WNOHANG)) return *status;
        if (InterruptGuard::received() != 0) {
          throw CgroupError("interrupted by signal " +
                            std::to_string(InterruptGuard::received()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      poll();
    }
  } catch (...) {
    if (go[1] >= 0) close(go[1]);
    kill(pid, SIGKILL);
    reap(0);
    throw;
  }
}

}  // namespace symbiosis
