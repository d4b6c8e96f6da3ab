/* hack/bench/inns.c: the exec wrapper of hack/bench.sh's `parallel`
 * section (not part of the build: bench.sh compiles it with `cc -O2`).
 *   inns MNTNS|- COMMAND ARGS...
 * Runs COMMAND in the mount namespace MNTNS (a /proc/PID/ns/mnt: crun's,
 * see bench.sh), or where it is with "-".  Every runtime's commands go
 * through it, so that each pays the same extra exec. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int fd;

  if (argc < 3)
    {
      fprintf (stderr, "usage: inns MNTNS|- COMMAND ARGS...\n");
      return 127;
    }
  if (strcmp (argv[1], "-") != 0)
    {
      fd = open (argv[1], O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns (fd, CLONE_NEWNS) < 0)
        {
          perror (argv[1]);
          return 127;
        }
      close (fd);
    }
  execvp (argv[2], argv + 2);
  perror (argv[2]);
  return 127;
}
