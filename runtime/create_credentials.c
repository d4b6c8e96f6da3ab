/* create, hardened, with injected credentials: the sidecar's message and
 * the agent's CA bundle (see create_ctx.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/create_ctx.h"
#include "runtime/credential_read.h"
#include "runtime/path_resolve.h"

/* Where images keep the CA bundle that programs read when no variable
 * names one: Debian, Ubuntu, Alpine and Arch; Fedora, RHEL and CentOS
 * (the first a symlink to the second there); openSUSE; OpenSSL's default
 * file (Alpine's and others' symlink). */
static const char *const image_bundles[] = {
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
  NULL,
};
#define IMAGE_BUNDLE_MAX (8 * 1024 * 1024)

/* The file path names in the image, through its symlinks: where a bind
 * on path lands (false when the image has none there). */
static bool
image_file (struct create_ctx *ctx, const char *path, struct stat *st)
{
  cleanup_close int fd = path_open_in_root (ctx->plan.rootfd, path, O_PATH);

  return fd >= 0 && fstat (fd, st) == 0;
}

/* The CAs of the first bundle the container has (*image NULL for none),
 * and which of image_bundles to bind over (bind[i]): each the container
 * has as a regular file, once per file of the image they lead to (on
 * Fedora the first is a symlink to the second; on Arch each is one to a
 * file outside the list, which a bind on the symlink lands on). */
static int
read_image_bundles (struct create_ctx *ctx, char **image, size_t *len, bool *bind,
                    agentrt_error_t *err)
{
  struct stat st[sizeof image_bundles / sizeof *image_bundles];
  bool in_image[sizeof image_bundles / sizeof *image_bundles];

  *image = NULL;
  *len = 0;
  for (size_t i = 0; image_bundles[i]; i++)
    {
      cleanup_close int fd = create_open_container_file (ctx, image_bundles[i]);

      in_image[i] = image_file (ctx, image_bundles[i], &st[i]);
      bind[i] = fd >= 0;
      for (size_t k = 0; bind[i] && in_image[i] && k < i; k++)
        if (bind[k] && in_image[k] && st[k].st_dev == st[i].st_dev && st[k].st_ino == st[i].st_ino)
          bind[i] = false;
      if (fd < 0 || *image)
        continue;
      if (io_read_all (fd, IMAGE_BUNDLE_MAX, image, len) < 0)
        return agentrt_error (err, errno, "the agent's CA bundle: read the image's `%s`%s",
                              image_bundles[i], errno == EFBIG ? " (over 8 MiB)" : "");
    }
  return 0;
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
  bool bind[sizeof image_bundles / sizeof *image_bundles] = { false };
  size_t len = 0;

  if (!ctx->hardening.enforced || d->n_credentials == 0)
    return 0;
  if (!ctx->net.listeners)
    return agentrt_error (err, EINVAL, "credentials: no egress sidecar serves this "
                          "container to add them");
  if (credential_message (&ctx->hardening.policy, d, ctx->req->id, &ctx->inject_msg,
                          &ctx->inject_len, &ca_cert, err) < 0)
    return -1;
  if (read_image_bundles (ctx, &image, &len, bind, err) < 0)
    return -1;
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
  for (size_t i = 0; image_bundles[i]; i++)
    if (bind[i] && bind_bundle (ctx, name, image_bundles[i], err) < 0)
      return -1;
  return 0;
}
