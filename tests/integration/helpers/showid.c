/* showid: prints the real and effective uid, for the nosuid tests (busybox
 * drops setuid privileges itself, so it cannot show whether the kernel
 * honoured the bit).  Built statically by helpers.bash. */
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  printf ("uid=%d euid=%d\n", (int) getuid (), (int) geteuid ());
  return 0;
}
