/* showmempolicy: prints the calling thread's NUMA memory policy as
 * "MODE[ FLAG...] nodes=LIST" (get_mempolicy(2)), for the
 * linux.memoryPolicy tests: busybox has no tool that shows it.  Built
 * statically by helpers.bash. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NODES 1024

int
main (void)
{
  static const char *const modes[] = {
    "MPOL_DEFAULT", "MPOL_PREFERRED", "MPOL_BIND", "MPOL_INTERLEAVE",
    "MPOL_LOCAL", "MPOL_PREFERRED_MANY", "MPOL_WEIGHTED_INTERLEAVE",
  };
  unsigned long nodes[MAX_NODES / (8 * sizeof (unsigned long))] = { 0 };
  const char *sep = "";
  int mode = -1, m, i;

  if (syscall (SYS_get_mempolicy, &mode, nodes, MAX_NODES + 1, NULL, 0) < 0)
    {
      perror ("get_mempolicy");
      return 1;
    }
  m = mode & 0xff;
  printf ("%s", m >= 0 && m < 7 ? modes[m] : "MPOL_?");
  if (mode & (1 << 15))
    printf (" MPOL_F_STATIC_NODES");
  if (mode & (1 << 14))
    printf (" MPOL_F_RELATIVE_NODES");
  if (mode & (1 << 13))
    printf (" MPOL_F_NUMA_BALANCING");
  printf (" nodes=");
  for (i = 0; i < MAX_NODES; i++)
    if ((nodes[i / (8 * sizeof (unsigned long))] >> (i % (8 * sizeof (unsigned long)))) & 1)
      {
        printf ("%s%d", sep, i);
        sep = ",";
      }
  printf ("\n");
  return 0;
}
