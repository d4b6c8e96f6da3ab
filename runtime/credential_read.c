/* Injected credentials at create, the runtime's side (see credential_read.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/credential_read.h"
#include "runtime/egress/inject_wire.h"
#include "runtime/monitor.h"

#define CA_OUTPUT_MAX 16384

int
credential_read_value (const struct credential_decl *d, char **value, size_t *len,
                       agentrt_error_t *err)
{
  char *buf = xmalloc (CREDENTIAL_VALUE_MAX + 3);
  size_t n = 0;

  *value = NULL;
  if (strncmp (d->source, "env:", 4) == 0)
    {
      const char *v = getenv (d->source + 4);
      if (v == NULL)
        {
          free (buf);
          return agentrt_error (err, ENOENT, "credential %s: %s: not in the runtime's "
                                "environment", d->name, d->source);
        }
      n = strnlen (v, CREDENTIAL_VALUE_MAX + 2);
      memcpy (buf, v, n);
    }
  else
    {
      /* (a symlink is refused as not a regular file: its fd is its own) */
      cleanup_close int fd = io_open_regular (open (d->source + 5, O_PATH | O_CLOEXEC | O_NOFOLLOW));
      ssize_t r = 0;

      if (fd < 0)
        {
          free (buf);
          return agentrt_error (err, errno, "credential %s: %s: %s", d->name, d->source,
                                errno == EINVAL ? "not a regular file" : "open");
        }
      while (n < CREDENTIAL_VALUE_MAX + 3
             && ((r = read (fd, buf + n, CREDENTIAL_VALUE_MAX + 3 - n)) > 0
                 || (r < 0 && errno == EINTR)))
        n += r > 0 ? (size_t) r : 0;
      /* a read that failed midway would leave a short value */
      if (n < CREDENTIAL_VALUE_MAX + 3 && r < 0)
        {
          int saved = errno;
          explicit_bzero (buf, n);
          free (buf);
          return agentrt_error (err, saved, "credential %s: %s: read", d->name, d->source);
        }
    }
  if (n && buf[n - 1] == '\n')
    n--;
  if (n && buf[n - 1] == '\r')
    n--;
  if (!credential_value_valid (buf, n))
    {
      explicit_bzero (buf, CREDENTIAL_VALUE_MAX + 3);
      free (buf);
      return agentrt_error (err, EINVAL, "credential %s: %s: the value is empty, longer "
                            "than %d bytes, or holds a byte that cannot go in a header",
                            d->name, d->source, CREDENTIAL_VALUE_MAX);
    }
  buf[n] = '\0';
  *value = buf;
  *len = n;
  return 0;
}

/* agentrt-egress --make-ca: its output (key, then certificate). */
static char *
make_ca (const char *id, const char *hosts, uint64_t lifetime, size_t *len,
         agentrt_error_t *err)
{
  cleanup_free char *binary = monitor_egress_binary ();
  char days[16], *out = NULL;
  char *argv[] = { (char *) "agentrt-egress", (char *) "--make-ca", (char *) hosts,
                   (char *) "--id", (char *) id, (char *) "--ca-days", days, NULL };
  char *envp[] = { NULL };
  int pfd[2], status = 0;
  pid_t pid;
  ssize_t r;

  if (binary == NULL)
    return agentrt_error (err, ENOENT, "the container's CA: agentrt-egress not found"),
           NULL;
  snprintf (days, sizeof days, "%llu", (unsigned long long) (lifetime / 86400 + 2));
  if (pipe2 (pfd, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "the container's CA: pipe"), NULL;
  pid = fork ();
  if (pid == 0)
    {
      if (dup2 (pfd[1], STDOUT_FILENO) < 0 || dup2 (pfd[1], STDERR_FILENO) < 0)
        _exit (127);
      execve (binary, argv, envp);
      _exit (127);
    }
  close (pfd[1]);
  if (pid < 0)
    {
      close (pfd[0]);
      return agentrt_error (err, errno, "the container's CA: fork"), NULL;
    }
  out = xmalloc (CA_OUTPUT_MAX + 1);
  *len = 0;
  while (*len < CA_OUTPUT_MAX
         && ((r = read (pfd[0], out + *len, CA_OUTPUT_MAX - *len)) > 0 || (r < 0 && errno == EINTR)))
    *len += r > 0 ? (size_t) r : 0;
  close (pfd[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  out[*len] = '\0';
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0 || strstr (out, "-----BEGIN CERTIFICATE") == NULL)
    {
      char *nl = strchr (out, '\n');
      if (nl)
        *nl = '\0';
      agentrt_error (err, EINVAL, "the container's CA cannot be made: %.200s",
                     WIFEXITED (status) && WEXITSTATUS (status) == 127 ? "agentrt-egress did not run"
                                                                      : out);
      explicit_bzero (out, CA_OUTPUT_MAX);
      free (out);
      return NULL;
    }
  return out;
}

static const struct credential_decl *
declared (const struct agent_policy *policy, const char *name)
{
  for (size_t i = 0; i < policy->n_inject; i++)
    if (strcmp (policy->inject[i].name, name) == 0)
      return &policy->inject[i];
  return NULL;
}

static int
add_credential (const struct credential_decl *decl, const struct harden_credential *hc,
                char **msg, size_t *len, agentrt_error_t *err)
{
  const char *header = decl->header ? decl->header : CREDENTIAL_DEFAULT_HEADER;
  char *value;
  size_t vlen;
  bool ok;

  if (credential_read_value (decl, &value, &vlen, err) < 0)
    return -1;
  ok = inject_wire_put (msg, len, "name", decl->name, strlen (decl->name))
       && inject_wire_put (msg, len, "header", header, strlen (header))
       && inject_wire_put (msg, len, "standin", hc->standin, strlen (hc->standin))
       && inject_wire_put (msg, len, "value", value, vlen);
  for (size_t k = 0; ok && k < decl->hosts.len; k++)
    ok = inject_wire_put (msg, len, "host", decl->hosts.items[k], strlen (decl->hosts.items[k]));
  explicit_bzero (value, vlen);
  free (value);
  return ok ? 0 : agentrt_error (err, E2BIG, "credentials: more than %d bytes for the sidecar",
                                 INJECT_WIRE_MAX);
}

/* The values read from the runtime's environment leave it: the monitor
 * forked next would keep them in its /proc/PID/environ (the original
 * strings, which getenv points at) for the container's life. */
static void
forget_env_sources (const struct agent_policy *policy, const struct harden_directives *dir)
{
  for (size_t i = 0; i < dir->n_credentials; i++)
    {
      const struct credential_decl *decl = declared (policy, dir->credentials[i].name);
      char *v = strncmp (decl->source, "env:", 4) == 0 ? getenv (decl->source + 4) : NULL;

      if (v)
        {
          explicit_bzero (v, strlen (v));
          unsetenv (decl->source + 4);
        }
    }
}

int
credential_message (const struct agent_policy *policy, const struct harden_directives *dir,
                    const char *id, char **msg, size_t *len, char **ca_cert,
                    agentrt_error_t *err)
{
  struct str_list hosts = { NULL, 0 };
  cleanup_free char *joined = NULL;
  char *ca, *cert;
  size_t ca_len;
  int r = 0;

  *msg = NULL;
  *len = 0;
  *ca_cert = NULL;
  for (size_t i = 0; i < dir->n_credentials; i++)
    {
      const struct credential_decl *decl = declared (policy, dir->credentials[i].name);
      if (decl == NULL)
        {
          str_list_free (&hosts);
          return agentrt_error (err, ENOENT, "credential %s: not declared by the policy "
                                "(credentials.inject)", dir->credentials[i].name);
        }
      for (size_t k = 0; k < decl->hosts.len; k++)
        if (!str_list_contains (&hosts, decl->hosts.items[k]))
          str_list_append (&hosts, decl->hosts.items[k]);
    }
  joined = str_list_join (&hosts, ",");
  str_list_free (&hosts);
  ca = make_ca (id, joined, dir->lifetime, &ca_len, err);
  if (ca == NULL)
    return -1;
  cert = strstr (ca, "-----BEGIN CERTIFICATE");
  if (!inject_wire_put (msg, len, "ca-key", ca, (size_t) (cert - ca))
      || !inject_wire_put (msg, len, "ca-cert", cert, strlen (cert)))
    r = agentrt_error (err, E2BIG, "credentials: the CA does not fit the sidecar's message");
  for (size_t i = 0; r == 0 && i < dir->n_credentials; i++)
    r = add_credential (declared (policy, dir->credentials[i].name), &dir->credentials[i], msg,
                        len, err);
  if (r == 0)
    *ca_cert = xstrdup (cert);
  forget_env_sources (policy, dir);
  explicit_bzero (ca, ca_len);
  free (ca);
  if (r < 0 && *msg)
    {
      explicit_bzero (*msg, *len);
      free (*msg);
      *msg = NULL;
      *len = 0;
    }
  return r;
}
