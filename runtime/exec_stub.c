/* agentrt-exec-stub: the last image a container process runs before its
 * program.  Built static with no libc; agentrt embeds it and executes it
 * from a sealed memfd, so that when the program turns out to be a script
 * whose interpreter is /proc/self/exe (the CVE-2019-5736 trick), "self" is
 * this sealed copy and not the agentrt binary on the host.
 *
 *   agentrt-exec-stub PATH ARGV0 [ARGS...]   ->   execve (PATH, ARGV0..., envp)
 */
#include <asm/unistd.h>

static long
raw_syscall3 (long n, long a, long b, long c)
{
  long r;
#if defined(__x86_64__)
  __asm__ volatile ("syscall"
                    : "=a"(r)
                    : "a"(n), "D"(a), "S"(b), "d"(c)
                    : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__ ("x8") = n;
  register long x0 __asm__ ("x0") = a;
  register long x1 __asm__ ("x1") = b;
  register long x2 __asm__ ("x2") = c;
  __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
  r = x0;
#else
#error "agentrt-exec-stub: unsupported architecture"
#endif
  return r;
}

void __attribute__ ((noreturn, used))
stub_main (long *sp)
{
  long argc = sp[0];
  char **argv = (char **) (sp + 1);
  char **envp = argv + argc + 1;

  if (argc >= 3)
    raw_syscall3 (__NR_execve, (long) argv[1], (long) (argv + 2), (long) envp);
  for (;;)
    raw_syscall3 (__NR_exit_group, 127, 0, 0);
}

/* The entry point: hand the initial stack (argc, argv, envp) to C. */
#if defined(__x86_64__)
__asm__ (".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n"
         "\tcall stub_main\n");
#elif defined(__aarch64__)
__asm__ (".globl _start\n_start:\n\tmov x0, sp\n\tbl stub_main\n");
#endif
