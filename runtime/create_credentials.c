/* create, hardened, with injected credentials: the sidecar's message and
 * the agent's CA bundle (see create_ctx.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/create_ctx.h"
#include "runtime/credential_read.h"

/* The image's (or the engine's) CA bundle, Debian's path. */
#define IMAGE_CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
#define IMAGE_BUNDLE_MAX (8 * 1024 * 1024)

static char *
read_bundle (int fd, size_t *len)
{
  size_t cap = 1 << 16;
  char *buf = xmalloc (cap);
  ssize_t n;

  *len = 0;
  while ((n = read (fd, buf + *len, cap - *len)) > 0 || (n < 0 && errno == EINTR))
    {
      *len += n > 0 ? (size_t) n : 0;
      if (*len == cap && cap < IMAGE_BUNDLE_MAX)
        buf = xrealloc (buf, cap *= 2);
      else if (*len == cap)
        break;
    }
  return buf;
}

static int
bind_bundle (struct create_ctx *ctx, const char *name, const char *dest, agentrt_error_t *err)
{
  int tree = (int) syscall (SYS_open_tree, ctx->rb.dir.dirfd, name,
                            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree < 0)
    return agentrt_error (err, errno, "the agent's CA bundle: open_tree `%s/%s`",
                          ctx->rb.dir.path, name);
  mount_plan_add_file (&ctx->plan.mounts, dest, tree);
  return 0;
}

int
create_credentials (struct create_ctx *ctx, agentrt_error_t *err)
{
  static const char name[] = "ca-bundle.pem";
  const struct harden_directives *d = &ctx->hardening.result.directives;
  cleanup_free char *ca_cert = NULL, *image = NULL, *text = NULL;
  cleanup_close int fd = -1;
  size_t len = 0;

  if (!ctx->hardening.enforced || d->n_credentials == 0)
    return 0;
  if (!ctx->net.listeners)
    return agentrt_error (err, EINVAL, "credentials: no egress sidecar serves this "
                          "container to add them");
  if (credential_message (&ctx->hardening.policy, d, ctx->req->id, &ctx->inject_msg,
                          &ctx->inject_len, &ca_cert, err) < 0)
    return -1;
  fd = create_open_container_file (ctx, IMAGE_CA_BUNDLE);
  if (fd >= 0)
    image = read_bundle (fd, &len);
  text = xasprintf ("%.*s%s%s", (int) len, image ? image : "",
                    len && image[len - 1] != '\n' ? "\n" : "", ca_cert);
  if (state_dir_write (&ctx->rb.dir, name, text, strlen (text), err) < 0)
    return agentrt_error_wrap (err, "the agent's CA bundle");
  if (fchmodat (ctx->rb.dir.dirfd, name, 0644, 0) < 0)
    return agentrt_error (err, errno, "the agent's CA bundle: chmod `%s/%s`",
                          ctx->rb.dir.path, name);
  if (bind_bundle (ctx, name, HARDEN_CA_BUNDLE, err) < 0)
    return -1;
  /* Programs that read the image's bundle and no variable trust it too. */
  return fd >= 0 ? bind_bundle (ctx, name, IMAGE_CA_BUNDLE, err) : 0;
}
