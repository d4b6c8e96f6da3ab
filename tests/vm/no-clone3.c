/* no-clone3 PROGRAM [ARG...]: runs PROGRAM with clone3(2) failing with
 * ENOSYS, as on a kernel before 5.3 or under a seccomp profile that hides
 * it (Docker's default does).  For tests/vm/cgroup-v2.sh: agentrt must
 * then fall back to clone(2) and move the process into its cgroup. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  struct sock_filter code[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof code / sizeof code[0], code };

  if (argc < 2)
    {
      fputs ("usage: no-clone3 PROGRAM [ARG...]\n", stderr);
      return 2;
    }
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0
      || prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
    {
      perror ("no-clone3: seccomp");
      return 1;
    }
  execvp (argv[1], argv + 1);
  perror ("no-clone3: exec");
  return 127;
}
