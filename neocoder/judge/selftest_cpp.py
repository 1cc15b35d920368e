"""The C++ half of the sandbox regression corpus (issue 49): the same attacks in C++, and
attacks on the compile step itself, each with its expected verdict; known-good programs
that must be AC.

Each case is a ``selftest.Case`` with ``language="cpp"``: ``run_selftest`` compiles it
with the runner's g++ (sandbox/runner/native.py) and judges it like a Python case (a
canary after it, in the same worker where asked; a follow-up Python program that looks
for anything left behind).  The Python corpus (``selftest.CASES``) is unchanged.
"""

from __future__ import annotations

from neocoder.judge.selftest import LEFTOVERS, LIMITS, MEMORY_ATTACK_LIMITS, Case
from neocoder.judge.verdicts import CE, CPP

HEAD = "#include <bits/stdc++.h>\n#include <unistd.h>\n#include <signal.h>\n#include <sys/socket.h>\n" \
       "#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <dirent.h>\n#include <sys/stat.h>\n" \
       "using namespace std;\n"

# Signals every process it can see in /proc (and -1), never itself.
SIGNAL_EVERYTHING = HEAD + r'''
static void signal_everything(int sig) {
    DIR* d = opendir("/proc"); struct dirent* e;
    while (d && (e = readdir(d))) { int pid = atoi(e->d_name); if (pid > 0 && pid != getpid()) kill(pid, sig); }
    if (d) closedir(d);
    kill(-1, sig);
}
'''

# Looks for the test's expected output where a leak could put it: the scratch folders a test
# shares with the runner's earlier work, and every other process's cmdline and environ.  The
# marker is built at run time from its pieces (so the program's own binary, /tmp/.solution,
# never holds it whole), and its own process is skipped.  Found: it prints the marker, the
# expected output, and gets AC; not found: "not found", WA.  So the case (expecting WA) fails
# exactly when the expected output is readable.  Input "plant TEXT" writes TEXT to
# /tmp/planted first: tests/judge/test_cpp.py plants the marker that way to show a leak is found.
FIND_EXPECTED = HEAD + r'''
static string marker, found;
static void look(const string& path) {
    ifstream f(path, ios::binary); if (!f) return;
    string data((istreambuf_iterator<char>(f)), istreambuf_iterator<char>());
    if (data.find(marker) != string::npos) found = path;
}
static void walk(const string& dir, int depth) {
    DIR* d = opendir(dir.c_str()); if (!d) return; struct dirent* e;
    while ((e = readdir(d))) {
        string name = e->d_name; if (name == "." || name == "..") continue;
        string path = dir + "/" + name;
        if (e->d_type == DT_DIR && depth > 0) walk(path, depth - 1); else if (e->d_type == DT_REG) look(path);
    }
    closedir(d);
}
int main() {
    string in((istreambuf_iterator<char>(cin)), istreambuf_iterator<char>());
    if (in.rfind("plant ", 0) == 0) { ofstream("/tmp/planted") << in.substr(6); cout << "planted" << endl; return 0; }
    for (int c : {101, 120, 112, 101, 99, 116, 101, 100, 45, 55, 102, 51, 97}) marker += char(c);  // expected-7f3a
    walk("/tmp", 3); walk("/dev/shm", 3); walk("/dev/mqueue", 1);
    DIR* d = opendir("/proc"); struct dirent* e;
    while (d && (e = readdir(d))) if (atoi(e->d_name) > 0 && atoi(e->d_name) != getpid())
        for (const char* f : {"cmdline", "environ"}) look(string("/proc/") + e->d_name + "/" + f);
    cout << (found.empty() ? string("not found") : marker) << "\n";
}
'''

# Lowers its OOM score (to the runner's, where the kernel lets it) in each of 50 processes,
# then spreads about 350 MiB over them, a few MiB each: each is smaller than the runner, so
# at an equal score the OOM killer would take the runner (RE, the worker replaced).  It
# must be the program that is killed: MLE.
OOM_TRICK = HEAD + r'''
#include <sys/wait.h>
#include <fcntl.h>
int main() {
    for (int i = 0; i < 50; i++) if (fork() == 0) {
        int fd = open("/proc/self/oom_score_adj", O_WRONLY); if (fd >= 0) { (void)!write(fd, "0", 1); close(fd); }
        for (int m = 0; m < 7; m++) { char* p = (char*)malloc(1 << 20); memset(p, 1, 1 << 20); usleep(20000); }
        pause(); _exit(0);
    }
    while (wait(nullptr) > 0) {}
    cout << "ok" << endl;
}
'''


def _main(body: str) -> str:
    """A whole program: HEAD and ``int main() { body }``."""
    return HEAD + "int main() {\n" + body + "\n}\n"


CPP_CASES = [
    Case("C++ infinite loop", _main("volatile long x = 0; for (;;) x++;"), {"TLE"}, language=CPP),
    Case("C++ sleep forever", _main("sleep(1000000);"), {"TLE"}, language=CPP),
    Case("C++ SIGTERM ignored", _main("signal(SIGTERM, SIG_IGN); volatile long x = 0; for (;;) x++;"), {"TLE"},
         language=CPP),
    Case("C++ 8 busy threads",
         _main("vector<thread> t; for (int i = 0; i < 8; i++) t.emplace_back([]{ volatile long x = 0; for (;;) x++; });"
               " for (auto& x : t) x.join();"),
         {"TLE"}, needs=frozenset({"memory cgroup"}), language=CPP),
    Case("C++ 8 busy processes", _main("for (int i = 0; i < 7; i++) if (fork() == 0) break;"
                                       " volatile long x = 0; for (;;) x++;"), {"TLE"}, language=CPP),
    Case("C++ memory bomb",
         _main("vector<char*> v; for (;;) {"
               " char* p = (char*)malloc(1 << 20); memset(p, 1, 1 << 20); v.push_back(p); }"),
         {"MLE"}, limits=MEMORY_ATTACK_LIMITS, language=CPP),
    Case("C++ one huge vector", _main("size_t n; cin >> n; vector<char> v(n << 34); cout << (int)v[n] << endl;"),
         {"MLE", "RE"}, limits=MEMORY_ATTACK_LIMITS, language=CPP),
    Case("C++ infinite recursion", "int f(int n) { volatile int a[64]; a[0] = n; return f(n + 1) + a[0]; }\n"
         "int main() { return f(0); }\n", {"RE", "MLE"}, limits=MEMORY_ATTACK_LIMITS,
         needs=frozenset({"memory cgroup"}), language=CPP),
    Case("C++ fork bomb", _main("for (;;) fork();"), {"RE", "TLE"}, language=CPP),
    Case("C++ thread bomb", _main("for (;;) thread([]{ sleep(100); }).detach();"), {"RE"}, language=CPP),
    Case("C++ double-forked daemon",
         _main('if (fork() == 0) { setsid();'
               ' if (fork() == 0) { execlp("sleep", "sleep", "777", (char*)0); } _exit(0); }'
               ' cout << "ok" << endl;'),
         {"AC"}, follow_up=LEFTOVERS, language=CPP),
    Case("C++ kill(-1, SIGKILL)", _main('kill(-1, SIGKILL); cout << "ok" << endl;'), {"AC"}, same_worker=True,
         language=CPP),
    Case("C++ SIGKILL to every process it can see",
         SIGNAL_EVERYTHING + 'int main() { signal_everything(SIGKILL); cout << "ok" << endl; }\n', {"AC"},
         same_worker=True, follow_up=LEFTOVERS, max_seconds=LIMITS.wall_seconds + 1, language=CPP),
    Case("C++ SIGSTOP to every process, then to itself",
         SIGNAL_EVERYTHING + "int main() { signal_everything(SIGSTOP); kill(getpid(), SIGSTOP); }\n", {"TLE"},
         same_worker=True, max_seconds=LIMITS.wall_seconds + 1, language=CPP),
    Case("C++ stdout flood", _main("string s(65536, 'x'); for (;;) cout << s << '\\n';"), {"OLE"}, language=CPP),
    Case("C++ uncaught exception (SIGABRT)", _main('throw runtime_error("no");'), {"RE"}, detail="SIGABRT",
         language=CPP),
    Case("C++ division by zero (SIGFPE)", _main("int n; cin >> n; cout << 5 / (n - 1) << endl;"), {"RE"},
         detail="SIGFPE", language=CPP),
    Case("C++ null write (SIGSEGV)", _main("int n; cin >> n; int* p = (int*)(long)(n - 1); *p = 1;"), {"RE"},
         detail="SIGSEGV", language=CPP),
    Case("C++ exit code 3", _main("return 3;"), {"RE"}, detail="exit code 3", language=CPP),
    Case("C++ filling /tmp",
         _main('FILE* f = fopen("/tmp/fill", "wb"); string s(1 << 20, 120);'
               ' while (f && fwrite(s.data(), 1, s.size(), f) == s.size() && fflush(f) == 0) {}'
               ' cout << "ok" << endl;'),
         {"AC"}, follow_up=LEFTOVERS, language=CPP),
    Case("C++ writing to /, /etc, g++ and its own binary",
         _main('string out; for (const char* p : {"/x", "/etc/passwd", "/usr/bin/g++", "/proc/self/exe"}) {'
               ' FILE* f = fopen(p, "a"); out += f ? "written " : "denied "; if (f) fclose(f); }'
               ' cout << (out == "denied denied denied denied " ? string("ok") : out) << endl;'),
         {"AC"}, language=CPP),
    Case("C++ files left for the next submission",
         _main('mkdir("/tmp/d", 0777); for (const char* p : {"/tmp/left", "/dev/shm/left", "/tmp/d/e"}) {'
               ' FILE* f = fopen(p, "w"); if (f) { fputs("x", f); fclose(f); } } chmod("/tmp/d", 0);'
               ' cout << "ok" << endl;'),
         {"AC"}, follow_up=LEFTOVERS, language=CPP),
    Case("C++ sockets to outside and to the host gateway",
         _main('string out; for (const char* host : {"192.0.2.1", "172.17.0.1"}) {'
               ' int s = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{};'
               ' a.sin_family = AF_INET; a.sin_port = htons(80);'
               ' inet_pton(AF_INET, host, &a.sin_addr);'
               ' out += (s >= 0 && connect(s, (sockaddr*)&a, sizeof a) == 0) ? "open " : "blocked "; }'
               ' cout << (out == "blocked blocked " ? string("ok") : out) << endl;'),
         {"AC"}, language=CPP),
    Case("C++ reading the expected output", FIND_EXPECTED, {"WA"}, output="expected-7f3a\n", language=CPP),
    Case("C++ OOM score lowered, memory over 50 processes", OOM_TRICK, {"MLE"}, limits=MEMORY_ATTACK_LIMITS,
         same_worker=True, needs=frozenset({"memory cgroup"}), language=CPP),
    # attacks on the compile step: each is a compile error (CE), never INFRA or a hang
    Case("C++ syntax error", "int main( {", {CE}, language=CPP),
    Case("C++ #include of an endless device", '#include "/dev/zero"\nint main() {}\n', {CE}, language=CPP),
    Case("C++ #include of its own stdin", "#include </dev/stdin>\nint main() {}\n", {CE}, language=CPP),
    Case("C++ #include of its own stdout (a hang at no CPU cost)", '#include "/dev/stdout"\nint main() {}\n', {CE},
         detail="refused at compile: /dev/stdout", max_seconds=5.0, language=CPP),
    Case("C++ /proc through a macro and ..", '#define F(x) #x\n#define G(x) F(x)\n#include G(../../proc/self/environ)\n'
         "int main() {}\n", {CE}, detail="refused at compile: ../../proc/self/environ", max_seconds=5.0,
         language=CPP),
    Case("C++ .incbin of a device (read by as)", 'asm(".incbin \\"/dev/stdout\\"");\nint main() {}\n', {CE},
         detail="refused at compile: /dev/stdout", max_seconds=5.0, language=CPP),
    Case("C++ a 1 GiB initialized array (binary over its size limit)",
         "char big[1 << 30] = {1};\nint main() { return big[0] - 1; }\n", {CE}, language=CPP),
    Case("C++ template explosion",
         "template<int N> struct F { static const long v = F<N - 1>::v + F<N - 2>::v; };\n"
         "template<> struct F<1> { static const long v = 1; };\ntemplate<> struct F<0> { static const long v = 0; };\n"
         "int main() { return F<100000>::v; }\n", {CE}, language=CPP),
    Case("C++ a 98 KB program", "int main() {}\n" + "// x\n" * 20000, {CE}, detail="limit 64 KB", max_seconds=5.0,
         language=CPP),
    # known-good programs: all must be AC
    Case("C++ deep recursion (10^6 frames)",
         "#include <bits/stdc++.h>\nint f(int n) { return n == 0 ? 0 : f(n - 1) + 1; }\n"
         "int main() { volatile int n = 1000000; std::cout << (f(n) == 1000000 ? \"ok\" : \"no\") << std::endl; }\n",
         {"AC"}, kind="good", language=CPP),
    Case("C++ __int128 and long double", _main('__int128 x = (__int128)1 << 100; long double y = 1.0L / 3;'
                                               ' cout << ((x >> 99) == 2 && y > 0.333L ? "ok" : "no") << endl;'),
         {"AC"}, kind="good", language=CPP),
    Case("C++ ONLINE_JUDGE is defined",
         '#include <bits/stdc++.h>\nint main() {\n#ifndef ONLINE_JUDGE\n freopen("input.txt", "r", stdin);\n#endif\n'
         ' int n; std::cin >> n; std::cout << (n == 1 ? "ok" : "no") << std::endl; }\n', {"AC"}, kind="good",
         language=CPP),
    Case("C++ #include <bits\\stdc++.h> (a Windows path)",
         "#include <bits\\stdc++.h>\nint main() { int n; std::cin >> n; std::cout << (n == 1 ? \"ok\" : \"no\"); }\n",
         {"AC"}, kind="good", language=CPP),
    Case("C++ without bits/stdc++.h",
         "#include <cstdio>\nint main() { int n; if (scanf(\"%d\", &n) == 1 && n == 1) puts(\"ok\"); }\n",
         {"AC"}, kind="good", language=CPP),
    Case("C++ printing 2*10^5 numbers", _main("for (int i = 0; i < 200000; i++) printf(\"%d\\n\", i);"), {"AC"},
         kind="good", output="\n".join(map(str, range(200000))) + "\n", language=CPP),
    Case("C++ threads joined", _main("atomic<int> s{0}; vector<thread> t; for (int i = 0; i < 4; i++)"
                                     " t.emplace_back([&]{ s += 1; }); for (auto& x : t) x.join();"
                                     ' cout << (s == 4 ? "ok" : "no") << endl;'),
         {"AC"}, kind="good", language=CPP),
]
