/* Reading an injected credential's value at create
 * (runtime/credential_read.h), hostile sources first: a symlink (to a
 * good file, even), a fifo nobody writes (refused at once, not waited
 * on, and never opened: its writer stays blocked), a device, a directory, a file whose read fails, an empty or
 * oversized value, a NUL or a line break inside it, a variable that is
 * not set; then the good ones (the trailing newline, or CR LF, dropped). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "runtime/credential_read.h"
#include "tests/unit/unit.h"

static char dir[] = "/tmp/agentrt-credread.XXXXXX";

static char *
path_of (const char *name)
{
  return xasprintf ("%s/%s", dir, name);
}

static void
put_file (const char *name, const char *data, size_t n)
{
  char *p = path_of (name);
  FILE *f = fopen (p, "w");

  CHECK (f != NULL);
  if (f)
    {
      CHECK (fwrite (data, 1, n, f) == n);
      fclose (f);
    }
  free (p);
}

/* The value read from source, or NULL with the error's message in *why. */
static char *
read_source (const char *source, char **why)
{
  struct credential_decl d = { .name = (char *) "GH", .source = (char *) source };
  agentrt_error_t err = NULL;
  char *value = NULL;
  size_t len = 0;

  *why = NULL;
  if (credential_read_value (&d, &value, &len, &err) < 0)
    {
      *why = xstrdup (err ? err->msg : "(no message)");
      agentrt_error_release (&err);
      return NULL;
    }
  CHECK (strlen (value) == len);
  return value;
}

static void
expect_refused (const char *source, const char *needle)
{
  char *why, *value = read_source (source, &why);

  if (value)
    fprintf (stderr, "accepted `%s`: `%s`\n", source, value);
  CHECK (value == NULL);
  CHECK_CONTAINS (why, needle);
  free (value);
  free (why);
}

static void
test_hostile_files (void)
{
  char big[CREDENTIAL_VALUE_MAX + 2];
  char *good, *link, *fifo, *src;

  put_file ("good", "ghp_value\n", 10);
  good = path_of ("good");
  link = path_of ("link");
  fifo = path_of ("fifo");
  CHECK (symlink (good, link) == 0);
  CHECK (mkfifo (fifo, 0600) == 0);

  src = xasprintf ("file:%s", link);
  expect_refused (src, "credential GH: file:");
  free (src);
  src = xasprintf ("file:%s", fifo); /* opened non-blocking: no writer, no wait */
  expect_refused (src, "not a regular file");
  free (src);
  expect_refused ("file:/dev/zero", "not a regular file");
  src = xasprintf ("file:%s", dir);
  expect_refused (src, "not a regular file");
  free (src);
  /* a regular file whose read fails (address 0 is not mapped: EIO):
   * refused naming the read, not taken as an empty or short value */
  expect_refused ("file:/proc/self/mem", "credential GH: file:/proc/self/mem: read");
  src = xasprintf ("file:%s/missing", dir);
  expect_refused (src, "credential GH: file:");
  free (src);

  static const struct
  {
    const char *name, *data;
    size_t n;
  } bad[] = {
    { "empty", "", 0 },        { "newline", "\n", 1 },
    { "nul", "ghp_a\0b\n", 8 }, { "lines", "ghp_a\nX-Evil: 1\n", 16 },
    { "cr", "ghp_a\rb\n", 8 },  { "spaced", " ghp_a\n", 7 },
  };
  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    {
      put_file (bad[i].name, bad[i].data, bad[i].n);
      src = xasprintf ("file:%s/%s", dir, bad[i].name);
      expect_refused (src, "cannot go in a header");
      free (src);
    }
  memset (big, 'a', sizeof big);
  put_file ("big", big, sizeof big);
  src = xasprintf ("file:%s/big", dir);
  expect_refused (src, "longer than");
  free (src);
  unsetenv ("AGENTRT_TEST_UNSET");
  expect_refused ("env:AGENTRT_TEST_UNSET", "not in the runtime's environment");
  setenv ("AGENTRT_TEST_BAD", "a\r\nX-Evil: 1", 1);
  expect_refused ("env:AGENTRT_TEST_BAD", "cannot go in a header");

  unlink (link);
  unlink (fifo);
  free (good);
  free (link);
  free (fifo);
}

/* A FIFO is refused without being opened: opening it would let a writer
 * blocked in open(2) go on (as opening a device node acts on the device).
 * The writer is a child, waited for until the kernel shows it blocked
 * there (wchan), or 1 s where wchan says nothing. */
static void
test_fifo_never_opened (void)
{
  char *fifo = path_of ("fifo-writer"), *src = xasprintf ("file:%s", fifo), wchan[64] = "";
  char *wpath;
  pid_t pid;
  int status;

  CHECK (mkfifo (fifo, 0600) == 0);
  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0)
    _exit (open (fifo, O_WRONLY) >= 0 ? 0 : 1); /* returns once a reader opens it */
  wpath = xasprintf ("/proc/%d/wchan", (int) pid);
  for (int i = 0; i < 100 && strcmp (wchan, "wait_for_partner") != 0; i++)
    {
      FILE *f = fopen (wpath, "r");
      if (f)
        {
          if (fgets (wchan, sizeof wchan, f) == NULL)
            wchan[0] = '\0';
          fclose (f);
        }
      nanosleep (&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
    }
  expect_refused (src, "not a regular file");
  nanosleep (&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
  CHECK (waitpid (pid, &status, WNOHANG) == 0); /* still blocked: never opened */
  kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  free (wpath);
  free (src);
  free (fifo);
}

static void
test_good (void)
{
  char big[CREDENTIAL_VALUE_MAX + 1];
  char *why, *value, *src;

  put_file ("crlf", "ghp_value\r\n", 11);
  src = xasprintf ("file:%s/crlf", dir);
  value = read_source (src, &why);
  CHECK_STR_EQ (value, "ghp_value");
  free (value);
  free (why);
  free (src);
  memset (big, 'b', sizeof big);
  big[CREDENTIAL_VALUE_MAX] = '\n';
  put_file ("max", big, sizeof big);
  src = xasprintf ("file:%s/max", dir);
  value = read_source (src, &why);
  CHECK (value && strlen (value) == CREDENTIAL_VALUE_MAX);
  free (value);
  free (why);
  free (src);
  setenv ("AGENTRT_TEST_GOOD", "Bearer x y", 1);
  value = read_source ("env:AGENTRT_TEST_GOOD", &why);
  CHECK_STR_EQ (value, "Bearer x y");
  free (value);
  free (why);
}

int
main (void)
{
  static const char *const names[]
      = { "good", "empty", "newline", "nul", "lines", "cr", "spaced", "big", "crlf", "max",
          "fifo-writer" };

  if (mkdtemp (dir) == NULL)
    return 99;
  RUN_TEST (test_hostile_files);
  RUN_TEST (test_fifo_never_opened);
  RUN_TEST (test_good);
  for (size_t i = 0; i < sizeof (names) / sizeof (*names); i++)
    {
      char *p = path_of (names[i]);
      unlink (p);
      free (p);
    }
  rmdir (dir);
  return UNIT_EXIT ();
}
