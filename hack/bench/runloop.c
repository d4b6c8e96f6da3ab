/* hack/bench/runloop.c: the interleaved timer behind hack/bench.sh (not
 * part of the build: bench.sh compiles it with `cc -O2`).
 *   runloop ROUNDS WARMUP PLAN
 * PLAN has one step per line, fields separated by tabs:
 *   VARIANT  STEP  MNTNS  ARG0 ARG1...
 * Every round runs each variant's steps in order, the variants one after
 * the other (A B C, then B C A, then C A B...: no variant always follows
 * the same one).  A step is fork + exec + wait, timed with CLOCK_MONOTONIC
 * around the whole; MNTNS, when not "-", is a /proc/PID/ns/mnt the child
 * joins before exec (crun's private mount namespace: joining costs the
 * child one setns, not an extra exec).  "@I@" in an argument becomes the
 * round number.  Children get /dev/null as stdin and stdout and share our
 * stderr.  Output, one line per timed step after WARMUP rounds:
 *   VARIANT STEP ROUND NANOSECONDS CPU-NANOSECONDS
 * CPU is user + system time of the step's process and of the children it
 * waited for (wait4's rusage): unlike the wall time it hardly depends on
 * what else the machine runs, but it misses processes left running (a
 * container's init after create, a monitor) and kernel threads' work.
 * A step that fails stops everything (exit 1): its time would be wrong. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 64
#define MAX_ARGS 32

struct step
{
  char *variant, *name, *mntns;
  char *argv[MAX_ARGS + 1];
};

static struct step steps[MAX_STEPS];
static int nsteps, nvariants;
static int variant_first[MAX_STEPS], variant_count[MAX_STEPS];

static void
die (const char *what)
{
  fprintf (stderr, "runloop: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void
read_plan (const char *path)
{
  char line[4096];
  FILE *f = fopen (path, "re");

  if (f == NULL)
    die (path);
  while (fgets (line, sizeof (line), f) && nsteps < MAX_STEPS)
    {
      struct step *s = &steps[nsteps];
      char *save = NULL, *tok;
      int n = 0;

      line[strcspn (line, "\n")] = '\0';
      if (line[0] == '\0' || line[0] == '#')
        continue;
      s->variant = strdup (strtok_r (line, "\t", &save));
      s->name = strdup (strtok_r (NULL, "\t", &save));
      s->mntns = strdup (strtok_r (NULL, "\t", &save));
      while ((tok = strtok_r (NULL, "\t", &save)) && n < MAX_ARGS)
        s->argv[n++] = strdup (tok);
      if (n == 0)
        {
          fprintf (stderr, "runloop: %s: step without a command\n", path);
          exit (2);
        }
      if (nsteps == 0 || strcmp (steps[nsteps - 1].variant, s->variant) != 0)
        variant_first[nvariants++] = nsteps;
      variant_count[nvariants - 1]++;
      nsteps++;
    }
  fclose (f);
}

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
subst_round (char **out, char *const *in, char *buf, size_t size, int round)
{
  size_t used = 0;

  for (; *in; in++, out++)
    {
      const char *at = strstr (*in, "@I@");
      int n;

      if (at == NULL)
        {
          *out = *in;
          continue;
        }
      n = snprintf (buf + used, size - used, "%.*s%d%s", (int) (at - *in), *in, round, at + 3);
      *out = buf + used;
      used += (size_t) n + 1;
    }
  *out = NULL;
}

static double
tv_ns (struct timeval tv)
{
  return tv.tv_sec * 1e9 + tv.tv_usec * 1e3;
}

/* Runs one step; returns its wall time, *cpu its CPU time (ns). */
static double
run_step (const struct step *s, int round, double *cpu)
{
  char *argv[MAX_ARGS + 1], buf[8192];
  int status, nsfd = -1;
  struct rusage ru;
  double t0, t;
  pid_t pid;

  subst_round (argv, s->argv, buf, sizeof (buf), round);
  if (strcmp (s->mntns, "-") != 0 && (nsfd = open (s->mntns, O_RDONLY | O_CLOEXEC)) < 0)
    die (s->mntns);
  t0 = now_ns ();
  pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      int null = open ("/dev/null", O_RDWR);
      dup2 (null, 0);
      dup2 (null, 1);
      if (nsfd >= 0 && setns (nsfd, CLONE_NEWNS) < 0)
        _exit (126);
      execvp (argv[0], argv);
      _exit (127);
    }
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      die ("wait4");
  t = now_ns () - t0;
  *cpu = tv_ns (ru.ru_utime) + tv_ns (ru.ru_stime);
  if (nsfd >= 0)
    close (nsfd);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "runloop: %s %s round %d: %s failed (status 0x%x)\n", s->variant,
               s->name, round, argv[0], status);
      exit (1);
    }
  return t;
}

int
main (int argc, char **argv)
{
  int rounds, warmup;

  if (argc != 4)
    {
      fprintf (stderr, "usage: runloop ROUNDS WARMUP PLAN\n");
      return 2;
    }
  rounds = atoi (argv[1]);
  warmup = atoi (argv[2]);
  read_plan (argv[3]);
  setvbuf (stdout, NULL, _IOLBF, 0);
  for (int round = 0; round < warmup + rounds; round++)
    for (int k = 0; k < nvariants; k++)
      {
        int v = (k + round) % nvariants;

        for (int i = 0; i < variant_count[v]; i++)
          {
            const struct step *s = &steps[variant_first[v] + i];
            double cpu, t = run_step (s, round, &cpu);

            if (round >= warmup)
              printf ("%s %s %d %.0f %.0f\n", s->variant, s->name, round - warmup, t, cpu);
          }
      }
  return 0;
}
